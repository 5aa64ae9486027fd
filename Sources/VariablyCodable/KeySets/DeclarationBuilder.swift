/// Collects declarations written one per line: the ``Key`` lines of a ``KeySet`` and the ``KeySet``
/// declarations of ``KeySets``, with `if`, `if`/`else` and `for` among them.
///
/// ```swift
/// static let keySets = KeySets<Subscriber> {                     // DeclarationBuilder<KeySet<Subscriber>>
///     KeySet(.remote) {                                       // DeclarationBuilder<Key<Subscriber>>
///         Key(\.name, "user_name")
///         if Subscriber.serverSendsEmail { Key(\.email, "email_address") }
///     }
///     for source in Subscriber.cacheSources { KeySet(source, style: .snakeCase) }
/// }
/// ```
@resultBuilder
public enum DeclarationBuilder<Element> {
    public static func buildExpression(_ element: Element) -> [Element] { [element] }
    public static func buildBlock(_ parts: [Element]...) -> [Element] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [Element]?) -> [Element] { part ?? [] }
    public static func buildEither(first part: [Element]) -> [Element] { part }
    public static func buildEither(second part: [Element]) -> [Element] { part }
    public static func buildArray(_ parts: [[Element]]) -> [Element] { parts.flatMap { $0 } }
}
