/// Writes key-set entries into a Foundation encoder's keyed container, creating each nested object
/// once and writing every entry under its first alternative.
final class FoundationEncodingSink<Model>: KeySetEncodingSink {
    private var root: KeyedEncodingContainer<AnyCodingKey>
    private var nested: [KeyedEncodingContainer<AnyCodingKey>?]
    private let keySet: KeySet<Model>

    init(root: KeyedEncodingContainer<AnyCodingKey>, keySet: KeySet<Model>) {
        self.root = root
        self.keySet = keySet
        self.nested = Array(repeating: nil, count: keySet.containers.count)
    }

    func encode<Value: Encodable>(_ value: Value, at index: Int) throws {
        let path = keySet.entries[index].paths[0]
        guard let id = path.container else {
            try root.encodeScalarAware(value, forKey: path.leaf)
            return
        }
        var container = container(id)
        try container.encodeScalarAware(value, forKey: path.leaf)
    }

    func encodeNil(at index: Int) throws {
        // Like synthesized Codable, an optional holding nil writes no key at all.
    }

    /// The nested object `id`, created on first use. `KeyedEncodingContainer` is a view on the
    /// encoder's storage, so the copy kept here writes to the same object.
    private func container(_ id: Int) -> KeyedEncodingContainer<AnyCodingKey> {
        if let container = nested[id] { return container }
        let info = keySet.containers[id]
        let created: KeyedEncodingContainer<AnyCodingKey>
        if let parent = info.parent {
            var parentContainer = container(parent)
            created = parentContainer.nestedContainer(keyedBy: AnyCodingKey.self, forKey: info.key)
        } else {
            created = root.nestedContainer(keyedBy: AnyCodingKey.self, forKey: info.key)
        }
        nested[id] = created
        return created
    }
}
