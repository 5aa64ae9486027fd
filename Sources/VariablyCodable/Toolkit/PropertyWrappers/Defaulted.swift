/// A property of any `Codable` type that takes its provider's value when the key is missing, the
/// value is `null`, or it does not decode; each use is recorded in the decoder's report (and is an
/// error in strict mode), with which of the three happened.
///
/// ```swift
/// struct Settings: Codable {
///     @Defaulted<DefaultZero<Int>> var retries: Int
///     @Defaulted<DefaultEmptyArray<String>> var tags: [String]
/// }
/// ```
@propertyWrapper
public struct Defaulted<Provider: DefaultValueProvider>: Codable {
    /// The decoded or default value.
    public var wrappedValue: Provider.Value

    /// Wraps `wrappedValue`; the provider's value when left out.
    ///
    /// ```swift
    /// let retries = Defaulted<DefaultZero<Int>>()
    /// ```
    public init(wrappedValue: Provider.Value = Provider.defaultValue) {
        self.wrappedValue = wrappedValue
    }

    /// Decodes the value, or uses the default for `null` or an invalid value.
    ///
    /// ```swift
    /// let settings = try JSONDecoder().decode(Settings.self, from: data)
    /// ```
    ///
    /// - Throws: Only in strict mode (see ``DecodingOptions/isStrict``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            try DecodingOptions.record(.defaultUsed(.null), userInfo: decoder.userInfo, codingPath: decoder.codingPath)
            {
                DecodingError.valueNotFound(
                    Provider.Value.self,
                    DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "The value is null."))
            }
            wrappedValue = Provider.defaultValue
            return
        }
        do {
            wrappedValue = try container.decode(Provider.Value.self)
        } catch let error as DecodingError {
            try DecodingOptions.record(
                .defaultUsed(.invalid), userInfo: decoder.userInfo, codingPath: decoder.codingPath, detail: "\(error)"
            ) { error }
            wrappedValue = Provider.defaultValue
        }
    }

    /// Encodes the value as itself.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(settings)
    /// ```
    ///
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try wrappedValue.encode(to: encoder)
    }
}

extension Defaulted: Equatable where Provider.Value: Equatable {}
extension Defaulted: Sendable where Provider.Value: Sendable {}

extension KeyedDecodingContainer {
    /// Decodes a ``Defaulted`` property, using its default when the key is missing: synthesized
    /// `Codable` calls this overload.
    ///
    /// ```swift
    /// let retries = try container.decode(Defaulted<DefaultZero<Int>>.self, forKey: .retries)
    /// ```
    ///
    /// - Throws: Only in strict mode.
    public func decode<Provider>(_ type: Defaulted<Provider>.Type, forKey key: Key) throws -> Defaulted<Provider> {
        guard contains(key) else {
            let path = codingPath + [key]
            let userInfo = (try? superDecoder(forKey: key).userInfo) ?? [:]
            try DecodingOptions.record(.defaultUsed(.missing), userInfo: userInfo, codingPath: path) {
                DecodingError.keyNotFound(
                    key,
                    DecodingError.Context(
                        codingPath: codingPath, debugDescription: "No value for \"\(key.stringValue)\"."))
            }
            return Defaulted()
        }
        return try decode(type, forKey: key, orMissing: ())
    }

    private func decode<Provider>(_ type: Defaulted<Provider>.Type, forKey key: Key, orMissing: Void) throws
        -> Defaulted<Provider>
    {
        try Defaulted(from: superDecoder(forKey: key))
    }
}
