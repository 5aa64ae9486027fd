/// The unkeyed container of ``JSONTapeDecoder``: an array's elements in order, with the at-end and
/// `null` rules of Foundation's `JSONDecoder`.
struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    private let session: JSONDecodingSession
    private let node: CodingPathNode?
    /// The tape index of the next element.
    private var element: Int
    let count: Int?
    private(set) var currentIndex = 0

    init(session: JSONDecodingSession, array: Int, node: CodingPathNode?) {
        self.session = session
        self.node = node
        element = array + 1
        count = session.document[array].length
    }

    var codingPath: [any CodingKey] { CodingPathNode.path(of: node) }
    var isAtEnd: Bool { currentIndex >= count! }

    private var path: ValuePath { ValuePath(node, .index(currentIndex)) }

    /// The tape index of the next element.
    ///
    /// - Throws: `DecodingError.valueNotFound` at the end of the array.
    private func next(_ type: Any.Type, message: String = "Unkeyed container is at end.") throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, DecodingError.Context(codingPath: path.codingPath, debugDescription: message))
        }
        return element
    }

    private mutating func advance() {
        element = session.document.next(after: element)
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool {
        let index = try next(Never.self)
        guard session.document[index].kindBits == JSONKind.null.rawValue else { return false }
        advance()
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try session.decodeValue(T.self, at: next(T.self), path: path)
        advance()
        return value
    }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        // As Foundation: at the end, `nil` (and the index still moves on).
        guard !isAtEnd else {
            currentIndex += 1
            return nil
        }
        let value: T? =
            session.document[element].kindBits == JSONKind.null.rawValue
            ? nil : try session.decodeValue(T.self, at: element, path: path)
        advance()
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let value = try session.bool(at: next(Bool.self), path: path)
        advance()
        return value
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let value = try session.string(at: next(String.self), path: path)
        advance()
        return value
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let value = try session.double(at: next(Double.self), path: path)
        advance()
        return value
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        let value = try session.float(at: next(Float.self), path: path)
        advance()
        return value
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try integer(Int.self) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(Int8.self) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(Int16.self) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(Int32.self) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(Int64.self) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(UInt.self) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(UInt8.self) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(UInt16.self) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(UInt32.self) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(UInt64.self) }

    private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let value = try session.integer(T.self, at: next(T.self), path: path)
        advance()
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let index = try next(KeyedDecodingContainer<NestedKey>.self)
        let container = try decoder(at: index).container(keyedBy: NestedKey.self)
        advance()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let index = try next(
            (any UnkeyedDecodingContainer).self,
            message: "Cannot get nested unkeyed container -- unkeyed container is at end.")
        let container = try decoder(at: index).unkeyedContainer()
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let index = try next((any Decoder).self, message: "Cannot get superDecoder() -- unkeyed container is at end.")
        let decoder = decoder(at: index)
        advance()
        return decoder
    }

    private func decoder(at index: Int) -> JSONTapeDecoder {
        JSONTapeDecoder(session: session, value: index, path: path.node())
    }
}
