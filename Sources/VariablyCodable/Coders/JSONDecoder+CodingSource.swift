public import Foundation

extension JSONDecoder {
    /// Creates a decoder that reads key-set models in `source`.
    ///
    /// ```swift
    /// let decoder = JSONDecoder(source: .remote)
    /// let users = try decoder.decode([User].self, from: data)
    /// ```
    public convenience init(source: CodingSource) {
        self.init()
        userInfo[.codingSource] = source
    }

    /// Decodes `type` from `data` with the keys of `source`, leaving this decoder unchanged.
    ///
    /// ```swift
    /// let user = try JSONDecoder().decode(User.self, from: data, source: .remote)
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` for a key-set model, else the decoder's errors.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, source: CodingSource) throws -> T {
        try copy(source: source).decode(type, from: data)
    }

    /// A decoder with this one's settings that reads `source`; this one may be shared across threads.
    private func copy(source: CodingSource) -> JSONDecoder {
        let copy = JSONDecoder()
        copy.dateDecodingStrategy = dateDecodingStrategy
        copy.dataDecodingStrategy = dataDecodingStrategy
        copy.nonConformingFloatDecodingStrategy = nonConformingFloatDecodingStrategy
        copy.keyDecodingStrategy = keyDecodingStrategy
        copy.allowsJSON5 = allowsJSON5
        copy.assumesTopLevelDictionary = assumesTopLevelDictionary
        copy.userInfo = userInfo
        copy.userInfo[.codingSource] = source
        return copy
    }
}
