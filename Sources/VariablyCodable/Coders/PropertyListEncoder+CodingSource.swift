public import Foundation

extension PropertyListEncoder {
    /// Creates an encoder that writes key-set models in `source`.
    public convenience init(source: CodingSource) {
        self.init()
        userInfo[.codingSource] = source
    }

    /// Encodes `value` as a property list with the keys of `source`, leaving this encoder unchanged.
    ///
    /// ```swift
    /// let data = try PropertyListEncoder().encode(user, source: .local)
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` for a key-set model, else the encoder's errors.
    public func encode<T: Encodable>(_ value: T, source: CodingSource) throws -> Data {
        let copy = PropertyListEncoder()
        copy.outputFormat = outputFormat
        copy.userInfo = userInfo
        copy.userInfo[.codingSource] = source
        return try copy.encode(value)
    }
}
