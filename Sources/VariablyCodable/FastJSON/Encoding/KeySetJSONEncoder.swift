public import Foundation

/// Encodes key-set models to JSON without going through `JSONEncoder`'s containers, writing the same
/// JSON as `JSONEncoder(source:)` with its default settings, with object keys in key-set order.
///
/// Models, arrays of models and the common value types (strings, integers, floating-point values,
/// `Bool`, `Date` as seconds since 2001, `[String]`) are written directly; any other value (a plain
/// `Encodable`, a dictionary, `Data`, `URL`) is written by a `JSONEncoder` with the same `userInfo`.
///
/// ```swift
/// let data = try KeySetJSONEncoder(source: .remote).encode(users)
/// ```
public struct KeySetJSONEncoder: Sendable {
    /// The source whose key sets models encode with; `nil` uses each model's default source.
    ///
    /// ```swift
    /// var encoder = KeySetJSONEncoder()
    /// encoder.source = .local
    /// ```
    public var source: CodingSource?
    /// Context for `Encodable` types, as `JSONEncoder.userInfo`; ``source`` is added as `.codingSource`.
    ///
    /// ```swift
    /// encoder.userInfo[.tenant] = "acme"
    /// ```
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates an encoder for the key sets of `source`.
    ///
    /// ```swift
    /// let encoder = KeySetJSONEncoder(source: .remote)
    /// ```
    ///
    /// - Parameters:
    ///   - source: The source to encode; `nil` uses each model's default source.
    ///   - userInfo: Context for `Encodable` types.
    public init(source: CodingSource? = nil, userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.source = source
        self.userInfo = userInfo
    }

    /// Encodes `value` as compact JSON, formatted as `JSONEncoder(source:)` formats it.
    ///
    /// ```swift
    /// let data = try KeySetJSONEncoder(source: .remote).encode([user])
    /// ```
    ///
    /// - Throws: ``VariablyCodingError`` for a model's property that fails to encode, else what
    ///   `JSONEncoder` throws (for example for a non-finite `Double`).
    /// - Complexity: O(*n*) in the size of the output.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        var info: [CodingUserInfoKey: any Sendable] = userInfo
        if let source { info[.codingSource] = source }
        let writer = JSONWriter(userInfo: info)
        try writer.write(value, codingPath: [])
        return Data(writer.bytes)
    }
}
