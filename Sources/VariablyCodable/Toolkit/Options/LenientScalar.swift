/// A scalar type that lenient decoding can convert other JSON scalars into, without losing anything.
///
/// | Into | Accepts (besides its own kind) | Refuses |
/// |---|---|---|
/// | integers (`Int`, `Int8` ... `UInt64`) | integral numbers in range (`2.0`), integer strings (`"42"`, `"-7"`) | `1.5`, `"1.5"`, `" 42"`, out of range, Bools |
/// | `Double`, `Float` | integers, numeric strings (`"3.5"`, `"1e3"`) | `"nan"`, `"inf"`, integers beyond 2^53 for `Double`, Bools |
/// | `Bool` | `0`, `1`, strings `true/false/yes/no/1/0` in any letter case | `2`, `"2"`, `"y"`, `1.0` |
/// | `String` | integers (`42` -> `"42"`), floating values (`3.5` -> `"3.5"`), Bools (`"true"`) | arrays, objects |
///
/// ```swift
/// Int.lenientValue(from: "42")       // (42, isCoerced: true)
/// Int.lenientValue(from: 1.5)        // nil: refused, it would truncate
/// Bool.lenientValue(from: "YES")     // (true, isCoerced: true)
/// ```
public protocol LenientScalar: Codable {
    /// The value `raw` converts to exactly, and whether that took a conversion; `nil` if it would lose
    /// information or makes no sense.
    static func lenientValue(from raw: JSONValue) -> (value: Self, isCoerced: Bool)?
}

extension LenientScalar where Self: FixedWidthInteger {
    /// Integers: see the table on ``LenientScalar``.
    ///
    /// ```swift
    /// UInt8.lenientValue(from: "255")   // (255, isCoerced: true)
    /// ```
    public static func lenientValue(from raw: JSONValue) -> (value: Self, isCoerced: Bool)? {
        switch raw {
        case .int(let value): return Self(exactly: value).map { ($0, false) }
        case .bigInteger(let digits): return Self(digits, radix: 10).map { ($0, false) }
        case .double(let value): return Self(exactly: value).map { ($0, true) }
        case .string(let text): return Self(text, radix: 10).map { ($0, true) }
        default: return nil
        }
    }
}

extension Int: LenientScalar {}
extension Int8: LenientScalar {}
extension Int16: LenientScalar {}
extension Int32: LenientScalar {}
extension Int64: LenientScalar {}
extension UInt: LenientScalar {}
extension UInt8: LenientScalar {}
extension UInt16: LenientScalar {}
extension UInt32: LenientScalar {}
extension UInt64: LenientScalar {}

extension Double: LenientScalar {
    /// Floating values: see the table on ``LenientScalar``.
    ///
    /// ```swift
    /// Double.lenientValue(from: "3.5")   // (3.5, isCoerced: true)
    /// ```
    public static func lenientValue(from raw: JSONValue) -> (value: Double, isCoerced: Bool)? {
        switch raw {
        case .double(let value): return (value, false)
        case .int(let value): return Double(exactly: value).map { ($0, false) }
        case .bigInteger: return nil  // beyond Int64, so beyond 2^53: a Double would round it
        case .string(let text):
            guard let value = Double(text), value.isFinite else { return nil }
            return (value, true)
        default: return nil
        }
    }
}

extension Float: LenientScalar {
    /// Floating values: see the table on ``LenientScalar``.
    ///
    /// ```swift
    /// Float.lenientValue(from: "0.5")   // (0.5, isCoerced: true)
    /// ```
    public static func lenientValue(from raw: JSONValue) -> (value: Float, isCoerced: Bool)? {
        guard let (value, isCoerced) = Double.lenientValue(from: raw) else { return nil }
        let narrowed = Float(value)
        return narrowed.isFinite ? (narrowed, isCoerced) : nil
    }
}

extension Bool: LenientScalar {
    /// Bools: see the table on ``LenientScalar``.
    ///
    /// ```swift
    /// Bool.lenientValue(from: 0)        // (false, isCoerced: true)
    /// Bool.lenientValue(from: "2")      // nil
    /// ```
    public static func lenientValue(from raw: JSONValue) -> (value: Bool, isCoerced: Bool)? {
        switch raw {
        case .bool(let value): return (value, false)
        case .int(0): return (false, true)
        case .int(1): return (true, true)
        case .string(let text):
            switch text.lowercased() {
            case "true", "yes", "1": return (true, true)
            case "false", "no", "0": return (false, true)
            default: return nil
            }
        default: return nil
        }
    }
}

extension String: LenientScalar {
    /// Strings: see the table on ``LenientScalar``.
    ///
    /// ```swift
    /// String.lenientValue(from: 42)     // ("42", isCoerced: true)
    /// ```
    public static func lenientValue(from raw: JSONValue) -> (value: String, isCoerced: Bool)? {
        switch raw {
        case .string(let value): return (value, false)
        case .int(let value): return (String(value), true)
        case .bigInteger(let digits): return (digits, true)
        case .bigNumber(let text): return (text, true)
        case .double(let value): return ("\(value)", true)
        case .bool(let value): return (value ? "true" : "false", true)
        default: return nil
        }
    }
}
