public import Foundation

extension PropertyListDecoder {
    /// Decodes `type` from a property list with the keys of `source`, leaving this decoder unchanged.
    /// This is the package's one way to read a property list: there is no `PropertyListDecoder(source:)`,
    /// whose `decode(_:from:)` would be Foundation's, unchecked.
    ///
    /// ```swift
    /// let user = try PropertyListDecoder().decode(User.self, from: data, source: .local)
    /// ```
    ///
    /// The structure is checked before Foundation reads it, so a damaged or hostile file (a binary
    /// property list whose offsets, lengths or references are inconsistent, or that nests or expands
    /// without bound; an XML one nested deeper than 512 levels) is an error instead of a crash.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for such a file; ``VariablyCodingError`` for a key-set
    ///   model, else the decoder's errors.
    /// - Complexity: O(n) in the size of `data` for the check, then Foundation's decoding.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, source: CodingSource) throws -> T {
        try XMLPropertyListCheck.validate(data)
        try BinaryPropertyListCheck.validate(data)
        let copy = PropertyListDecoder()
        copy.userInfo = userInfo
        copy.userInfo[.codingSource] = source
        return try copy.decode(type, from: data)
    }
}
