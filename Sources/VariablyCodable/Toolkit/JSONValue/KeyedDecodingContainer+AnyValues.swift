import Foundation

extension KeyedDecodingContainer {
    /// Decodes an object as `[String: Any]`, with the exact kinds of ``JSONValue/anyValue``.
    ///
    /// ```swift
    /// let metadata = try container.decode([String: Any].self, forKey: .metadata)
    /// ```
    ///
    /// - Throws: `DecodingError` if the key is missing or the value is not an object.
    public func decode(_ type: [String: Any].Type, forKey key: Key) throws -> [String: Any] {
        let value = try decode(JSONValue.self, forKey: key)
        guard case .object(let members) = value else {
            throw DecodingError.typeMismatch(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [key], debugDescription: "Expected an object, found \(value.kindName)."))
        }
        return members.mapValues(\.anyValue)
    }

    /// Decodes an object as `[String: Any]`, or returns `nil` if the key is missing or `null`.
    ///
    /// ```swift
    /// let extra = try container.decodeIfPresent([String: Any].self, forKey: .extra)
    /// ```
    ///
    /// - Throws: `DecodingError` if the value is not an object.
    public func decodeIfPresent(_ type: [String: Any].Type, forKey key: Key) throws -> [String: Any]? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decode(type, forKey: key)
    }

    /// Decodes an array as `[Any]`, with the exact kinds of ``JSONValue/anyValue``.
    ///
    /// ```swift
    /// let items = try container.decode([Any].self, forKey: .items)
    /// ```
    ///
    /// - Throws: `DecodingError` if the key is missing or the value is not an array.
    public func decode(_ type: [Any].Type, forKey key: Key) throws -> [Any] {
        let value = try decode(JSONValue.self, forKey: key)
        guard case .array(let elements) = value else {
            throw DecodingError.typeMismatch(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [key], debugDescription: "Expected an array, found \(value.kindName)."))
        }
        return elements.map(\.anyValue)
    }

    /// Decodes an array as `[Any]`, or returns `nil` if the key is missing or `null`.
    ///
    /// ```swift
    /// let items = try container.decodeIfPresent([Any].self, forKey: .items)
    /// ```
    ///
    /// - Throws: `DecodingError` if the value is not an array.
    public func decodeIfPresent(_ type: [Any].Type, forKey key: Key) throws -> [Any]? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decode(type, forKey: key)
    }
}

extension KeyedEncodingContainer {
    /// Encodes a `[String: Any]` as a JSON object.
    ///
    /// ```swift
    /// try container.encode(["id": 1, "tags": ["a"]] as [String: Any], forKey: .metadata)
    /// ```
    ///
    /// - Throws: `EncodingError.invalidValue` if a value is not JSON-compatible.
    public mutating func encode(_ value: [String: Any], forKey key: Key) throws {
        try encode(JSONValue.converting(value, codingPath: codingPath + [key]), forKey: key)
    }

    /// Encodes an `[Any]` as a JSON array.
    ///
    /// ```swift
    /// try container.encode([1, "two", NSNull()] as [Any], forKey: .items)
    /// ```
    ///
    /// - Throws: `EncodingError.invalidValue` if a value is not JSON-compatible.
    public mutating func encode(_ value: [Any], forKey key: Key) throws {
        try encode(JSONValue.converting(value, codingPath: codingPath + [key]), forKey: key)
    }
}
