// Strings are validated by the parser; here they are only copied out, unescaping if needed.

extension JSONDocument {
    /// The string at tape `index`, which must be a string entry.
    @inline(__always)
    func string(at index: Int) -> String {
        let entry = tape[index]
        let raw = rawBytes(of: entry)
        if entry.flags & JSONTapeEntry.isEscaped == 0 {
            return String(decoding: raw, as: UTF8.self)
        }
        return JSONDocument.unescape(raw)
    }

    /// The strings of the array at tape `index`, or `nil` if an element is not a string.
    func strings(at index: Int) -> [String]? {
        let count = tape[index].length
        var strings: [String] = []
        strings.reserveCapacity(count)
        var element = index + 1
        for _ in 0..<count {
            guard tape[element].kindBits == JSONKind.string.rawValue else { return nil }
            strings.append(string(at: element))
            element = next(after: element)
        }
        return strings
    }

    /// Decodes the escapes of `raw`, the already validated content of a string.
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        // An escape never takes fewer bytes than what it stands for.
        String(unsafeUninitializedCapacity: raw.count) { output in
            var read = 0
            var written = 0
            let input = raw.baseAddress!
            while read < raw.count {
                let byte = input[read]
                guard byte == UInt8(ascii: "\\") else {
                    output[written] = byte
                    written += 1
                    read += 1
                    continue
                }
                let escaped = input[read + 1]
                read += 2
                let simple: UInt8
                switch escaped {
                case UInt8(ascii: "b"): simple = 0x08
                case UInt8(ascii: "f"): simple = 0x0C
                case UInt8(ascii: "n"): simple = 0x0A
                case UInt8(ascii: "r"): simple = 0x0D
                case UInt8(ascii: "t"): simple = 0x09
                case UInt8(ascii: "u"):
                    var scalar = UInt32(JSONParser.hexValue(input + read)!)
                    read += 4
                    if scalar & 0xFC00 == 0xD800 {
                        let low = UInt32(JSONParser.hexValue(input + read + 2)!)
                        read += 6
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    written += encodeUTF8(scalar, into: output, at: written)
                    continue
                default: simple = escaped  // \" \\ \/
                }
                output[written] = simple
                written += 1
            }
            return written
        }
    }

    @inline(__always)
    private static func encodeUTF8(_ scalar: UInt32, into output: UnsafeMutableBufferPointer<UInt8>, at index: Int)
        -> Int
    {
        switch scalar {
        case 0..<0x80:
            output[index] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            output[index] = UInt8(0xC0 | scalar >> 6)
            output[index + 1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            output[index] = UInt8(0xE0 | scalar >> 12)
            output[index + 1] = UInt8(0x80 | (scalar >> 6) & 0x3F)
            output[index + 2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            output[index] = UInt8(0xF0 | scalar >> 18)
            output[index + 1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
            output[index + 2] = UInt8(0x80 | (scalar >> 6) & 0x3F)
            output[index + 3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }

    /// Whether the object key at tape `index` equals `key` (its UTF-8 bytes, ASCII only).
    ///
    /// Only for ASCII keys: Swift compares strings by canonical equivalence, which for ASCII text is
    /// byte equality; any other key goes through `String` comparison in ``KeyTable``.
    @inline(__always)
    func key(at index: Int, equals key: UnsafeBufferPointer<UInt8>) -> Bool {
        let entry = tape[index]
        guard entry.length == key.count,
            entry.flags & (JSONTapeEntry.isEscaped | JSONTapeEntry.isASCII) == JSONTapeEntry.isASCII
        else { return false }
        return memcmp(bytes + entry.offset, key.baseAddress!, key.count) == 0
    }
}

@inline(__always)
private func memcmp(_ lhs: UnsafePointer<UInt8>, _ rhs: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    var index = 0
    while index + 8 <= count {
        let left = UnsafeRawPointer(lhs + index).loadUnaligned(as: UInt64.self)
        let right = UnsafeRawPointer(rhs + index).loadUnaligned(as: UInt64.self)
        if left != right { return 1 }
        index += 8
    }
    while index < count {
        if lhs[index] != rhs[index] { return 1 }
        index += 1
    }
    return 0
}
