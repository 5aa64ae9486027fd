/// Keys below a ``CodingPathNode`` that are only turned into nodes when needed (an error, a nested
/// decoder), so that decoding a scalar allocates nothing for its path.
enum PathTail {
    case none
    case index(Int)
    case key(AnyCodingKey)
    case keys([String])

    func appended(to node: CodingPathNode?) -> CodingPathNode? {
        switch self {
        case .none: return node
        case .index(let index): return CodingPathNode(parent: node, key: .index(index))
        case .key(let key): return CodingPathNode(parent: node, key: key)
        case .keys(let keys):
            var node = node
            for key in keys { node = CodingPathNode(parent: node, key: AnyCodingKey(key)) }
            return node
        }
    }

    func append(to path: inout [any CodingKey]) {
        switch self {
        case .none: break
        case .index(let index): path.append(AnyCodingKey.index(index))
        case .key(let key): path.append(key)
        case .keys(let keys): path += keys.map { AnyCodingKey($0) as any CodingKey }
        }
    }
}

/// Where a value is: a node, then up to two lazy tails (the object's position in its array, then the
/// key of the value in the object).
struct ValuePath {
    let base: CodingPathNode?
    let baseTail: PathTail
    let tail: PathTail

    init(_ base: CodingPathNode?, _ baseTail: PathTail = .none, _ tail: PathTail = .none) {
        self.base = base
        self.baseTail = baseTail
        self.tail = tail
    }

    static var root: ValuePath { ValuePath(nil) }

    /// The coding path, as an array.
    var codingPath: [any CodingKey] {
        var path = CodingPathNode.path(of: base)
        baseTail.append(to: &path)
        tail.append(to: &path)
        return path
    }

    /// The coding path, as a node (allocates the tails' nodes).
    func node() -> CodingPathNode? {
        tail.appended(to: baseTail.appended(to: base))
    }
}
