import Foundation

/// Finds where values lie in a JSON document that a strict parser has already accepted, so that
/// parts of a server's answer (a page's `records`, a conflict's `record`) are handed on as the
/// server's own bytes: no re-serialization, and the decoder that reads them sees exactly what the
/// server sent (duplicate keys included, where the first wins as in `JSONDecoder`).
///
/// It does not validate: call it only on bytes that a strict parser accepted (on anything else it
/// returns `nil` or meaningless ranges, never out of bounds). Nesting is followed with a counter,
/// never recursion, so any depth is safe.
struct JSONSlicer {
    let bytes: [UInt8]

    init(_ data: Data) {
        bytes = [UInt8](data)
    }

    /// The range of the whole document, without surrounding white space.
    var root: Range<Int> {
        var start = 0
        skipSpace(&start)
        var end = bytes.count
        while end > start, Self.isSpace(bytes[end - 1]) { end -= 1 }
        return start..<end
    }

    /// The bytes of `range`.
    func data(_ range: Range<Int>) -> Data {
        Data(bytes[range])
    }

    /// The value of the first member named `name` of the object at `object`, or `nil` when it has none
    /// or `object` is not an object.
    func value(of name: String, inObject object: Range<Int>) -> Range<Int>? {
        let wanted = Array(name.utf8)
        var index = object.lowerBound
        guard index < object.upperBound, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        while true {
            skipSpace(&index)
            guard index < object.upperBound, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let keyStart = index
            skipValue(&index)
            let key = keyStart..<index
            skipSpace(&index)
            guard index < object.upperBound, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipSpace(&index)
            let valueStart = index
            skipValue(&index)
            if matches(key, wanted) { return valueStart..<index }
            skipSpace(&index)
            guard index < object.upperBound, bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    /// The elements of the array at `array`, or `nil` when it is not an array.
    func elements(ofArray array: Range<Int>) -> [Range<Int>]? {
        var index = array.lowerBound
        guard index < array.upperBound, bytes[index] == UInt8(ascii: "[") else { return nil }
        index += 1
        var elements: [Range<Int>] = []
        skipSpace(&index)
        if index < array.upperBound, bytes[index] == UInt8(ascii: "]") { return elements }
        while index < array.upperBound {
            skipSpace(&index)
            let start = index
            skipValue(&index)
            elements.append(start..<index)
            skipSpace(&index)
            guard index < array.upperBound, bytes[index] == UInt8(ascii: ",") else { break }
            index += 1
        }
        return elements
    }

    // MARK: - Scanning

    /// Whether the string token at `key` (quotes included) spells `wanted`; escaped keys are decoded.
    private func matches(_ key: Range<Int>, _ wanted: [UInt8]) -> Bool {
        guard key.count >= 2 else { return false }
        let inner = bytes[(key.lowerBound + 1)..<(key.upperBound - 1)]
        guard inner.contains(UInt8(ascii: "\\")) else { return inner.elementsEqual(wanted) }
        guard let decoded = try? JSONDecoder().decode(String.self, from: Data(bytes[key])) else { return false }
        return Array(decoded.utf8) == wanted
    }

    private func skipSpace(_ index: inout Int) {
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Moves past one value: a string, an object or array with everything in it, or a scalar.
    private func skipValue(_ index: inout Int) {
        guard index < bytes.count else { return }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            skipString(&index)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    skipString(&index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                default:
                    break
                }
                index += 1
                if depth == 0 { return }
            }
        default:
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
                    || Self.isSpace(byte)
                {
                    return
                }
                index += 1
            }
        }
    }

    /// Moves past a string token, its closing quote included.
    private func skipString(_ index: inout Int) {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""):
                index += 1
                return
            default: index += 1
            }
        }
        index = min(index, bytes.count)
    }
}
