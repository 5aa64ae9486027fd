/// Lenient conversion of one raw value to a type known only at run time: a ``LenientScalar``, or an
/// enum whose raw value is one (`"1"` becomes the case whose raw value is `1`).
enum LenientValue {
    /// Whether lenient decoding can convert into `type`.
    static func isScalar(_ type: Any.Type) -> Bool {
        if type is any LenientScalar.Type { return true }
        guard let enumType = type as? any RawRepresentable.Type else { return false }
        return hasLenientRawValue(enumType)
    }

    /// `raw` converted exactly to `type`, and whether that took a conversion; `nil` if it cannot be.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when `raw` converts to the raw value of an enum that has
    ///   no case for it, as the enum's own decoding does, so that an unknown-case fallback still applies.
    static func convert(_ raw: JSONValue, to type: Any.Type, codingPath: [any CodingKey]) throws
        -> (value: Any, isCoerced: Bool)?
    {
        if let scalar = type as? any LenientScalar.Type {
            return scalar.lenientValue(from: raw).map { ($0.value, $0.isCoerced) }
        }
        guard let enumType = type as? any RawRepresentable.Type else { return nil }
        return try enumCase(enumType, from: raw, codingPath: codingPath)
    }

    private static func hasLenientRawValue<Enum: RawRepresentable>(_ type: Enum.Type) -> Bool {
        Enum.RawValue.self is any LenientScalar.Type
    }

    private static func enumCase<Enum: RawRepresentable>(
        _ type: Enum.Type, from raw: JSONValue, codingPath: [any CodingKey]
    ) throws -> (value: Any, isCoerced: Bool)? {
        guard let scalar = Enum.RawValue.self as? any LenientScalar.Type,
            let (converted, isCoerced) = scalar.lenientValue(from: raw), let rawValue = converted as? Enum.RawValue
        else { return nil }
        guard let value = Enum(rawValue: rawValue) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "Cannot initialize \(Enum.self) from invalid value \(rawValue)"))
        }
        return (value, isCoerced)
    }
}
