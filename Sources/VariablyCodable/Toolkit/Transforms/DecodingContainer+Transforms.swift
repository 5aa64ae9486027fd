// Properties whose type is not `Decodable`: their key's transform reads them.

extension DecodingContainer {
    /// Decodes a required property whose type is not `Decodable` (a tuple, a plain struct) through
    /// its key's transform.
    ///
    /// ```swift
    /// location = try container.decode(\.location)     // Key(\.location, "loc", transform: .pair)
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` if no key is present, the value is `null`, the transform
    ///   refuses it, or this source's key gives the property no transform.
    public func decode<Value>(_ keyPath: KeyPath<Model, Value>) throws -> Value {
        try decodeTransformed(Value.self, entry: keySet.requireIndex(of: keyPath), isRequired: true)!
    }

    /// Decodes an optional property whose wrapped type is not `Decodable` through its key's transform:
    /// `nil` when no key is present or the value is `null`.
    ///
    /// ```swift
    /// home = try container.decode(\.home)             // (Double, Double)?
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` if the transform refuses the value.
    public func decode<Wrapped>(_ keyPath: KeyPath<Model, Wrapped?>) throws -> Wrapped? {
        try decodeTransformed(Wrapped.self, entry: keySet.requireIndex(of: keyPath), isRequired: false)
    }

    /// Decodes entry `index` through its transform, with the key's other options.
    func decodeTransformed<Value>(_ type: Value.Type, entry index: Int, isRequired: Bool) throws -> Value? {
        let entry = keySet.entries[index]
        do {
            return try decodeWithOptions(Value.self, entry: entry, index: index, isRequired: isRequired)
        } catch {
            throw wrap(error, entry: index)
        }
    }
}
