import Foundation
import VariablyCodable
import VariablySync

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
        guard !renames.isEmpty, let body = try? JSONBody(json), var members = try? Self.members(of: body) else {
            return json
        }
        var changed = false
        for (from, to) in renames {
            guard let index = members.firstIndex(where: { $0.has(from, in: body.bytes) }) else { continue }
            let renamed = members[index].key
            members.removeAll { $0.key != renamed && $0.has(to, in: body.bytes) }
            if let index = members.firstIndex(where: { $0.key == renamed }) { members[index].newKey = to }
            changed = true
        }
        guard changed else { return json }
        var output = [UInt8]()
        output.reserveCapacity(body.bytes.count + 16)
        output.append(UInt8(ascii: "{"))
        for (offset, member) in members.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            output.append(UInt8(ascii: "\""))
            output.append(contentsOf: member.newKey ?? Array(body.bytes[member.key]))
            output.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
            output.append(contentsOf: body.bytes[member.value])
        }
        output.append(UInt8(ascii: "}"))
        return Data(output)
    }

    // MARK: - Reading the top level

    /// One `"key": value` of the top-level object: byte ranges of the key's text (inside the quotes)
    /// and of the value, read by the HTTP source's body reader.
    private struct Member {
        let key: Range<Int>
        let value: Range<Int>
        var newKey: [UInt8]?

        func has(_ text: [UInt8], in bytes: [UInt8]) -> Bool {
            if let newKey { return newKey == text }
            return key.count == text.count && bytes[key].elementsEqual(text)
        }
    }

    /// The members of the body's top-level object, or `nil` if it is not one.
    private static func members(of body: JSONBody) throws -> [Member]? {
        try body.members(of: body.root)?.map { member in
            Member(key: (member.key.lowerBound + 1)..<(member.key.upperBound - 1), value: member.value)
        }
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
