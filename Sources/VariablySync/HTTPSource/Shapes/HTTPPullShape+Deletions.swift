import Foundation
import VariablyCodable

// MARK: - Deletion markers among the records

extension HTTPPullShape {
    /// Whether the record at `element` is a deletion by the shape's marker. A marker the record carries
    /// in another form than declared (a timestamp where a flag was declared, a number for a status) is
    /// an error that names the field, the record and the declaration that fits: read as a live record,
    /// a deleted one would silently stay in the cache.
    ///
    /// - Complexity: One member look-up per key of the marker's path in the record; the value is
    ///   parsed only when it is not one of the few literals a marker usually holds.
    func isDeletion(_ element: Range<Int>, in body: JSONBody) throws -> Bool {
        try isDeletion(element, in: body, marker: deletionMarker.map(DataPath.init(dotted:)))
    }

    /// As ``isDeletion(_:in:)``, with the marker's path split once by the caller (``deletionMarker``
    /// read as a ``DataPath``), for a loop over the records of a page.
    func isDeletion(_ element: Range<Int>, in body: JSONBody, marker: DataPath?) throws -> Bool {
        guard let marker, deletionMarker != nil else { return false }
        return try isDeletion(element, in: body, markerAt: body.range(at: marker, in: element))
    }

    /// As ``isDeletion(_:in:)``, with the marker's value found by the caller (`nil`: the record has none).
    func isDeletion(_ element: Range<Int>, in body: JSONBody, markerAt range: Range<Int>?) throws -> Bool {
        guard let field = deletionMarker, let range else { return false }
        let bytes = body.bytes[range]
        // The walk has checked the structure: these literals are their bytes, nothing to parse per record.
        if bytes.elementsEqual("null".utf8) { return false }
        switch deletions {
        case .tombstones:
            if bytes.elementsEqual("true".utf8) { return true }
            if bytes.elementsEqual("false".utf8) { return false }
            throw wrongMarker(
                field, in: element, body, expected: "true or false",
                hint: bytes.first == UInt8(ascii: "\"")
                    ? "a timestamp that is null while live is `.softDeleted(at: \"\(field)\")`" : nil)
        case .softDeleted:
            if bytes.first == UInt8(ascii: "\"")
                || bytes.first.map({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) == true
            {
                return true
            }
            throw wrongMarker(
                field, in: element, body, expected: "a timestamp or null",
                hint: bytes.elementsEqual("false".utf8)
                    ? "a Boolean flag is `.tombstones(flag: \"\(field)\")`" : nil)
        case .status(_, let deletedValue):
            guard case .string(let text) = try body.value(range) else {
                throw wrongMarker(field, in: element, body, expected: "text", hint: nil)
            }
            return text == deletedValue
        case .none, .ids:
            return false
        }
    }

    /// The path of the deletion marker in each record, dotted as declared (`attributes.deleted`); `nil`
    /// for deletions listed apart (or none).
    var deletionMarker: String? {
        switch deletions {
        case .none, .ids: nil
        case .tombstones(let flag, _): flag
        case .softDeleted(let timestamp, _): timestamp
        case .status(let field, _): field
        }
    }

    /// The declared fields that some record of every non-empty pull must carry, with their role and the
    /// fix to name when none does.
    var declaredFields: [(name: String, role: String, fix: String)] {
        var fields: [(name: String, role: String, fix: String)] = []
        if let changedSince {
            fields.append(
                (
                    changedSince.field, "changed-since field",
                    "name the field that holds each record's last change (changedSince's field:), "
                        + "or leave changedSince out to pull every record on each sync"
                ))
        }
        switch deletions {
        case .tombstones(let flag, false), .softDeleted(let flag, false), .status(let flag, _):
            fields.append(
                (
                    flag, "deletion marker",
                    "declare the marker the records carry (.tombstones(flag:), .softDeleted(at:), .status(field:deleted:)), "
                        + "or absentMeansLive: true when the server writes it on deleted records only"
                ))
        case .none, .ids, .tombstones, .softDeleted:
            break
        }
        return fields
    }

    private func wrongMarker(_ field: String, in element: Range<Int>, _ body: JSONBody, expected: String, hint: String?)
        -> RemoteSourceError
    {
        let id = (try? body.range(at: idPath, in: element)).flatMap { $0 }.map {
            String(decoding: body.data($0), as: UTF8.self)
        }
        let value = (try? body.range(at: DataPath(dotted: field), in: element)).flatMap { $0 }.map {
            String(decoding: body.data($0), as: UTF8.self)
        }
        return RemoteSourceError.invalidResponse(
            "the deletion marker \"\(field)\" of record \(id ?? "?") is \((value ?? "?").prefix(80)), not \(expected) as "
                + "declared" + (hint.map { ": \($0)" } ?? ""))
    }
}
