extension CodingUserInfoKey {
    /// The ``CodingSource`` a coder reads or writes; nested key-set models inherit it.
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.userInfo[.codingSource] = CodingSource.remote
    /// ```
    public static let codingSource = CodingUserInfoKey(rawValue: "VariablyCodable.codingSource")!
}
