public import Foundation

/// A two-way conversion between a property's value and the value stored in a source, composable with
/// ``then(_:)``.
///
/// ```swift
/// Key(\.tags, "tags").transform(.commaSeparated)                  // "a,b,c" <-> ["a", "b", "c"]
/// let cents = ValueTransform<Decimal, Int>(
///     decode: { Decimal($0) / 100 },
///     encode: { NSDecimalNumber(decimal: $0 * 100).intValue })
/// ```
public struct ValueTransform<Value, Encoded>: Sendable {
    private let decodeValue: @Sendable (Encoded) throws -> Value
    private let encodeValue: @Sendable (Value) throws -> Encoded

    /// Creates a transform from its two directions.
    ///
    /// ```swift
    /// let upper = ValueTransform<String, String>(decode: { $0.lowercased() }, encode: { $0.uppercased() })
    /// ```
    ///
    /// - Parameters:
    ///   - decode: Turns the stored value into the property's; throw (e.g. a `DecodingError`) to refuse it.
    ///   - encode: Turns the property's value into the stored one.
    public init(
        decode: @escaping @Sendable (Encoded) throws -> Value, encode: @escaping @Sendable (Value) throws -> Encoded
    ) {
        self.decodeValue = decode
        self.encodeValue = encode
    }

    /// The property's value for a stored value.
    ///
    /// ```swift
    /// try ValueTransform.commaSeparated.decode("a,b")   // ["a", "b"]
    /// ```
    ///
    /// - Throws: What the transform throws.
    public func decode(_ encoded: Encoded) throws -> Value {
        try decodeValue(encoded)
    }

    /// The stored value for a property's value.
    ///
    /// ```swift
    /// try ValueTransform.commaSeparated.encode(["a", "b"])   // "a,b"
    /// ```
    ///
    /// - Throws: What the transform throws.
    public func encode(_ value: Value) throws -> Encoded {
        try encodeValue(value)
    }

    /// This transform followed by `next`: decoding runs `next` first, encoding runs it last.
    ///
    /// ```swift
    /// // "1714566600" <-> 1714566600.0 <-> Date
    /// let stringEpoch = ValueTransform.secondsSince1970.then(.numericString)
    /// ```
    public func then<Outer>(_ next: ValueTransform<Encoded, Outer>) -> ValueTransform<Value, Outer> {
        ValueTransform<Value, Outer>(
            decode: { try self.decode(next.decode($0)) },
            encode: { try next.encode(self.encode($0)) })
    }
}

// MARK: - Common transforms

extension ValueTransform where Value == [String], Encoded == String {
    /// `"a,b,c"` <-> `["a", "b", "c"]`; spaces around elements are trimmed and an empty string is `[]`.
    ///
    /// ```swift
    /// Key(\.tags, "tags").transform(.commaSeparated)
    /// ```
    public static var commaSeparated: ValueTransform<[String], String> {
        ValueTransform(
            decode: { text in
                text.isEmpty
                    ? []
                    : text.split(separator: ",", omittingEmptySubsequences: false).map {
                        $0.trimmingCharacters(in: .whitespaces)
                    }
            },
            encode: { $0.joined(separator: ",") })
    }
}

extension ValueTransform where Value == Date, Encoded == Double {
    /// A `Date` <-> seconds since 1970.
    ///
    /// ```swift
    /// Key(\.updatedAt, "updated").transform(.secondsSince1970)
    /// ```
    public static var secondsSince1970: ValueTransform<Date, Double> {
        ValueTransform(decode: { Date(timeIntervalSince1970: $0) }, encode: { $0.timeIntervalSince1970 })
    }
}

extension ValueTransform where Value == Date, Encoded == Int64 {
    /// A `Date` <-> integer milliseconds since 1970.
    ///
    /// ```swift
    /// Key(\.updatedAt, "updated_ms").transform(.millisecondsSince1970)
    /// ```
    public static var millisecondsSince1970: ValueTransform<Date, Int64> {
        ValueTransform(
            decode: { Date(timeIntervalSince1970: Double($0) / 1000) },
            encode: { Int64(($0.timeIntervalSince1970 * 1000).rounded()) })
    }
}

extension ValueTransform where Encoded == String, Value: LosslessStringConvertible & Sendable {
    /// A number (or any lossless string convertible) <-> its text: `"12.5"` <-> `12.5`.
    ///
    /// ```swift
    /// Key(\.price, "price").transform(.numericString)   // the server sends prices as strings
    /// ```
    public static var numericString: ValueTransform<Value, String> {
        ValueTransform(
            decode: { text in
                guard let value = Value(text) else {
                    throw DecodingError.dataCorrupted(
                        DecodingError.Context(codingPath: [], debugDescription: "\"\(text)\" is not a \(Value.self)."))
                }
                return value
            },
            encode: { $0.description })
    }
}
