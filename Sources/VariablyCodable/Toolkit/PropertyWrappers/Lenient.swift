/// A property that decodes leniently in any `Codable` type: `"42"` as an `Int`, `"yes"` as a `Bool`
/// (see ``LenientScalar``); lossy conversions still fail.
///
/// ```swift
/// struct Product: Codable {
///     @Lenient var stock: Int        // accepts 12 and "12"
///     @Lenient var isActive: Bool    // accepts true, 1 and "yes"
/// }
/// ```
@propertyWrapper
public struct Lenient<Value: LenientScalar>: Codable {
    /// The decoded value.
    public var wrappedValue: Value

    /// Wraps `wrappedValue`.
    ///
    /// ```swift
    /// let stock = Lenient(wrappedValue: 12)
    /// ```
    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    /// Decodes a scalar of any kind and converts it exactly, recording a coercion in the decoder's report.
    ///
    /// ```swift
    /// let product = try JSONDecoder().decode(Product.self, from: data)
    /// ```
    ///
    /// - Throws: `DecodingError.typeMismatch` if the value cannot be converted without loss.
    public init(from decoder: any Decoder) throws {
        let raw = try JSONValue.decodeScalar(from: decoder.singleValueContainer())
        guard let (value, isCoerced) = Value.lenientValue(from: raw) else {
            throw DecodingError.typeMismatch(
                Value.self,
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "Cannot convert \(raw.kindName) \(raw) to \(Value.self) without loss."))
        }
        if isCoerced {
            try DecodingOptions.record(
                .coerced(from: "\(raw.kindName) \(raw)", to: "\(Value.self)"), userInfo: decoder.userInfo,
                codingPath: decoder.codingPath
            ) {
                DecodingError.typeMismatch(
                    Value.self,
                    DecodingError.Context(
                        codingPath: decoder.codingPath,
                        debugDescription: "Strict mode: refused to coerce \(raw.kindName) \(raw) to \(Value.self)."))
            }
        }
        wrappedValue = value
    }

    /// Encodes the value as itself.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(product)
    /// ```
    ///
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try wrappedValue.encode(to: encoder)
    }
}

extension Lenient: Equatable where Value: Equatable {}
extension Lenient: Hashable where Value: Hashable {}
extension Lenient: Sendable where Value: Sendable {}
