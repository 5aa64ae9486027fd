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
    /// `Int64` keep every digit, `null` members are kept.
    ///
    /// ```swift
    /// let value = try JSONValue(parsing: #"{"big": 123456789012345678901234567890, "ratio": 1.0}"#)
    /// value["big"]     // .bigInteger("123456789012345678901234567890")
    /// value["ratio"]   // .double(1.0)
    /// ```
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
    public init(parsing data: Data) throws {
        var parser = JSONValueParser(bytes: [UInt8](data))
        self = try parser.parseDocument()
    }
}

/// A small recursive-descent JSON parser that keeps the distinctions Foundation's parsers lose.
private struct JSONValueParser {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws -> JSONValue {
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard position == bytes.count else { throw error("Unexpected text after the value") }
        return value
    }

    private func error(_ message: String) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: [], debugDescription: "\(message) at byte \(position)."))
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) {
            position += 1
        }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws -> JSONValue {
        let utf8 = Array(literal.utf8)
        guard position + utf8.count <= bytes.count, Array(bytes[position..<position + utf8.count]) == utf8 else {
            throw error("Invalid literal")
        }
        position += utf8.count
        return value
    }

    private mutating func parseValue(depth: Int) throws -> JSONValue {
        guard depth < 512 else { throw error("Too deeply nested") }
        guard position < bytes.count else { throw error("Unexpected end of data") }
        switch bytes[position] {
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "["):
            position += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw error("Unterminated array") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return .array(elements)
                } else {
                    throw error("Expected , or ]")
                }
            }
        case UInt8(ascii: "{"):
            position += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("Expected a key") }
                let key = try parseString()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("Expected :") }
                position += 1
                skipWhitespace()
                members[key] = try parseValue(depth: depth + 1)
                skipWhitespace()
                guard position < bytes.count else { throw error("Unterminated object") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .object(members)
                } else {
                    throw error("Expected , or }")
                }
            }
        default:
            return try parseNumber()
        }
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = position
        var isFloating = false
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digitsStart = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            position += 1
        }
        guard position > digitsStart else { throw error("Invalid value") }
        if bytes[digitsStart] == UInt8(ascii: "0"), position - digitsStart > 1 { throw error("Leading zero") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isFloating = true
            position += 1
            let fractionStart = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            guard position > fractionStart else { throw error("Expected digits after .") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isFloating = true
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            let exponentStart = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            guard position > exponentStart else { throw error("Expected digits in the exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isFloating {
            guard let value = Double(text) else { throw error("Invalid number") }
            return .double(value)
        }
        if let value = Int64(text) { return .int(value) }
        return .bigInteger(text == "-0" ? "0" : text)
    }

    private mutating func parseString() throws -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flushRun(_ end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                flushRun(position)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("Control character in string") }
            if byte != UInt8(ascii: "\\") {
                position += 1
                continue
            }
            flushRun(position)
            position += 1
            guard position < bytes.count else { break }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800..<0xDC00).contains(code), position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                {
                    position += 2
                    let low = try parseHex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("Invalid surrogate pair") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: throw error("Invalid escape")
            }
            runStart = position
        }
        throw error("Unterminated string")
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard position + 4 <= bytes.count,
            let code = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
        else { throw error("Invalid \\u escape") }
        position += 4
        return code
    }
}
