public import Foundation

/// A parameterized SQL query: the text (identifiers quoted, values as `?`) and the values to bind.
///
/// Build one from a `#Predicate` to see the SQL a query runs:
///
/// ```swift
/// let query = try SQLQuery.select(User.self, where: #Predicate { $0.age > 30 }, limit: 10)
/// query.sql        // SELECT "id", ... FROM "users" WHERE "age" > ? LIMIT ?
/// query.arguments  // [30, 10]
/// ```
public struct SQLQuery: Hashable, Sendable {
    /// The SQL text.
    public let sql: String
    /// The values bound to its parameters, in order.
    public let arguments: [SQLValue]

    /// Creates a query.
    package init(sql: String, arguments: [SQLValue]) {
        self.sql = sql
        self.arguments = arguments
    }

    /// The `SELECT` of a model's columns, filtered, sorted and paged.
    ///
    /// - Parameters:
    ///   - type: The model.
    ///   - predicate: The filter, translated through the model's `sqlite` key set.
    ///   - sortDescriptors: The order; strings sort by SQLite's `BINARY` collation (byte order), not
    ///     by the localized comparator a `SortDescriptor` uses in memory.
    ///   - limit: The most rows returned.
    ///   - offset: Rows skipped first.
    /// - Throws: ``QueryTranslationError`` naming the part that has no SQL translation.
    public static func select<Model: SQLiteStorable>(
        _ type: Model.Type, where predicate: Predicate<Model>? = nil,
        sortedBy sortDescriptors: [SortDescriptor<Model>] = [],
        limit: Int? = nil, offset: Int? = nil
    ) throws -> SQLQuery {
        let mapping = try TableMapping<Model>.shared
        var sql = mapping.selectSQL
        var arguments: [SQLValue] = []
        if let predicate {
            let condition = try whereClause(predicate, mapping: mapping)
            sql += " WHERE " + condition.sql
            arguments += condition.arguments
        }
        sql += try orderByClause(sortDescriptors, mapping: mapping)
        // https://www.sqlite.org/lang_select.html#limitoffset: a negative LIMIT means no limit.
        if limit != nil || offset != nil {
            sql += " LIMIT ?"
            arguments.append(.integer(Int64(limit ?? -1)))
        }
        if let offset {
            sql += " OFFSET ?"
            arguments.append(.integer(Int64(offset)))
        }
        return SQLQuery(sql: sql, arguments: arguments)
    }

    /// The condition of a `WHERE` clause for `predicate`, without the `WHERE` keyword.
    ///
    /// ```swift
    /// try SQLQuery.condition(#Predicate<User> { $0.nickname == nil }).sql   // "nickname" IS NULL
    /// ```
    ///
    /// - Throws: ``QueryTranslationError``.
    public static func condition<Model: SQLiteStorable>(_ predicate: Predicate<Model>) throws -> SQLQuery {
        try whereClause(predicate, mapping: TableMapping<Model>.shared)
    }

    static func whereClause<Model>(_ predicate: Predicate<Model>, mapping: TableMapping<Model>) throws -> SQLQuery {
        let context = PredicateSQLContext(
            modelType: Model.self,
            column: { keyPath in
                guard let (_, column) = mapping.column(for: keyPath) else { return nil }
                try Self.checkComparable(column, keyPath)
                return .column(
                    quotedName: column.quotedName, kind: column.kind, isOptional: column.isOptional, keyPath: keyPath)
            },
            modelName: "\(Model.self)")
        let term = try PredicateSQL.translate(predicate.expression, in: context)
        let rendered = try term.render(hint: .bool)
        return SQLQuery(sql: rendered.sql, arguments: rendered.arguments)
    }

    static func orderByClause<Model>(_ sortDescriptors: [SortDescriptor<Model>], mapping: TableMapping<Model>) throws
        -> String
    {
        guard !sortDescriptors.isEmpty else { return "" }
        let terms = try sortDescriptors.map { descriptor in
            guard let keyPath = descriptor.keyPath, let column = mapping.column(for: keyPath)?.column else {
                throw QueryTranslationError(
                    expression: descriptor.keyPath.map { "\($0)" } ?? "\(descriptor)",
                    reason: "sort descriptors translate on properties of the \(Model.self) sqlite key set only.")
            }
            try Self.checkComparable(column, keyPath)
            if let stored = column.kind.unorderedStoredForm {
                throw QueryTranslationError(
                    expression: "\(keyPath)",
                    reason:
                        "the column \(column.quotedName) holds the value as \(stored), which SQL cannot sort as the "
                        + "property's `<` does; fetch with `ifUntranslatable: .evaluateInMemory`.")
            }
            return column.quotedName + (descriptor.order == .reverse ? " DESC" : "")
        }
        return " ORDER BY " + terms.joined(separator: ", ")
    }

    /// A column behind a value transform holds encoded values: SQL would compare and sort those, not
    /// the property's (`"12.5" < "9"` as text), so such a property is not translated.
    private static func checkComparable<Model>(_ column: TableMapping<Model>.Column, _ keyPath: AnyKeyPath) throws {
        guard column.isTransformed else { return }
        throw QueryTranslationError(
            expression: "\(keyPath)",
            reason: "the column \(column.quotedName) holds the values of a transform, which SQL cannot compare as the "
                + "property's; fetch with `ifUntranslatable: .evaluateInMemory`, or query the stored values with raw SQL."
        )
    }
}
