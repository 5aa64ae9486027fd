/// A property of any `Codable` type stored through a ``ValueTransform``, both ways.
///
/// ```swift
/// struct Post: Codable {
///     @Transformed<CommaSeparatedTags> var tags: [String]     // "a,b" <-> ["a", "b"]
/// }
/// ```
@propertyWrapper
public struct Transformed<Provider: ValueTransformProvider>: Codable {
    /// The property's value.
    public var wrappedValue: Provider.Value

    /// Wraps `wrappedValue`.
    ///
    /// ```swift
    /// let tags = Transformed<CommaSeparatedTags>(wrappedValue: ["a"])
    /// ```
    public init(wrappedValue: Provider.Value) {
        self.wrappedValue = wrappedValue
    }

    /// Decodes the stored value and converts it.
    ///
    /// ```swift
    /// let post = try JSONDecoder().decode(Post.self, from: data)
    /// ```
    ///
    /// - Throws: `DecodingError` from the decoder; what the transform throws, as `dataCorrupted` with
    ///   the coding path.
    public init(from decoder: any Decoder) throws {
        let encoded = try decoder.singleValueContainer().decode(Provider.Encoded.self)
        do {
            wrappedValue = try Provider.transform.decode(encoded)
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "\(error)", underlyingError: error))
        }
    }

    /// Converts the value and encodes the result.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(post)
    /// ```
    ///
    /// - Throws: What the transform or the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Provider.transform.encode(wrappedValue))
    }
}

extension Transformed: Equatable where Provider.Value: Equatable {}
extension Transformed: Sendable where Provider.Value: Sendable {}
