/// Supplies the value a ``Defaulted`` property takes when its key is missing, `null` or invalid.
///
/// ```swift
/// enum DefaultRetries: DefaultValueProvider {
///     static let defaultValue = 3
/// }
/// ```
public protocol DefaultValueProvider {
    /// The type of the value.
    associatedtype Value: Codable
    /// The value used instead of a missing, null or invalid one.
    static var defaultValue: Value { get }
}

/// `0` (or `0.0`).
///
/// ```swift
/// @Defaulted<DefaultZero<Int>> var retries: Int
/// ```
public enum DefaultZero<Value: Codable & Numeric>: DefaultValueProvider {
    /// `0`.
    public static var defaultValue: Value { 0 }
}

/// `false`.
///
/// ```swift
/// @Defaulted<DefaultFalse> var isBeta: Bool
/// ```
public enum DefaultFalse: DefaultValueProvider {
    /// `false`.
    public static var defaultValue: Bool { false }
}

/// An empty string.
///
/// ```swift
/// @Defaulted<DefaultEmptyString> var note: String
/// ```
public enum DefaultEmptyString: DefaultValueProvider {
    /// `""`.
    public static var defaultValue: String { "" }
}

/// An empty array.
///
/// ```swift
/// @Defaulted<DefaultEmptyArray<String>> var tags: [String]
/// ```
public enum DefaultEmptyArray<Element: Codable>: DefaultValueProvider {
    /// `[]`.
    public static var defaultValue: [Element] { [] }
}
