/// The keyed container of ``JSONTapeDecoder``: an object's members by key, the first of duplicate keys
/// winning, keys compared as Swift strings (as Foundation's `JSONDecoder`).
struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let session: JSONDecodingSession
    private let node: CodingPathNode?
    /// Tape index of each member's value, by key.
    private let members: [String: Int]

    init(session: JSONDecodingSession, object: Int, node: CodingPathNode?) {
        self.session = session
        self.node = node
        let document = session.document
        var members: [String: Int] = [:]
        members.reserveCapacity(document[object].length)
        var key = object + 1
        let end = document[object].end
        while key < end {
            let name = document.string(at: key)
            if members[name] == nil { members[name] = key + 1 }
            key = document.next(after: key + 1)
        }
        self.members = members
    }

    var codingPath: [any CodingKey] { CodingPathNode.path(of: node) }

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func index(of key: Key) throws -> Int {
        guard let index = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return index
    }

    private func path(_ key: Key) -> ValuePath { ValuePath(node, .key(AnyCodingKey(key))) }

    func decodeNil(forKey key: Key) throws -> Bool {
        session.document[try index(of: key)].kindBits == JSONKind.null.rawValue
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try session.decodeValue(T.self, at: index(of: key), path: path(key))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = members[key.stringValue], session.document[index].kindBits != JSONKind.null.rawValue else {
            return nil
        }
        return try session.decodeValue(T.self, at: index, path: path(key))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try session.bool(at: index(of: key), path: path(key))
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try session.string(at: index(of: key), path: path(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try session.double(at: index(of: key), path: path(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try session.float(at: index(of: key), path: path(key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(Int.self, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(Int8.self, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(Int16.self, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(Int32.self, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(Int64.self, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(UInt.self, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(UInt8.self, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(UInt16.self, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(UInt32.self, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(UInt64.self, key) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try session.integer(T.self, at: index(of: key), path: path(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder(at: index(of: key), key: key).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(at: index(of: key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder(at: members["super"] ?? session.document.nullIndex, key: AnyCodingKey("super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder(at: members[key.stringValue] ?? session.document.nullIndex, key: key)
    }

    private func decoder(at index: Int, key: some CodingKey) -> JSONTapeDecoder {
        JSONTapeDecoder(session: session, value: index, path: CodingPathNode(parent: node, key: AnyCodingKey(key)))
    }
}
