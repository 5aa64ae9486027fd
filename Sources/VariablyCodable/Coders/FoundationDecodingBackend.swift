/// Reads key-set entries from a Foundation decoder's keyed container (JSON, property lists, or any
/// other `Decoder`), following nested paths and trying alternatives in order.
@usableFromInline
final class FoundationDecodingBackend: KeySetDecodingBackend {
    private enum Slot {
        case unresolved
        case absent
        /// The key holds something other than an object: absent for the paths through it.
        case notAnObject(String)
        case present(KeyedDecodingContainer<AnyCodingKey>)
    }

    @usableFromInline let root: KeyedDecodingContainer<AnyCodingKey>
    /// The layout's ``KeySetLayout/directKeys``, for the inlinable path.
    @usableFromInline let directKeys: [AnyCodingKey?]
    private let layout: KeySetLayout
    private var nested: [Slot]
    @usableFromInline let userInfo: [CodingUserInfoKey: Any]

    init(root: KeyedDecodingContainer<AnyCodingKey>, layout: KeySetLayout, userInfo: [CodingUserInfoKey: Any]) {
        self.root = root
        self.directKeys = layout.directKeys
        self.layout = layout
        self.userInfo = userInfo
        self.nested = layout.containers.isEmpty ? [] : Array(repeating: .unresolved, count: layout.containers.count)
    }

    @usableFromInline var codingPath: [any CodingKey] { root.codingPath }

    /// ``decode(_:entry:)`` inlined into the caller, so that a model's `init(from container:)` reads
    /// a top-level key through the concrete scalar overload, as synthesized Codable does.
    @inlinable @inline(__always)
    func decodeInlined<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value {
        if let key = directKeys[index] { return try root.decodeScalarAware(Value.self, forKey: key) }
        return try decode(Value.self, entry: index)
    }

    /// ``decodeIfPresent(_:entry:)`` inlined into the caller, see ``decodeInlined(_:entry:)``.
    @inlinable @inline(__always)
    func decodeIfPresentInlined<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value? {
        if let key = directKeys[index] { return try root.decodeIfPresentScalarAware(Value.self, forKey: key) }
        return try decodeIfPresent(Value.self, entry: index)
    }

    @usableFromInline func contains(entry index: Int) -> Bool {
        (try? locate(entry: index)) != nil
    }

    @usableFromInline func decode<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value {
        if let key = layout.directKeys[index] {
            // The common case, a single top-level key, costs exactly what synthesized Codable costs.
            return try root.decodeScalarAware(Value.self, forKey: key)
        }
        let paths = layout.paths[index]
        guard let (container, key) = try locate(entry: index) else {
            let first = paths[0]
            let path = root.codingPath + first.components.parents.map { AnyCodingKey($0) as any CodingKey }
            let seen = absenceDetail(entry: index).map { " (\($0))" } ?? ""
            throw DecodingError.keyNotFound(
                first.leaf,
                DecodingError.Context(
                    codingPath: path,
                    debugDescription:
                        "No value for \(paths.map { "\"\($0.components)\"" }.joined(separator: " | "))\(seen)."))
        }
        return try container.decodeScalarAware(Value.self, forKey: key)
    }

    @usableFromInline func decodeIfPresent<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value? {
        if let key = layout.directKeys[index] {
            return try root.decodeIfPresentScalarAware(Value.self, forKey: key)
        }
        guard let (container, key) = try locate(entry: index) else { return nil }
        return try container.decodeIfPresentScalarAware(Value.self, forKey: key)
    }

    /// The container and key of the first alternative present.
    private func locate(entry index: Int) throws -> (KeyedDecodingContainer<AnyCodingKey>, AnyCodingKey)? {
        for path in layout.paths[index] {
            if let container = try container(path.container), container.contains(path.leaf) {
                return (container, path.leaf)
            }
        }
        return nil
    }

    @usableFromInline func absenceDetail(entry index: Int) -> String? {
        guard layout.directKeys[index] == nil else { return nil }
        var seen: [String] = []
        for path in layout.paths[index] {
            var id = path.container
            while let current = id {
                if case .notAnObject(let detail) = nested[current], !seen.contains(detail) { seen.append(detail) }
                id = layout.containers[current].parent
            }
        }
        return seen.isEmpty ? nil : seen.joined(separator: "; ")
    }

    /// The nested object `id`, or `nil` if it (or an object around it) is missing, `null` or holds
    /// something other than an object: that alternative is absent and the next one is tried.
    private func container(_ id: Int?) throws -> KeyedDecodingContainer<AnyCodingKey>? {
        guard let id else { return root }
        switch nested[id] {
        case .present(let container): return container
        case .absent, .notAnObject: return nil
        case .unresolved: break
        }
        let info = layout.containers[id]
        guard let parent = try container(info.parent), parent.contains(info.key),
            try !parent.decodeNil(forKey: info.key)
        else {
            nested[id] = .absent
            return nil
        }
        do {
            let container = try parent.nestedContainer(keyedBy: AnyCodingKey.self, forKey: info.key)
            nested[id] = .present(container)
            return container
        } catch DecodingError.typeMismatch {
            let seen: String
            switch try? parent.decode(JSONValue.self, forKey: info.key) {
            case .bool: seen = "a bool"
            case .int, .bigInteger, .double: seen = "a number"
            case .string: seen = "a string"
            case .array: seen = "an array"
            default: seen = "something else"
            }
            nested[id] = .notAnObject("\"\(info.path.joined(separator: "."))\" is \(seen), not an object")
            return nil
        }
    }
}
