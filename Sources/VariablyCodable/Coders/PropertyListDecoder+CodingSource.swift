public import Foundation

extension PropertyListDecoder {
    /// Creates a decoder that reads key-set models in `source`.
    public convenience init(source: CodingSource) {
        self.init()
        userInfo[.codingSource] = source
    }

    /// Decodes `type` from a property list with the keys of `source`, leaving this decoder unchanged.
    ///
    /// ```swift
    /// let user = try PropertyListDecoder().decode(User.self, from: data, source: .local)
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` for a key-set model, else the decoder's errors.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, source: CodingSource) throws -> T {
        let copy = PropertyListDecoder()
        copy.userInfo = userInfo
        copy.userInfo[.codingSource] = source
        return try copy.decode(type, from: data)
    }
}
