import VariablyCodable

/// A JSON document being shaped for a write: objects as their members in order, every other value as
/// its bytes, copied as the record had them (a version's digits are never re-encoded).
indirect enum HTTPWriteBody {
    /// An object's members, in order.
    case object([(key: String, value: HTTPWriteBody)])
    /// Any other value, as its JSON bytes.
    case raw([UInt8])

    /// The value at `range` of `body`.
    init(_ body: JSONBody, _ range: Range<Int>) throws {
        guard let members = try body.members(of: range) else {
            self = .raw(Array(body.bytes[range]))
            return
        }
        var kept: [(key: String, value: HTTPWriteBody)] = []
        for member in members {
            guard case .string(let key) = try body.value(member.key) else { continue }
            kept.append((key, try HTTPWriteBody(body, member.value)))
        }
        self = .object(kept)
    }

    /// `null`.
    static var null: HTTPWriteBody { .raw(Array("null".utf8)) }

    /// Whether the value is `null`.
    var isNull: Bool {
        if case .raw(let bytes) = self { return bytes == Array("null".utf8) }
        return false
    }

    /// The document's JSON bytes.
    var bytes: [UInt8] {
        switch self {
        case .raw(let bytes):
            return bytes
        case .object(let members):
            var out: [UInt8] = [UInt8(ascii: "{")]
            for (position, member) in members.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                out += Array(JSONValue.string(member.key).jsonString().utf8)
                out.append(UInt8(ascii: ":"))
                out += member.value.bytes
            }
            out.append(UInt8(ascii: "}"))
            return out
        }
    }

    /// The value with the members at `removed` left out and, when `only` is not `nil`, only the
    /// members at those paths (and the objects around them): each path is the keys from this value.
    func keeping(only: Set<[String]>?, removing removed: Set<[String]>, at prefix: [String] = []) -> HTTPWriteBody {
        guard case .object(let members) = self else { return self }
        var kept: [(key: String, value: HTTPWriteBody)] = []
        for (key, value) in members {
            let path = prefix + [key]
            if removed.contains(path) { continue }
            let isInside = only.map { paths in paths.contains { path.starts(with: $0) } } ?? true
            if isInside {
                // A kept member: whole, less any removed member inside it.
                let removesInside = removed.contains { $0.count > path.count && $0.starts(with: path) }
                kept.append((key, removesInside ? value.keeping(only: nil, removing: removed, at: path) : value))
            } else if case .object = value, let only,
                only.contains(where: { $0.count > path.count && $0.starts(with: path) })
            {
                kept.append((key, value.keeping(only: only, removing: removed, at: path)))
            }
        }
        return .object(kept)
    }

    /// The value with `null` at `path` where it has nothing, inside objects made for it: a changed
    /// property whose value the record leaves out (a `nil` the encoder omits) is sent as `null`.
    func nullFilled(at path: ArraySlice<String>) -> HTTPWriteBody {
        guard case .object(var members) = self, let key = path.first else { return self }
        guard let index = members.firstIndex(where: { $0.key == key }) else {
            let inner: HTTPWriteBody =
                path.count == 1 ? .null : HTTPWriteBody.object([]).nullFilled(at: path.dropFirst())
            members.append((key, inner))
            return .object(members)
        }
        if path.count > 1 { members[index].value = members[index].value.nullFilled(at: path.dropFirst()) }
        return .object(members)
    }

    /// The value placed at `path` inside objects made for it (itself for the root path).
    func placed(at path: [String]) -> HTTPWriteBody {
        path.reversed().reduce(self) { inner, key in .object([(key, inner)]) }
    }

    /// The value with `constant` at `path`, when the object around it is there. With `collapsing`, an
    /// object around it whose members are all `null` (a relationship with no target) becomes `null`
    /// instead.
    func setting(_ constant: HTTPWriteBody, at path: ArraySlice<String>, collapsing: Bool) -> HTTPWriteBody {
        guard case .object(var members) = self, let key = path.first else { return self }
        if path.count == 1 {
            if collapsing, !members.isEmpty, members.allSatisfy(\.value.isNull) { return .null }
            members.removeAll { $0.key == key }
            members.insert((key, constant), at: 0)
            return .object(members)
        }
        guard let index = members.firstIndex(where: { $0.key == key }) else { return self }
        members[index].value = members[index].value.setting(constant, at: path.dropFirst(), collapsing: collapsing)
        return .object(members)
    }
}
