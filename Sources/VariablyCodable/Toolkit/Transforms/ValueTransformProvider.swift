/// Names a ``ValueTransform`` as a type, so that a property wrapper can use it.
///
/// ```swift
/// enum CommaSeparatedTags: ValueTransformProvider {
///     static let transform = ValueTransform.commaSeparated
/// }
/// ```
public protocol ValueTransformProvider {
    /// The property's type.
    associatedtype Value
    /// The stored type.
    associatedtype Encoded: Codable
    /// The transform.
    static var transform: ValueTransform<Value, Encoded> { get }
}
