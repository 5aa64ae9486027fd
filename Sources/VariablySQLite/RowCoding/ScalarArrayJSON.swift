/// Writes and reads JSON arrays of scalars (`["a","b"]`, `[1,2]`) without Foundation's JSON coders,
/// which cost more than the rest of a row (see docs/benchmarks.md). Anything unexpected returns `nil`, and
/// the caller falls back to `JSONDecoder`.
enum ScalarArrayJSON {
    // MARK: - Writing

    static func encode(_ strings: [String]) -> String {
        var out = "["
        out.reserveCapacity(2 + strings.reduce(0) { $0 + $1.utf8.count + 3 })
        for (offset, string) in strings.enumerated() {
            if offset > 0 { out.append(",") }
            appendQuoted(string, to: &out)
        }
        out.append("]")
        return out
    }

    /// The length in bytes of `encode(strings)` when no string needs escaping (the common case, which
    /// ``writeUnescaped(_:to:)`` writes): found without reading the strings' bytes.
    static func unescapedLength(_ strings: [String]) -> Int {
        var length = 1 + Swift.max(strings.count, 1)  // brackets and commas
        for string in strings { length &+= string.utf8.count &+ 2 }
        return length
    }

    /// Writes the bytes of `encode(strings)` to `buffer`, which holds at least `unescapedLength(strings)`,
    /// when no string has a byte to escape: one tight copy per string instead of a switch per byte.
    ///
    /// - Returns: How many bytes were written and whether they are all ASCII, or `nil` when a string
    ///   needs escaping (then ``write(_:to:)`` writes it; `buffer` holds some bytes).
    static func writeUnescaped(_ strings: [String], to buffer: UnsafeMutablePointer<UInt8>) -> (
        count: Int, isASCII: Bool
    )? {
        var position = 1
        var highBits: UInt8 = 0
        buffer[0] = UInt8(ascii: "[")
        for (offset, string) in strings.enumerated() {
            if offset > 0 {
                buffer[position] = UInt8(ascii: ",")
                position &+= 1
            }
            buffer[position] = UInt8(ascii: "\"")
            position &+= 1
            var string = string
            let isPlain = string.withUTF8 { utf8 in
                guard let source = utf8.baseAddress else { return true }
                let destination = buffer + position
                for index in 0..<utf8.count {
                    let byte = source[index]
                    // Control characters, quotes and backslashes are escaped; nothing else is.
                    if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
                    highBits |= byte
                    destination[index] = byte
                }
                position &+= utf8.count
                return true
            }
            guard isPlain else { return nil }
            buffer[position] = UInt8(ascii: "\"")
            position &+= 1
        }
        buffer[position] = UInt8(ascii: "]")
        return (position &+ 1, highBits < 0x80)
    }

    /// The length in bytes of `encode(strings)`: what ``write(_:to:)`` needs.
    static func encodedLength(_ strings: [String]) -> Int {
        var length = 1 + Swift.max(strings.count, 1)  // brackets and commas
        for string in strings {
            length += 2
            for byte in string.utf8 { length += escapedLength(byte) }
        }
        return length
    }

