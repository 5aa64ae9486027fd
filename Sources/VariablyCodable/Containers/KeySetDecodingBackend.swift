/// Reads the values of a key set's entries from some storage: a Foundation decoder's keyed container,
/// a SQLite row, a JSON byte buffer.
///
/// A ``DecodingContainer`` turns key paths into entry indexes and errors into ``VariablyCodingError``;
/// a backend only reads. Implement one to teach key-set models a new storage format.
@usableFromInline package protocol KeySetDecodingBackend: AnyObject {
    /// The coding path of the object being decoded.
    var codingPath: [any CodingKey] { get }
    /// Context passed down from the coder.
    var userInfo: [CodingUserInfoKey: Any] { get }
    /// Whether any key of entry `index` is present (even with `null`).
    func contains(entry index: Int) -> Bool
    /// Decodes entry `index`; throws `DecodingError.keyNotFound` if no key is present.
    func decode<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value
    /// Decodes entry `index`, or returns `nil` if no key is present or the value is `null`.
    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value?
    /// Why entry `index` counts as absent when something was seen on the way to it, e.g. `"data" is a
    /// string, not an object` for a nested key whose parent is not an object; `nil` when nothing was.
    func absenceDetail(entry index: Int) -> String?
}

extension KeySetDecodingBackend {
    /// No detail: a flat storage (a SQLite row) has no parents of the wrong kind.
    ///
    /// ```swift
    /// backend.absenceDetail(entry: 0)   // nil
    /// ```
    package func absenceDetail(entry index: Int) -> String? { nil }
}
