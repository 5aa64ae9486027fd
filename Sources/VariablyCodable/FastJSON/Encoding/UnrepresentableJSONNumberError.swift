/// A JSON number that the requested Swift type cannot hold: out of range for an integer type, not
/// integral where an integer is expected, or overflowing (underflowing) a floating-point type.
///
/// Foundation's `JSONDecoder` reports these as "The given data was not valid JSON."; ``KeySetJSONDecoder``
/// does the same (a `DecodingError.dataCorrupted` at the top level, or the underlying error of a
/// ``VariablyCodingError`` for a key-set property) and keeps this error as the reason.
///
/// ```swift
/// // [300] as [UInt8]: DecodingError.dataCorrupted, underlying UnrepresentableJSONNumberError(text: "300")
/// let bytes = try? KeySetJSONDecoder(source: .remote).decode([UInt8].self, from: Data("[300]".utf8))
/// ```
public struct UnrepresentableJSONNumberError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The number as written in the document.
    public let text: String

    /// `The JSON number 300 does not fit the requested type.`
    public var description: String { "The JSON number \(text) does not fit the requested type." }
}
