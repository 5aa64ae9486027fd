/// Writes key-set entries into a Foundation encoder's keyed container, creating each nested object
/// once and writing every entry under its first alternative.
final class FoundationEncodingSink: KeySetEncodingSink {
    private var root: KeyedEncodingContainer<AnyCodingKey>
    private var nested: [KeyedEncodingContainer<AnyCodingKey>?]
    private let layout: KeySetLayout

    /// The server's date forms, for the dates of a top-level record.
    private let serverDates: ServerDateFormats?

    init(root: KeyedEncodingContainer<AnyCodingKey>, layout: KeySetLayout, serverDates: ServerDateFormats? = nil) {
        self.root = root
        self.layout = layout
        self.serverDates = serverDates
        self.nested = layout.containers.isEmpty ? [] : Array(repeating: nil, count: layout.containers.count)
    }

    func encode<Value: Encodable>(_ value: Value, at index: Int) throws {
        if let key = layout.directKeys[index] {
            try root.encodeScalarAware(value, forKey: key)
            return
        }
        let path = layout.paths[index][0]
        guard let id = path.container else {
            try root.encodeScalarAware(value, forKey: path.leaf)
            return
        }
        var container = container(id)
        try container.encodeScalarAware(value, forKey: path.leaf)
    }

    func serverDateFormat(at index: Int) -> ServerDateFormat? {
        serverDates?.format(at: layout.paths[index][0])
    }

    func encodeNil(at index: Int) throws {
        // Like synthesized Codable, an optional holding nil writes no key at all.
    }

    /// The nested object `id`, created on first use. `KeyedEncodingContainer` is a view on the
    /// encoder's storage, so the copy kept here writes to the same object.
    private func container(_ id: Int) -> KeyedEncodingContainer<AnyCodingKey> {
        if let container = nested[id] { return container }
        let info = layout.containers[id]
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