    /// Writes the bytes of `encode(strings)` to `buffer`, which holds at least `encodedLength(strings)`.
    ///
    /// - Returns: How many bytes were written, and whether they are all ASCII (text that is then in NFC
    ///   without a look at it again).
    static func write(_ strings: [String], to buffer: UnsafeMutablePointer<UInt8>) -> (count: Int, isASCII: Bool) {
        var position = 0
        var highBits: UInt8 = 0
        func put(_ byte: UInt8) {
            buffer[position] = byte
            position += 1
        }
        put(UInt8(ascii: "["))
        for (offset, string) in strings.enumerated() {
            if offset > 0 { put(UInt8(ascii: ",")) }
            put(UInt8(ascii: "\""))
            for byte in string.utf8 {
                highBits |= byte
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(UInt8(ascii: "\\")); put(byte)
                case UInt8(ascii: "\n"): put(UInt8(ascii: "\\")); put(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): put(UInt8(ascii: "\\")); put(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): put(UInt8(ascii: "\\")); put(UInt8(ascii: "t"))
                case ..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    for character in [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")] {
                        put(character)
                    }
                    put(hex[Int(byte >> 4)])
                    put(hex[Int(byte & 0xF)])
                default: put(byte)
                }
            }
            put(UInt8(ascii: "\""))
        }
        put(UInt8(ascii: "]"))
        return (position, highBits < 0x80)
    }

    /// How many bytes `appendQuoted` writes for `byte` of a string's UTF-8.
    private static func escapedLength(_ byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): 2
        case ..<0x20: 6
        default: 1
        }
    }

    static func encode<T>(_ values: [T], _ describe: (T) -> String) -> String {
        "[" + values.map(describe).joined(separator: ",") + "]"
    }

    private static func appendQuoted(_ string: String, to out: inout String) {
        out.append("\"")
        let needsEscaping = string.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        guard needsEscaping else {
            out.append(string)
            out.append("\"")
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out.append("\"")
    }

    // MARK: - Reading

    /// `["a","b"]` -> `["a", "b"]`; `nil` for anything else.
    static func decodeStrings(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        if let strings = decodeCompactStrings(bytes) { return strings }
        return decodeAnyStrings(bytes)
    }

    /// The array as ``encode(_:)-([String])`` writes it when no element needs escaping (`["a","b"]`: no
    /// whitespace, no `\`), read in one pass; `nil` for anything else, which ``decodeAnyStrings(_:)``
    /// reads.
    private static func decodeCompactStrings(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        let (quote, comma, end) = (UInt8(ascii: "\""), UInt8(ascii: ","), UInt8(ascii: "]"))
        let count = bytes.count
        guard count >= 2, bytes[0] == UInt8(ascii: "["), bytes[count &- 1] == end else { return nil }
        if count == 2 { return [] }
        var result = emptyStrings(sizedFor: bytes)
        var position = 1
        while position < count, bytes[position] == quote {
            let start = position &+ 1
            position = start
            while position < count, bytes[position] != quote {
                if bytes[position] == UInt8(ascii: "\\") { return nil }
                position &+= 1
            }
            guard position < count else { return nil }
            result.append(ColumnText.string(UnsafeBufferPointer(rebasing: bytes[start..<position])))
            position &+= 1
            guard position < count else { return nil }
            if bytes[position] == comma {
                position &+= 1
                continue
            }
            return bytes[position] == end && position == count &- 1 ? result : nil
        }
        return nil
    }

    /// An empty array with room for the elements of the JSON array `bytes`, counted by its commas: grown
    /// element by element, a short array is reallocated for each of its first elements. Commas inside
    /// strings only make it a little larger than needed.
    @inline(__always)
    private static func emptyStrings(sizedFor bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var commas = 0
        for byte in bytes where byte == UInt8(ascii: ",") { commas &+= 1 }
        var result: [String] = []
        result.reserveCapacity(commas &+ 1)
        return result
    }

    /// Any JSON array of strings, whitespace and escapes included; `nil` for anything else.
    private static func decodeAnyStrings(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        var reader = Reader(bytes: bytes)
        guard reader.consume(UInt8(ascii: "[")) else { return nil }
        if reader.consume(UInt8(ascii: "]")) { return reader.isAtEnd ? [] : nil }
        var result = emptyStrings(sizedFor: bytes)
        while true {
            guard let string = reader.readString() else { return nil }
            result.append(string)
            if reader.consume(UInt8(ascii: ",")) { continue }
            guard reader.consume(UInt8(ascii: "]")), reader.isAtEnd else { return nil }
            return result
        }
    }

    /// `[1,2.5,true]` -> the elements converted by `convert`; `nil` for anything else.
    static func decodeScalars<T>(_ bytes: UnsafeBufferPointer<UInt8>, _ convert: (Substring) -> T?) -> [T]? {
        var reader = Reader(bytes: bytes)
        guard reader.consume(UInt8(ascii: "[")) else { return nil }
        var result: [T] = []
        if reader.consume(UInt8(ascii: "]")) { return reader.isAtEnd ? result : nil }
        while true {
            guard let token = reader.readToken(), let value = convert(token) else { return nil }
            result.append(value)
            if reader.consume(UInt8(ascii: ",")) { continue }
            guard reader.consume(UInt8(ascii: "]")), reader.isAtEnd else { return nil }
            return result
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var isAtEnd: Bool {
            mutating get {
                skipWhitespace()
                return position == bytes.count
            }
        }

        mutating func skipWhitespace() {
            while position < bytes.count,
                bytes[position] == 0x20 || bytes[position] == 0x0A || bytes[position] == 0x0D || bytes[position] == 0x09
            {
                position += 1
            }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        mutating func readToken() -> Substring? {
            skipWhitespace()
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: ","), bytes[position] != UInt8(ascii: "]"),
                bytes[position] > 0x20
            {
                position += 1
            }
            guard position > start else { return nil }
            return Substring(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        }

        mutating func readString() -> String? {
            guard consume(UInt8(ascii: "\"")) else { return nil }
            let start = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let string = ColumnText.string(UnsafeBufferPointer(rebasing: bytes[start..<position]))
                    position += 1
                    return string
                }
                if byte == UInt8(ascii: "\\") {
                    position = start
                    return readEscapedString()
                }
                position += 1
            }
            return nil
        }

        private mutating func readEscapedString() -> String? {
            var utf8: [UInt8] = []
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard position < bytes.count else { return nil }
                    let escaped = bytes[position]
                    position += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard var scalar = readHex4() else { return nil }
                        if (0xD800..<0xDC00).contains(scalar) {
                            // A surrogate pair: \uD83D\uDE00.
                            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                                bytes[position + 1] == UInt8(ascii: "u")
                            else { return nil }
                            position += 2
                            guard let low = readHex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        utf8.append(contentsOf: String(unicode).utf8)
                    default: return nil
                    }
                default:
                    utf8.append(byte)
                }
            }
            return nil
        }

        private mutating func readHex4() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = hexValue(bytes[position]) else { return nil }
                value = value << 4 | digit
                position += 1
            }
            return value
        }

        private func hexValue(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }
    }
}
