package import Foundation

/// A response body read once: values are found by path in the bytes as the server sent them, without
/// building a tree, so that the records can be handed to `KeySetJSONDecoder` as a slice of the body
/// (or a concatenation of slices), never re-serialized.
///
/// The walk checks the structure (strings, brackets, literals) and stops at the first error; scalar
/// values at a path are read with `JSONValue(parsing:)`, the records by the decoder, so every byte
/// that is used is validated as strictly as `JSONDecoder` would. Of duplicate keys the first wins, as
/// in `JSONDecoder` and `KeySetJSONDecoder`.
package struct JSONBody {
    package let bytes: [UInt8]
    /// The range of the top-level value.
    package let root: Range<Int>
    /// Where each object and array ends, found by the walk that checked the body: every later walk
    /// (a member looked up, the records of a page listed) steps over a container in one look-up instead
    /// of walking its bytes again.
    private let containers: Containers

    /// Deeper than this, a body is refused rather than walked.
    static let maximumDepth = 512

    package init(_ data: Data) throws(JSONBodyError) {
        bytes = [UInt8](data)
        var index = 0
        Self.skipWhitespace(bytes, &index)
        let start = index
        var containers: Containers? = Containers()
        root = start..<(try Self.skipValue(bytes, from: start, depth: 0, recording: &containers))
        self.containers = containers ?? Containers()
        index = root.upperBound
        Self.skipWhitespace(bytes, &index)
        guard index == bytes.count else {
            throw JSONBodyError("unexpected bytes after the JSON value at offset \(index)")
        }
    }

    /// The range of the value at `path` (object keys from `base`, the top by default), `nil` when a
    /// key is missing or a parent is not an object. An empty path is `base` itself.
    ///
    /// - Complexity: One ``member(_:of:)`` look-up per key: a one-key path costs what `member` does.
    package func range(at path: DataPath, in base: Range<Int>? = nil) throws(JSONBodyError) -> Range<Int>? {
        var current = base ?? root
        for key in path.keys {
            guard let member = try member(key, of: current) else { return nil }
            current = member
        }
        return current
    }

    /// The ranges of the values at `paths` in the object at `object`, as ``range(at:in:)`` finds each
    /// (`nil` where a key is missing or a parent is not an object), walking the object's members once
    /// for every path's first key rather than once a path.
    package func ranges(at paths: [DataPath], in object: Range<Int>) throws(JSONBodyError) -> [Range<Int>?] {
        var found = [Range<Int>?](repeating: nil, count: paths.count)
        var missing = 0
        for (index, path) in paths.enumerated() {
            if path.keys.isEmpty { found[index] = object } else { missing += 1 }
        }
        guard missing > 0 else { return found }
        let isObject = try forEachMember(of: object) { (key, value) throws(JSONBodyError) in
            for (index, path) in paths.enumerated() where found[index] == nil {
                // The first occurrence wins, as in `member(_:of:)`.
                if try keyEquals(path.keys[0], key) {
                    found[index] = value
                    missing -= 1
                }
            }
            return missing > 0
        }
        guard isObject else { return paths.map { $0.keys.isEmpty ? object : nil } }
        for (index, path) in paths.enumerated() where path.keys.count > 1 {
            if let first = found[index] {
                found[index] = try range(at: DataPath(Array(path.keys.dropFirst())), in: first)
            }
        }
        return found
    }

    /// The value of the object at `object` for `key`, the first occurrence.
    package func member(_ key: String, of object: Range<Int>) throws(JSONBodyError) -> Range<Int>? {
        var found: Range<Int>?
        let isObject = try forEachMember(of: object) { (keyRange, value) throws(JSONBodyError) in
            if try keyEquals(key, keyRange) { found = value }
            return found == nil
        }
        return isObject ? found : nil
    }

    /// The members of the object at `object`, in order, as the ranges of each key (with its quotes)
    /// and value; `nil` when the value is not an object.
    package func members(of object: Range<Int>) throws(JSONBodyError) -> [(key: Range<Int>, value: Range<Int>)]? {
        var members: [(key: Range<Int>, value: Range<Int>)] = []
        let isObject = try forEachMember(of: object) { (key, value) throws(JSONBodyError) in
            members.append((key, value))
            return true
        }
        return isObject ? members : nil
    }

    /// Calls `body` with each member of the object at `object` until it returns `false`.
    ///
    /// - Returns: Whether the value is an object.
    private func forEachMember(
        of object: Range<Int>, _ body: (_ key: Range<Int>, _ value: Range<Int>) throws(JSONBodyError) -> Bool
    ) throws(JSONBodyError) -> Bool {
        guard bytes[object.lowerBound] == UInt8(ascii: "{") else { return false }
        var index = object.lowerBound + 1
        while true {
            Self.skipWhitespace(bytes, &index)
            guard index < object.upperBound else { throw JSONBodyError("an unterminated object") }
            if bytes[index] == UInt8(ascii: "}") { return true }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                Self.skipWhitespace(bytes, &index)
            }
            let keyStart = index
            let keyEnd = try skip(from: keyStart)
            index = keyEnd
            Self.skipWhitespace(bytes, &index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw JSONBodyError("a member without ':' at offset \(index)")
            }
            index += 1
            Self.skipWhitespace(bytes, &index)
            let valueStart = index
            let valueEnd = try skip(from: valueStart)
            guard try body(keyStart..<keyEnd, valueStart..<valueEnd) else { return true }
            index = valueEnd
        }
    }

    /// The ranges of an array's elements; `nil` when the value is not an array.
    package func elements(of array: Range<Int>) throws(JSONBodyError) -> [Range<Int>]? {
        guard bytes[array.lowerBound] == UInt8(ascii: "[") else { return nil }
        var ranges: [Range<Int>] = []
        var index = array.lowerBound + 1
        while true {
            Self.skipWhitespace(bytes, &index)
            guard index < array.upperBound else { throw JSONBodyError("an unterminated array") }
            if bytes[index] == UInt8(ascii: "]") { return ranges }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                Self.skipWhitespace(bytes, &index)
            }
            let end = try skip(from: index)
            ranges.append(index..<end)
            index = end
        }
    }

    /// The bytes of a value.
    package func data(_ range: Range<Int>) -> Data { Data(bytes[range]) }

    /// The first element of the JSON array `data` holds, walking that element only (not the rest of
    /// the array); `nil` when `data` is no array, an empty one, or its first element is not well formed.
    ///
    /// - Complexity: O(*e*) in the size of the element when it starts within the first 64 KiB and ends
    ///   there; else O(*n*) in the size of `data` to copy it whole.
    package static func firstElement(ofArrayIn data: Data) -> Data? {
        // A page's first record is small: a prefix usually holds it, and the page is not copied whole.
        if data.count > 65_536, let element = firstElement(in: [UInt8](data.prefix(65_536))) { return element }
        return firstElement(in: [UInt8](data))
    }

    /// The first element of the JSON array that `bytes` starts with, when `bytes` hold it whole.
    private static func firstElement(in bytes: [UInt8]) -> Data? {
        var index = 0
        skipWhitespace(bytes, &index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
        index += 1
        skipWhitespace(bytes, &index)
        var none: Containers? = nil
        guard index < bytes.count, bytes[index] != UInt8(ascii: "]"),
            let end = try? skipValue(bytes, from: index, depth: 1, recording: &none)
        else { return nil }
        return Data(bytes[index..<end])
    }

    /// A scalar or small value, read strictly.
    package func value(_ range: Range<Int>) throws(JSONBodyError) -> JSONValue {
        do {
            return try JSONValue(parsing: data(range))
        } catch {
            throw JSONBodyError("\(error)")
        }
    }

    /// The value at `path` as text: a string as is, a number as written; `nil` for `null` or when absent.
    package func text(at path: DataPath, in base: Range<Int>? = nil) throws(JSONBodyError) -> String? {
        var current = base ?? root
        for key in path.keys {
            guard let member = try member(key, of: current) else { return nil }
            current = member
        }
        return try Self.text(of: value(current))
    }

    package static func text(of value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .bigNumber(let text): text
        case .bool(let flag): flag ? "true" : "false"
        default: nil
        }
    }

    /// A JSON array of the given element ranges, copied byte for byte.
    package func array(of ranges: [Range<Int>]) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(ranges.reduce(2) { $0 + $1.count + 1 })
        out.append(UInt8(ascii: "["))
        for (position, range) in ranges.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: bytes[range])
        }
        out.append(UInt8(ascii: "]"))
        return Data(out)
    }

    /// The object at `object` with only the members whose key `keep` accepts, copied byte for byte;
    /// `nil` when the value is not an object.
    package func object(_ object: Range<Int>, keeping keep: (String) -> Bool) throws(JSONBodyError) -> Data? {
        guard let members = try members(of: object) else { return nil }
        var out: [UInt8] = [UInt8(ascii: "{")]
        for member in members {
            guard case .string(let key) = try value(member.key), keep(key) else { continue }
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            out += bytes[member.key]
            out.append(UInt8(ascii: ":"))
            out += bytes[member.value]
        }
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    // MARK: - Walking

    private func keyEquals(_ key: String, _ range: Range<Int>) throws(JSONBodyError) -> Bool {
        let content = (range.lowerBound + 1)..<(range.upperBound - 1)
        let isPlain = bytes.withUnsafeBufferPointer { buffer in
            memchr(buffer.baseAddress! + content.lowerBound, 0x5C, content.count) == nil
        }
        guard isPlain else { return try value(range) == .string(key) }
        // Most keys differ in length: compared by their bytes only when the lengths agree.
        var key = key
        return key.withUTF8 { utf8 in
            guard utf8.count == content.count else { return false }
            guard let start = utf8.baseAddress, !content.isEmpty else { return true }
            return bytes.withUnsafeBufferPointer {
                memcmp($0.baseAddress! + content.lowerBound, start, utf8.count) == 0
            }
        }
    }

    private static func skipWhitespace(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// The start and end of each object and array of a body, in the order they start.
    private struct Containers {
        var starts: [Int] = []
        var ends: [Int] = []

        /// The end of the container that starts at `start`, if one does.
        func end(of start: Int) -> Int? {
            var (low, high) = (0, starts.count)
            while low < high {
                let middle = (low + high) / 2
                if starts[middle] < start { low = middle + 1 } else { high = middle }
            }
            return low < starts.count && starts[low] == start ? ends[low] : nil
        }
    }

    /// The index just past the value starting at `start`, which the walk at ``init(_:)`` checked: a
    /// container in one look-up, a string or scalar by its bytes.
    private func skip(from start: Int) throws(JSONBodyError) -> Int {
        if start < bytes.count, bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "["),
            let end = containers.end(of: start)
        {
            return end
        }
        var none: Containers? = nil
        return try Self.skipValue(bytes, from: start, depth: 1, recording: &none)
    }

    /// The index just past the value starting at `start`; each container's start and end noted in
    /// `containers` when there is one to note them in.
    private static func skipValue(
        _ bytes: [UInt8], from start: Int, depth: Int, recording containers: inout Containers?
    ) throws(JSONBodyError) -> Int {
        guard start < bytes.count else { throw JSONBodyError("the body ends where a value was expected") }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            var index = start + 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""): return index + 1
                default: index += 1
                }
            }
            throw JSONBodyError("an unterminated string at offset \(start)")
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < maximumDepth else { throw JSONBodyError("nested deeper than \(maximumDepth) levels") }
            let close = bytes[start] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            // Noted in the order containers start (an outer one before those inside it), its end once known.
            let slot = containers?.starts.count ?? 0
            containers?.starts.append(start)
            containers?.ends.append(0)
            var index = start + 1
            var expectsValue = true
            while true {
                skipWhitespace(bytes, &index)
                guard index < bytes.count else { throw JSONBodyError("an unterminated container at offset \(start)") }
                let byte = bytes[index]
                if byte == close {
                    containers?.ends[slot] = index + 1
                    return index + 1
                }
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":") {
                    guard !expectsValue else {
                        throw JSONBodyError("an unexpected '\(UnicodeScalar(byte))' at offset \(index)")
                    }
                    expectsValue = true
                    index += 1
                    continue
                }
                guard expectsValue else { throw JSONBodyError("a missing ',' at offset \(index)") }
                index = try skipValue(bytes, from: index, depth: depth + 1, recording: &containers)
                expectsValue = false
            }
        default:
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"), 0x20, 0x09, 0x0A, 0x0D:
                    guard index > start else { throw JSONBodyError("an unexpected byte at offset \(index)") }
                    return index
                default: index += 1
                }
            }
            guard index > start else { throw JSONBodyError("the body ends where a value was expected") }
            return index
        }
    }
}

/// A body that is not the JSON its API shape describes.
package struct JSONBodyError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
