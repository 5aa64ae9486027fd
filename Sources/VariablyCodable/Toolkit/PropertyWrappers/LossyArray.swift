/// An array property of any `Codable` type that leaves out elements that fail to decode; the others
/// decode normally and each removal is recorded in the decoder's report.
///
/// ```swift
/// struct Feed: Codable {
///     @LossyArray var posts: [Post]     // a malformed post does not lose the whole feed
/// }
/// ```
@propertyWrapper
public struct LossyArray<Element: Codable>: Codable {
    /// The elements that decoded.
    public var wrappedValue: [Element]

    /// Wraps `wrappedValue`.
    ///
    /// ```swift
    /// let posts = LossyArray(wrappedValue: [Post]())
    /// ```
    public init(wrappedValue: [Element]) {
        self.wrappedValue = wrappedValue
    }

    /// Decodes the array, removing failing elements.
    ///
    /// ```swift
    /// let feed = try JSONDecoder().decode(Feed.self, from: data)
    /// ```
    ///
    /// - Throws: `DecodingError` if the value is not an array; in strict mode, a failing element's error.
    public init(from decoder: any Decoder) throws {
        let results = try decoder.singleValueContainer().decode([ElementResult<Element>].self)
        var elements: [Element] = []
        elements.reserveCapacity(results.count)
        for result in results {
            try ElementPolicy.apply(.remove, to: result.result, append: { elements.append($0) }) { event in
                try DecodingOptions.record(
                    event.kind, userInfo: decoder.userInfo, codingPath: event.error.contextCodingPath,
                    detail: "\(event.error)"
                ) { event.error }
            }
        }
        wrappedValue = elements
    }

    /// Encodes the elements.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(feed)
    /// ```
    ///
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try wrappedValue.encode(to: encoder)
    }
}

extension LossyArray: Equatable where Element: Equatable {}
extension LossyArray: Sendable where Element: Sendable {}
