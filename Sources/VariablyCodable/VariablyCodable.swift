/// A type that declares its keys once per ``CodingSource``.
///
/// ```swift
/// extension User: KeySetDescribable {
///     static let keySets = KeySets<User> {
///         KeySet(.remote) { Key(\.userName, "user_name") }
///     }
/// }
/// ```
public protocol KeySetDescribable {
    /// The model's key sets, one per source. Declare it as a `static let`, so it is built once.
    static var keySets: KeySets<Self> { get }
}

/// A type that decodes through its key sets, from any `Decoder`, in the source the decoder names.
///
/// Write `init(from container:)` with one line per property, or conform to ``EmptyInitializable`` to
/// have decoding assign every writable key path for you.
///
/// ```swift
/// init(from container: DecodingContainer<User>) throws {
///     id = try container.decode(\.id)
///     userName = try container.decode(\.userName)
///     nickname = try container.decode(\.nickname)       // Optional: nil when missing or null
/// }
/// ```
public protocol VariablyDecodable: KeySetDescribable, Decodable {
    /// Creates the model from a container that reads through the source's key set.
    ///
    /// - Throws: ``VariablyCodingError`` naming the source, the key path and the coding path.
    init(from container: DecodingContainer<Self>) throws
}

/// A type that encodes through its key sets: no code needed, the key paths say what to write.
public protocol VariablyEncodable: KeySetDescribable, Encodable {}

/// A type that decodes and encodes through its key sets.
public typealias VariablyCodable = VariablyDecodable & VariablyEncodable

/// A type with an empty initializer; a ``VariablyDecodable`` model that has one decodes by assigning
/// each of its key paths, so it needs no `init(from:)` at all.
///
/// ```swift
/// struct Settings: VariablyCodable, EmptyInitializable {
///     var theme = "light"
///     var fontSize = 12
///     static let keySets = KeySets<Settings>(defaultSource: .local) {
///         KeySet(.local, style: .snakeCase) { Key(\.theme); Key(\.fontSize) }
///     }
/// }
/// ```
public protocol EmptyInitializable {
    init()
}

// MARK: - Decodable and Encodable through key sets

extension VariablyDecodable {
    /// Decodes the model in the source that `decoder.userInfo[.codingSource]` names, else the default source.
    ///
    /// - Throws: ``VariablyCodingError``.
    public init(from decoder: any Decoder) throws {
        try self.init(from: DecodingContainer(decoder: decoder, keySets: Self.keySets))
    }
}

extension VariablyDecodable where Self: EmptyInitializable {
    /// Decodes every key of the source by assigning it through its writable key path.
    ///
    /// - Throws: ``VariablyCodingError`` for the first property that fails.
    public init(from container: DecodingContainer<Self>) throws {
        self.init()
        try container.decodeAll(into: &self)
    }
}

extension VariablyEncodable {
    /// Encodes every key of the source, in key-set order, under the source's names.
    ///
    /// - Throws: ``VariablyCodingError`` naming the property whose value failed to encode.
    public func encode(to encoder: any Encoder) throws {
        try Self.keySets.encode(self, to: encoder)
    }
}

extension KeySetDescribable {
    /// The source named in `userInfo`, else the default, with its key set.
    static func keySet(
        for userInfo: [CodingUserInfoKey: Any], codingPath: @autoclosure () -> [any CodingKey]
    ) throws -> (CodingSource, KeySet<Self>) {
        try keySets.keySet(for: userInfo, codingPath: codingPath())
    }
}
