// MARK: - Type-inferring helpers

extension KeyedDecodingContainer {
    /// Decodes the value for `key`, its type inferred from the context.
    ///
    /// ```swift
    /// let container = try decoder.container(keyedBy: AnyCodingKey.self)
    /// let age: Int = try container.decode("age")
    /// ```
    ///
    /// - Throws: `DecodingError` if the key is missing, `null` or of another type.
    public func decode<Value: Decodable>(_ key: Key) throws -> Value {
        try decode(Value.self, forKey: key)
    }

    /// Decodes the value for `key`, or `nil` if it is missing or `null`; its type inferred.
    ///
    /// ```swift
    /// let nickname: String? = try container.decodeIfPresent("nickname")
    /// ```
    ///
    /// - Throws: `DecodingError` if the value has another type.
    public func decodeIfPresent<Value: Decodable>(_ key: Key) throws -> Value? {
        try decodeIfPresent(Value.self, forKey: key)
    }

    /// Decodes the value for `key`, or `defaultValue` if it is missing or `null`.
    ///
    /// ```swift
    /// let retries = try container.decode("retries", default: 3)
    /// ```
    ///
    /// - Throws: `DecodingError` if the value has another type.
    public func decode<Value: Decodable>(_ key: Key, default defaultValue: @autoclosure () -> Value) throws -> Value {
        try decodeIfPresent(Value.self, forKey: key) ?? defaultValue()
    }

    /// Decodes the stored value for `key` and converts it with `transform`.
    ///
    /// ```swift
    /// let tags = try container.decode("tags", using: .commaSeparated)
    /// ```
    ///
    /// - Throws: `DecodingError` from the container, or what the transform throws.
    public func decode<Value, Encoded: Decodable>(_ key: Key, using transform: ValueTransform<Value, Encoded>) throws
        -> Value
    {
        try transform.decode(decode(Encoded.self, forKey: key))
    }

    /// Decodes an array, applying `policy` to elements that fail (the others decode normally).
    ///
    /// ```swift
    /// let ids = try container.decode([Int].self, forKey: "ids", elements: .remove)
    /// ```
    ///
    /// - Throws: `DecodingError` if the value is not an array, or an element's error under `.fail`.
    public func decode<Element: Decodable>(_ type: [Element].Type, forKey key: Key, elements policy: ElementPolicy)
        throws -> [Element]
    {
        let results = try decode([ElementResult<Element>].self, forKey: key)
        var elements: [Element] = []
        elements.reserveCapacity(results.count)
        for result in results {
            try ElementPolicy.apply(policy, to: result.result, append: { elements.append($0) }, onEvent: { _ in })
        }
        return elements
    }
}

extension KeyedEncodingContainer {
    /// Encodes `value` for `key` after converting it with `transform`.
    ///
    /// ```swift
    /// try container.encode(tags, forKey: "tags", using: .commaSeparated)
    /// ```
    ///
    /// - Throws: What the transform or the container throws.
    public mutating func encode<Value, Encoded: Encodable>(
        _ value: Value, forKey key: Key, using transform: ValueTransform<Value, Encoded>
    ) throws {
        try encode(transform.encode(value), forKey: key)
    }
}
