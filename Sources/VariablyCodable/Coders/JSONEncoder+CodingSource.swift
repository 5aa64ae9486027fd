public import Foundation

extension JSONEncoder {
    /// Creates an encoder that writes key-set models in `source`.
    ///
    /// ```swift
    /// let encoder = JSONEncoder(source: .local)
    /// let data = try encoder.encode(users)
    /// ```
    public convenience init(source: CodingSource) {
        self.init()
        userInfo[.codingSource] = source
    }

    /// Encodes `value` with the keys of `source`, leaving this encoder unchanged.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(user, source: .local)
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` for a key-set model, else the encoder's errors.
    public func encode<T: Encodable>(_ value: T, source: CodingSource) throws -> Data {
        let copy = JSONEncoder()
        copy.outputFormatting = outputFormatting
        copy.dateEncodingStrategy = dateEncodingStrategy
        copy.dataEncodingStrategy = dataEncodingStrategy
        copy.nonConformingFloatEncodingStrategy = nonConformingFloatEncodingStrategy
        copy.keyEncodingStrategy = keyEncodingStrategy
        copy.userInfo = userInfo
        copy.userInfo[.codingSource] = source
        return try copy.encode(value)
    }
}
