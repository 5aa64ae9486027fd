/// A property of a model could not be turned into a column value (a `UInt64` above `Int64.max`,
/// a `Double.nan` in a `[Double]`, a nested value whose `encode(to:)` throws).
///
/// ```swift
/// do {
///     try db.write { try $0.insert(model) }
/// } catch let error as RecordEncodingError {
///     print(error.keyPath, error.column, error.underlyingError)
/// }
/// ```
public struct RecordEncodingError: Error, CustomStringConvertible {
    /// The model's type name.
    public let modelType: String
    /// The property's key path, e.g. `\User.score`.
    public let keyPath: String
    /// The column.
    public let column: String
    /// The `EncodingError` or other error thrown while encoding the value.
    public let underlyingError: any Error

    public var description: String {
        "\(keyPath) (column \(SQL.quote(column))) of \(modelType) could not be encoded: \(underlyingError)"
    }
}
