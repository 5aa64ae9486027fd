public import Foundation

// MARK: - Writing

extension JSONValue {
    /// The value as compact JSON text with sorted keys; floating values keep a fraction (`1.0`), big
    /// integers every digit.
    ///
    /// ```swift
    /// JSONValue(["a": 1.0, "b": [true, nil]]).jsonString()   // {"a":1.0,"b":[true,null]}
    /// ```
    ///
    /// - Complexity: O(n) in the size of the value.
    public func jsonString() -> String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The value as compact UTF-8 JSON, see ``jsonString()``.
    ///
    /// ```swift
    /// let data = JSONValue(["id": 1]).jsonData()
    /// ```
    public func jsonData() -> Data {
        Data(jsonString().utf8)
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .bigInteger(let digits): output += digits
        case .bigNumber(let text): output += text
        case .double(let value):
            if value.isFinite, value.rounded() == value, abs(value) < 1e16 {
                output += String(Int64(value)) + ".0"
            } else {
                output += value.isFinite ? "\(value)" : "null"
            }
        case .string(let value): JSONValue.writeString(value, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                JSONValue.writeString(key, to: &output)
                output += ":"
                members[key]!.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

// MARK: - Parsing

extension JSONValue {
    /// Parses JSON text exactly: `1` is an integer, `1.0` and `1e2` floating values, integers beyond
    /// `Int64` keep every digit, numbers beyond `Double`'s range their text, `null` members are kept,
    /// and of duplicate keys the first wins (as in `JSONDecoder`).
    ///
    /// ```swift
    /// let value = try JSONValue(parsing: #"{"big": 123456789012345678901234567890, "ratio": 1.0}"#)
    /// value["big"]     // .bigInteger("123456789012345678901234567890")
    /// value["ratio"]   // .double(1.0)
    /// try JSONValue(parsing: "1e600")   // .bigNumber("1e600")
    /// ```
    ///
    /// The text is validated as `JSONDecoder` validates it: invalid UTF-8 (overlong forms, encoded
    /// surrogates), unpaired surrogate escapes and nesting deeper than 512 levels are errors.
    ///
    /// - Throws: `DecodingError.dataCorrupted` naming the byte offset of the first syntax error.
    /// - Complexity: O(n) in the length of the text.
    public init(parsing text: String) throws {
        try self.init(parsing: Data(text.utf8))
    }

    /// Parses UTF-8 JSON data exactly, see ``init(parsing:)-(String)``.
    ///
    /// ```swift
    /// let value = try JSONValue(parsing: data)
    /// ```
    ///
    /// - Throws: `DecodingError.dataCorrupted` naming the byte offset of the first syntax error.
    /// - Complexity: O(n) in the size of `data`.
    public init(parsing data: Data) throws {
        // The fast reader's parser and string decoding: the same validation as `JSONDecoder` and
        // `KeySetJSONDecoder` (UTF-8, escapes, surrogates, nesting), in linear time.
        let document: JSONDocument
        do {
            document = try JSONDocument(data: data)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: "\(error)", underlyingError: error))
        }
        self.init(document: document, at: 0)
    }

    /// The value at tape `index` of `document`; of duplicate keys the first wins, as in `JSONDecoder`.
    private init(document: JSONDocument, at index: Int) {
        let entry = document[index]
        switch entry.kind {
        case .null: self = .null
        case .true: self = .bool(true)
        case .false: self = .bool(false)
        case .string: self = .string(document.string(at: index))
        case .number:
            self = JSONValue(
                number: document.numberText(at: index), isInteger: entry.flags & JSONTapeEntry.isNonInteger == 0)
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(entry.length)
            var child = index + 1
            for _ in 0..<entry.length {
                elements.append(JSONValue(document: document, at: child))
                child = document.next(after: child)
            }
            self = .array(elements)
        case .object:
            var members: [String: JSONValue] = Dictionary(minimumCapacity: entry.length)
            var child = index + 1
            for _ in 0..<entry.length {
                let key = document.string(at: child)
                child += 1
                if members[key] == nil { members[key] = JSONValue(document: document, at: child) }
                child = document.next(after: child)
            }
            self = .object(members)
        }
    }

    /// A number from its (valid) JSON text, exactly: an `Int64`, else the digits of a big integer; a
    /// `Double`, else, beyond its range, the text itself.
    private init(number text: String, isInteger: Bool) {
        if isInteger {
            self = Int64(text).map(JSONValue.int) ?? .bigInteger(text)
            return
        }
        guard let value = Double(text), value.isFinite, value != 0 || JSONDocument.isTrueZero(text) else {
            self = .bigNumber(text)
            return
        }
        self = .double(value)
    }
}
