/// Any `Optional`, seen through `Any`: tells an optional property from its type alone, and a `nil`
/// that a transform of the whole optional (`ValueTransform<String?, String>`) returned from a value.
///
/// ```swift
/// valueType is any OptionalProperty.Type              // true for String?
/// (decoded as? any OptionalProperty)?.isNil == true   // a transform read "" as nil
/// ```
protocol OptionalProperty {
    /// Whether this is `nil`.
    var isNil: Bool { get }
}

extension Optional: OptionalProperty {
    var isNil: Bool { self == nil }
}
