/// A standard `Decoder` over one value of a ``JSONDocument``: the path for every type that is not a
/// key-set model or a scalar the session reads directly (plain `Decodable` structs, enums, dictionaries,
/// optionals, sets). It behaves as Foundation's `JSONDecoder` (containers, `null` handling, duplicate keys
/// keep the first, errors and coding paths), and every value it decodes goes back through
/// ``JSONDecodingSession/decodeValue(_:at:path:)``, so key-set models nested in plain types still take
/// the fast path.
final class JSONTapeDecoder: Decoder, SingleValueDecodingContainer {
    let session: JSONDecodingSession
    /// The tape index of the value.
    let value: Int
    let node: CodingPathNode?

    init(session: JSONDecodingSession, value: Int, path node: CodingPathNode?) {
        self.session = session
        self.value = value
        self.node = node
    }

    var codingPath: [any CodingKey] { CodingPathNode.path(of: node) }
    var userInfo: [CodingUserInfoKey: Any] { session.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let entry = session.document[value]
        guard entry.kindBits == JSONKind.object.rawValue else {
            throw session.containerError([String: Any].self, entry: entry, codingPath: codingPath)
        }
        return KeyedDecodingContainer(JSONKeyedContainer<Key>(session: session, object: value, node: node))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let entry = session.document[value]
        guard entry.kindBits == JSONKind.array.rawValue else {
            throw session.containerError([Any].self, entry: entry, codingPath: codingPath)
        }
        return JSONUnkeyedContainer(session: session, array: value, node: node)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: - Single value

    func decodeNil() -> Bool { session.document[value].kindBits == JSONKind.null.rawValue }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try session.decodeValue(T.self, at: value, path: ValuePath(node))
    }

    func decode(_ type: Bool.Type) throws -> Bool { try session.bool(at: value, path: ValuePath(node)) }
    func decode(_ type: String.Type) throws -> String { try session.string(at: value, path: ValuePath(node)) }
    func decode(_ type: Double.Type) throws -> Double { try session.double(at: value, path: ValuePath(node)) }
    func decode(_ type: Float.Type) throws -> Float { try session.float(at: value, path: ValuePath(node)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(UInt64.self) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try session.integer(T.self, at: value, path: ValuePath(node))
    }
}
