public import Foundation

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

    // The common scalars, without generic dispatch: a ``DecodingContainer`` specialized for the model
    // calls these for `String`, `Int`, `Int64`, `Double`, `Bool`, `Date` and `[String]` properties. A backend that
    // reads them faster than through ``decode(_:entry:)`` implements them; the defaults call it.

    /// ``decode(_:entry:)`` for a `String`.
    func decodeString(entry index: Int) throws -> String
    /// ``decode(_:entry:)`` for an `Int`.
    func decodeInt(entry index: Int) throws -> Int
    /// ``decode(_:entry:)`` for an `Int64`.
    func decodeInt64(entry index: Int) throws -> Int64
    /// ``decode(_:entry:)`` for a `Double`.
    func decodeDouble(entry index: Int) throws -> Double
    /// ``decode(_:entry:)`` for a `Bool`.
    func decodeBool(entry index: Int) throws -> Bool
    /// ``decode(_:entry:)`` for a `Date`.
    func decodeDate(entry index: Int) throws -> Date
    /// ``decode(_:entry:)`` for a `[String]`.
    func decodeStrings(entry index: Int) throws -> [String]
}

extension KeySetDecodingBackend {
    @usableFromInline package func decodeString(entry index: Int) throws -> String {
        try decode(String.self, entry: index)
    }
    @usableFromInline package func decodeInt(entry index: Int) throws -> Int { try decode(Int.self, entry: index) }
    @usableFromInline package func decodeInt64(entry index: Int) throws -> Int64 {
        try decode(Int64.self, entry: index)
    }
    @usableFromInline package func decodeDouble(entry index: Int) throws -> Double {
        try decode(Double.self, entry: index)
    }
    @usableFromInline package func decodeBool(entry index: Int) throws -> Bool { try decode(Bool.self, entry: index) }
    @usableFromInline package func decodeDate(entry index: Int) throws -> Date { try decode(Date.self, entry: index) }
    @usableFromInline package func decodeStrings(entry index: Int) throws -> [String] {
        try decode([String].self, entry: index)
    }
}

extension KeySetDecodingBackend {
    /// No detail: a flat storage (a SQLite row) has no parents of the wrong kind.
    ///
    /// ```swift
    /// backend.absenceDetail(entry: 0)   // nil
    /// ```
    package func absenceDetail(entry index: Int) -> String? { nil }
}
