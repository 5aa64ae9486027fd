/// Reads key-set entries from a Foundation decoder's keyed container (JSON, property lists, or any
/// other `Decoder`), following nested paths and trying alternatives in order.
final class FoundationDecodingBackend: KeySetDecodingBackend {
    private enum Slot {
        case unresolved
        case absent
        case present(KeyedDecodingContainer<AnyCodingKey>)
    }

    private let root: KeyedDecodingContainer<AnyCodingKey>
    private let layout: KeySetLayout
    private var nested: [Slot]
    let userInfo: [CodingUserInfoKey: Any]

    init(root: KeyedDecodingContainer<AnyCodingKey>, layout: KeySetLayout, userInfo: [CodingUserInfoKey: Any]) {
        self.root = root
        self.layout = layout
        self.userInfo = userInfo
        self.nested = layout.containers.isEmpty ? [] : Array(repeating: .unresolved, count: layout.containers.count)
    }

    var codingPath: [any CodingKey] { root.codingPath }

    func contains(entry index: Int) -> Bool {
        (try? locate(entry: index)) != nil
    }

    func decode<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value {
        if let key = layout.directKeys[index] {
            // The common case, a single top-level key, costs exactly what synthesized Codable costs.
            return try root.decodeScalarAware(Value.self, forKey: key)
        }
        let paths = layout.paths[index]
        guard let (container, key) = try locate(entry: index) else {
            let first = paths[0]
            let path = root.codingPath + first.components.parents.map { AnyCodingKey($0) as any CodingKey }
            throw DecodingError.keyNotFound(
                first.leaf,
                DecodingError.Context(
                    codingPath: path,
                    debugDescription: "No value for \(paths.map { "\"\($0.components)\"" }.joined(separator: " | "))."))
        }
        return try container.decodeScalarAware(Value.self, forKey: key)
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value? {
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

    /// The nested object `id`, or `nil` if it (or an object around it) is missing or `null`.
    private func container(_ id: Int?) throws -> KeyedDecodingContainer<AnyCodingKey>? {
        guard let id else { return root }
        switch nested[id] {
        case .present(let container): return container
        case .absent: return nil
        case .unresolved: break
        }
        let info = layout.containers[id]
        guard let parent = try container(info.parent), parent.contains(info.key),
            try !parent.decodeNil(forKey: info.key)
        else {
            nested[id] = .absent
            return nil
        }
        let container = try parent.nestedContainer(keyedBy: AnyCodingKey.self, forKey: info.key)
        nested[id] = .present(container)
        return container
    }
}
