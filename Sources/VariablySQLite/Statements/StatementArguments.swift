/// The values bound to a statement's parameters: positional (`?`), named (`:name`), or both.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO t (a, b) VALUES (?, ?)", arguments: [1, "x"])
/// try db.execute(sql: "UPDATE t SET b = :b WHERE a = :a", arguments: ["a": 1, "b": "y"])
/// ```
///
/// Arguments may hold private data: ``SQLiteError`` keeps them reachable but never prints them.
public struct StatementArguments: Hashable, Sendable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// Values for `?` and `?NNN` parameters, in order.
    package var positional: [SQLValue]
    /// Values for `:name`, `@name` and `$name` parameters, keyed by name without its prefix.
    package var named: [String: SQLValue]

    /// Creates arguments.
    ///
    /// - Parameters:
    ///   - positional: Values for `?` parameters, in order.
    ///   - named: Values for named parameters, keyed by name without its prefix.
    public init(_ positional: [any SQLValueConvertible] = [], named: [String: any SQLValueConvertible] = [:]) {
        self.positional = positional.map(\.sqlValue)
        self.named = named.mapValues(\.sqlValue)
    }

    public init(arrayLiteral elements: (any SQLValueConvertible)...) {
        self.init(elements)
    }

    public init(dictionaryLiteral elements: (String, any SQLValueConvertible)...) {
        self.init(named: Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// Whether there are no arguments at all.
    package var isEmpty: Bool { positional.isEmpty && named.isEmpty }
}
