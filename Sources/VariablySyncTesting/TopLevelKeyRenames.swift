import Foundation

/// Renames of top-level object keys, applied in order to a record's JSON bytes when it is served.
///
/// A rename is recorded in O(1) and applied lazily, so renaming a key on a server of a million records
/// costs nothing until a record is served, and then one pass over that record's bytes: no parsing into
/// Foundation objects, no re-encoding. A rename behaves as
/// `if let value = object.removeValue(forKey: from) { object[to] = value }` on the record's object: a
/// record without `from` keeps its `to`, and a record with both keeps `from`'s value under `to`.
///
/// Keys are compared by their JSON text: a key written with escapes other than `\"` and `\\` (which
/// no model key set produces) is not matched.
struct TopLevelKeyRenames {
    private var renames: [(from: [UInt8], to: [UInt8])] = []

    /// Whether no rename was recorded.
    var isEmpty: Bool { renames.isEmpty }

    /// Records a rename, applied after the earlier ones.
    mutating func append(from: String, to: String) {
        renames.append((Self.escaped(from), Self.escaped(to)))
    }

    /// `json` with every rename applied in order; `json` itself when it is not an object, when it
    /// cannot be read, or when no rename applies.
    ///
    /// - Complexity: O(bytes + members × renames).
    func apply(to json: Data) -> Data {
        guard !renames.isEmpty else { return json }
        return json.withUnsafeBytes { buffer in
            let bytes = buffer.bindMemory(to: UInt8.self)
            guard var members = Self.members(of: bytes) else { return json }
            var changed = false
            for (from, to) in renames {
                guard let index = members.firstIndex(where: { Self.key(of: $0, in: bytes, equals: from) }) else {
                    continue
                }
                let renamed = members[index].start
                members.removeAll { $0.start != renamed && Self.key(of: $0, in: bytes, equals: to) }
                if let index = members.firstIndex(where: { $0.start == renamed }) { members[index].newKey = to }
                changed = true
            }
            guard changed else { return json }
            var output = [UInt8]()
            output.reserveCapacity(bytes.count + 16)
            output.append(UInt8(ascii: "{"))
            for (offset, member) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                output.append(UInt8(ascii: "\""))
                if let newKey = member.newKey {
                    output.append(contentsOf: newKey)
                } else {
                    output.append(contentsOf: bytes[member.key])
                }
                output.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
                output.append(contentsOf: bytes[member.value])
            }
            output.append(UInt8(ascii: "}"))
            return Data(output)
        }
    }

    // MARK: - Reading the top level

    /// One `"key": value` of the top-level object: byte ranges of the key's text (inside the quotes)
    /// and of the value.
    private struct Member {
        let start: Int
        let key: Range<Int>
        let value: Range<Int>
        var newKey: [UInt8]?
    }

    private static func key(of member: Member, in bytes: UnsafeBufferPointer<UInt8>, equals text: [UInt8]) -> Bool {
        if let newKey = member.newKey { return newKey == text }
        return member.key.count == text.count && bytes[member.key].elementsEqual(text)
    }

    /// The members of a top-level object, or `nil` if `bytes` is not one.
    private static func members(of bytes: UnsafeBufferPointer<UInt8>) -> [Member]? {
        var index = skipSpace(bytes, 0)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index = skipSpace(bytes, index + 1)
        var members: [Member] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { return members }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\""), let keyEnd = endOfString(bytes, index) else { return nil }
            let start = index
            let key = (index + 1)..<(keyEnd - 1)
            index = skipSpace(bytes, keyEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index = skipSpace(bytes, index + 1)
            guard let valueEnd = endOfValue(bytes, index) else { return nil }
            members.append(Member(start: start, key: key, value: index..<valueEnd))
            index = skipSpace(bytes, valueEnd)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "}") { return members }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index = skipSpace(bytes, index + 1)
        }
        return nil
    }

    private static func skipSpace(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var index = start
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index
    }

    /// The index after the closing quote of the string opening at `start`.
    private static func endOfString(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The index after the value starting at `start`, or `nil` if the value is cut short.
    private static func endOfValue(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var index = start
        var depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard let end = endOfString(bytes, index) else { return nil }
                index = end
                if depth == 0 { return index }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return index > start ? index : nil }
                depth -= 1
                if depth == 0 { return index + 1 }
            case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                if depth == 0 { return index > start ? index : nil }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The key as JSON text between its quotes.
    private static func escaped(_ key: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for byte in key.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        return bytes
    }
}
