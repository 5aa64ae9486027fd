import Foundation
import VariablyCodable
import VariablySQLite

/// One record of a pulled page: the decoded model, or the error that kept it from decoding together
/// with whatever id could still be read. Decoding a page as `[PageRecord<Model>]` parses it once and
/// lets one bad record fail alone.
struct PageRecord<Model: SQLiteStorable & Identifiable>: Decodable where Model.ID: Decodable {
    let result: Result<Model, any Error>
    let id: Model.ID?

    init(result: Result<Model, any Error>, id: Model.ID?) {
        self.result = result
        self.id = id
    }

    init(from decoder: any Decoder) throws {
        do {
            result = .success(try Model(from: decoder))
            id = nil
        } catch {
            result = .failure(error)
            id = Self.readID(from: decoder)
        }
    }

    /// The record's id, read under the source's keys for the model's primary key (the property
    /// ``SQLiteTable/primaryKey`` declares, whatever its name), through the key's coding (a transform
    /// such as `.numericString`).
    private static func readID(from decoder: any Decoder) -> Model.ID? {
        guard let container = try? DecodingContainer(decoder: decoder, keySets: Model.keySets),
            let primaryKey = try? PrimaryKey<Model>(), let entry = container.keySet.index(of: primaryKey.keyPath)
        else { return nil }
        return try? container.decode(Model.ID.self, entry: entry)
    }
}

// MARK: - Records that are not JSON

extension PageRecord {
    /// The records of a page that `decoder` refused whole for a defect inside one record's text
    /// (invalid UTF-8, a bad escape, an unescaped control character, a malformed number), each decoded
    /// alone: the decoder's own error then lands on the record that holds the defect, which the
    /// malformed-record policy skips or fails like any other. `nil` when the defect is not inside a
    /// record, or when the array around the records is not exactly `[record, record, ...]`: then the
    /// page's error stands, so that splitting never accepts a page the decoder would refuse for its
    /// structure.
    ///
    /// - Complexity: O(n) in the size of the page.
    static func decodeOneByOne(_ records: Data, refusedWith pageError: any Error, decoder: KeySetJSONDecoder) -> [Self]?
    {
        guard case DecodingError.dataCorrupted(let context) = pageError,
            let syntax = context.underlyingError as? JSONSyntaxError, isInsideAValue(syntax.reason),
            let body = try? JSONBody(records), let elements = try? body.elements(of: body.root),
            elements.contains(where: { $0.contains(syntax.offset) }), isPlainArray(body, elements)
        else { return nil }
        return elements.map { element in
            do {
                return try decoder.decode(Self.self, from: body.data(element))
            } catch {
                return Self(result: .failure(error), id: readID(in: body, record: element, source: decoder.source))
            }
        }
    }

    /// Whether a syntax error of this kind lies inside one string or number, never in the structure.
    private static func isInsideAValue(_ reason: JSONSyntaxError.Reason) -> Bool {
        switch reason {
        case .invalidUTF8, .invalidEscape, .loneSurrogate, .unescapedControlCharacter, .invalidNumber: true
        default: false
        }
    }

    /// Whether the bytes around `elements` are `[`, `,` between elements and `]` with white space only:
    /// the walk of `JSONBody` alone would let a trailing comma through.
    private static func isPlainArray(_ body: JSONBody, _ elements: [Range<Int>]) -> Bool {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var start = body.root.lowerBound + 1
        for (position, element) in elements.enumerated() {
            let between = body.bytes[start..<element.lowerBound].filter { !isWhitespace($0) }
            guard between.elementsEqual(position == 0 ? [] : [UInt8(ascii: ",")]) else { return false }
            start = element.upperBound
        }
        return body.bytes[start..<(body.root.upperBound - 1)].allSatisfy(isWhitespace)
    }

    /// The id of a record the decoder could not parse, read from the record's bytes under the source's
    /// keys for the primary key, so that the skipped record is still named.
    private static func readID(in body: JSONBody, record: Range<Int>, source: CodingSource?) -> Model.ID? {
        let source = source ?? Model.keySets.defaultSource ?? .remote
        guard let keySet = Model.keySets[source], let primaryKey = try? PrimaryKey<Model>(),
            let entry = keySet.index(of: primaryKey.keyPath)
        else { return nil }
        for path in keySet.entries[entry].paths {
            var value: Range<Int>? = record
            for key in path.components.keys { value = value.flatMap { try? body.member(key, of: $0) } }
            if let value, let id = try? RecordIDDecoder<Model>(source: source).id(from: body.data(value)) { return id }
        }
        return nil
    }
}
