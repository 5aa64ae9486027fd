/// Collects the ``Key`` lines of a ``KeySet``.
@resultBuilder
public enum KeySetBuilder<Model> {
    public static func buildExpression(_ key: Key<Model>) -> [Key<Model>] { [key] }
    public static func buildBlock(_ parts: [Key<Model>]...) -> [Key<Model>] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [Key<Model>]?) -> [Key<Model>] { part ?? [] }
    public static func buildEither(first part: [Key<Model>]) -> [Key<Model>] { part }
    public static func buildEither(second part: [Key<Model>]) -> [Key<Model>] { part }
    public static func buildArray(_ parts: [[Key<Model>]]) -> [Key<Model>] { parts.flatMap { $0 } }
}

/// Collects the ``KeySet`` declarations of ``KeySets``.
@resultBuilder
public enum KeySetsBuilder<Model> {
    public static func buildExpression(_ keySet: KeySet<Model>) -> [KeySet<Model>] { [keySet] }
    public static func buildBlock(_ parts: [KeySet<Model>]...) -> [KeySet<Model>] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [KeySet<Model>]?) -> [KeySet<Model>] { part ?? [] }
    public static func buildEither(first part: [KeySet<Model>]) -> [KeySet<Model>] { part }
    public static func buildEither(second part: [KeySet<Model>]) -> [KeySet<Model>] { part }
    public static func buildArray(_ parts: [[KeySet<Model>]]) -> [KeySet<Model>] { parts.flatMap { $0 } }
}
