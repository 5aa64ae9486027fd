/// One step of a coding path, linked to its parent, so that nested decoders share their prefix.
final class CodingPathNode {
    let parent: CodingPathNode?
    let key: AnyCodingKey

    init(parent: CodingPathNode?, key: AnyCodingKey) {
        self.parent = parent
        self.key = key
    }

    /// The keys from the top level down to this node.
    var path: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: CodingPathNode? = self
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }

    static func path(of node: CodingPathNode?) -> [any CodingKey] {
        node?.path ?? []
    }
}
