/// A `Predicate` or `SortDescriptor` that cannot be turned into SQL, naming the expression.
///
/// Nothing is evaluated in memory unless the caller asks for it with
/// ``UntranslatablePolicy/evaluateInMemory``.
///
/// ```swift
/// do {
///     _ = try db.read { try $0.fetch(User.self, where: #Predicate { $0.userName.count > 3 }) }
/// } catch let error as QueryTranslationError {
///     print(error)   // Cannot translate ... to SQL: ...
/// }
/// ```
public struct QueryTranslationError: Error, CustomStringConvertible, Sendable {
    /// The expression, as its Swift type (a `PredicateExpressions` type) or key path.
    public let expression: String
    /// Why it cannot be translated.
    public let reason: String

    public var description: String {
        "Cannot translate \(expression) to SQL: \(reason)"
    }
}

/// What a query does with a predicate or sort descriptor it cannot translate to SQL.
public enum UntranslatablePolicy: Sendable {
    /// Throw ``QueryTranslationError`` (the default): no silent full scan.
    case throwError
    /// Fetch every row and filter, sort and page in memory, with `Predicate.evaluate`.
    case evaluateInMemory
}
