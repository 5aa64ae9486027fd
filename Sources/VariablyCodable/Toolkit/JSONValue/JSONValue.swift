/// Any JSON value, with the exact distinctions JSON makes: `true` is a Bool, `1` an integer, `1.5` a
/// floating value, `null` a value of its own, and integers beyond `Int64` keep every digit.
///
/// ```swift
/// let value: JSONValue = ["id": 1, "tags": ["a", "b"], "nickname": nil, "score": 2.5]
/// value["tags"]?[0]            // .string("a")
/// value["id"]?.intValue        // 1
/// value["nickname"]?.isNull    // true
/// ```
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits in `Int64`.
    case int(Int64)
    /// An integer outside `Int64`'s range, kept as its decimal digits (e.g. `"18446744073709551615"`).
    case bigInteger(String)
    /// A number beyond `Double`'s range (it would overflow to infinity or underflow to zero), kept as
    /// its JSON text (e.g. `"1e600"`) so that it is written back unchanged.
    case bigNumber(String)
    /// A floating-point number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; key order is not significant.
    case object([String: JSONValue])
}

// MARK: - Accessors

extension JSONValue {
    /// Whether the value is `null`.
    ///
    /// ```swift
    /// JSONValue.null.isNull   // true
    /// ```
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The Bool, if the value is `true` or `false` (never a number).
    ///
    /// ```swift
    /// JSONValue.bool(true).boolValue   // true
    /// JSONValue.int(1).boolValue       // nil
    /// ```
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The integer, if the value is an integer that fits in `Int`.
    ///
    /// ```swift
    /// JSONValue.int(42).intValue   // 42
    /// ```
    public var intValue: Int? {
        if case .int(let value) = self { return Int(exactly: value) }
        return nil
    }

    /// The number as a `Double`: a floating value, or an integer that converts exactly.
    ///
    /// ```swift
    /// JSONValue.int(2).doubleValue      // 2.0
    /// JSONValue.double(2.5).doubleValue // 2.5
    /// ```
    public var doubleValue: Double? {
        switch self {
        case .double(let value): return value
        case .int(let value): return Double(exactly: value)
        default: return nil
        }
    }

    /// The string, if the value is a string.
    ///
    /// ```swift
    /// JSONValue.string("a").stringValue   // "a"
    /// ```
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements, if the value is an array.
    ///
    /// ```swift
    /// JSONValue.array([1, 2]).arrayValue?.count   // 2
    /// ```
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if the value is an object.
    ///
    /// ```swift
    /// JSONValue.object(["a": 1]).objectValue?["a"]   // .int(1)
    /// ```
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The member named `key`, or `nil` if the value is not an object or has no such member.
    ///
    /// ```swift
    /// let value: JSONValue = ["user": ["name": "Ada"]]
    /// value["user"]?["name"]   // .string("Ada")
    /// ```
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index`, or `nil` if the value is not an array or the index is out of range.
    ///
    /// ```swift
    /// let value: JSONValue = ["a", "b"]
    /// value[1]   // .string("b")
    /// ```
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// A short name of the value's kind, used in messages: `"null"`, `"bool"`, `"integer"`, ...
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .int, .bigInteger: return "integer"
        case .double, .bigNumber: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

// MARK: - Literals

// `ExpressibleByStringInterpolation` uses the standard interpolation and `init(stringLiteral:)`:
// `["n": "\(42)"]` is `.string("42")`.
extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `null`.
    ///
    /// ```swift
    /// let value: JSONValue = nil
    /// ```
    public init(nilLiteral: ()) { self = .null }
    /// A Bool.
    ///
    /// ```swift
    /// let value: JSONValue = true
    /// ```
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer.
    ///
    /// ```swift
    /// let value: JSONValue = 42
    /// ```
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating value.
    ///
    /// ```swift
    /// let value: JSONValue = 2.5
    /// ```
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string.
    ///
    /// ```swift
    /// let value: JSONValue = "Ada"
    /// ```
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    ///
    /// ```swift
    /// let value: JSONValue = [1, "two", nil]
    /// ```
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object; a repeated key keeps its last value.
    ///
    /// ```swift
    /// let value: JSONValue = ["id": 1]
    /// ```
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Text

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text with sorted keys, e.g. `{"a":[1,2.5,null]}`.
    public var description: String { jsonString() }
}
