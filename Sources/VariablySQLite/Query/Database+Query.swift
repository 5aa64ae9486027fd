public import Foundation
import VariablyCodable

// MARK: - Predicate queries

extension Database {
    /// Models matching a predicate, sorted and paged, in one parameterized query.
    ///
    /// ```swift
    /// let users = try db.read {
    ///     try $0.fetch(User.self, where: #Predicate { $0.age > 30 && $0.isActive },
    ///                  sortedBy: [SortDescriptor(\.userName)], limit: 10)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The model.
    ///   - predicate: The filter, or `nil` for every row.
    ///   - sortDescriptors: The order (strings by byte order, see ``SQLQuery/select(_:where:sortedBy:limit:offset:)``).
    ///   - limit: The most models returned.
    ///   - offset: Models skipped first.
    ///   - policy: What to do with a predicate that has no SQL translation; throws by default.
    /// - Throws: ``QueryTranslationError``, ``SQLiteError`` or `VariablyCodingError`.
    /// - Complexity: What SQLite needs for the query, plus O(*n*) in the rows returned.
    @inlinable
    public func fetch<Model: SQLiteStorable>(
        _ type: Model.Type, where predicate: Predicate<Model>? = nil,
        sortedBy sortDescriptors: [SortDescriptor<Model>] = [],
        limit: Int? = nil, offset: Int? = nil, ifUntranslatable policy: UntranslatablePolicy = .throwError
    ) throws -> [Model] {
        if let rows = try rows(
            type, where: predicate, sortedBy: sortDescriptors, limit: limit, offset: offset, ifUntranslatable: policy)
        {
            return try rows.collect()
        }
        // Asked for: the caller accepts a full scan rather than an error.
        var models = try fetchAll(type)
        if let predicate { models = try models.filter { try predicate.evaluate($0) } }
        if !sortDescriptors.isEmpty { models.sort(using: sortDescriptors) }
        let start = min(max(offset ?? 0, 0), models.count)
        let end = limit.map { min(start + max($0, 0), models.count) } ?? models.count
        return Array(models[start..<end])
    }

    /// The cursor of ``fetch(_:where:sortedBy:limit:offset:ifUntranslatable:)``, or `nil` when the
    /// predicate has no translation and `policy` asks to evaluate it in memory.
    ///
    /// - Throws: ``QueryTranslationError`` (unless `policy` says otherwise), ``SQLiteError``.
    @usableFromInline func rows<Model: SQLiteStorable>(
        _ type: Model.Type, where predicate: Predicate<Model>?, sortedBy sortDescriptors: [SortDescriptor<Model>],
        limit: Int?, offset: Int?, ifUntranslatable policy: UntranslatablePolicy
    ) throws -> RowCursor<Model>? {
        let mapping = try TableMapping<Model>.shared
        let query: SQLQuery
        do {
            query = try SQLQuery.select(type, where: predicate, sortedBy: sortDescriptors, limit: limit, offset: offset)
        } catch is QueryTranslationError where policy == .evaluateInMemory {
            return nil
        }
        return try RowCursor(
            statement: try cachedStatement(sql: query.sql), arguments: StatementArguments(positional: query.arguments),
            mapping: mapping, slots: mapping.readSlots)
    }

    /// Calls `body` with each model matching a predicate, one row at a time, so that memory stays
    /// flat however many rows match.
    ///
    /// ```swift
    /// try db.read { db in
    ///     try db.forEach(User.self, where: #Predicate { $0.isActive }) { user in export(user) }
    /// }
    /// ```
    ///
    /// `body` may run other queries on `db`: the iteration uses a statement of its own. Deleting or
    /// updating the current row (or earlier ones) is safe; rows changed ahead of the iteration may or
    /// may not be visited (https://www.sqlite.org/isolation.html).
    ///
    /// - Throws: ``QueryTranslationError``, ``SQLiteError``, `VariablyCodingError`, or what `body` throws.
    /// - Complexity: O(*n*) in the rows visited.
    public func forEach<Model: SQLiteStorable>(
        _ type: Model.Type, where predicate: Predicate<Model>? = nil,
        sortedBy sortDescriptors: [SortDescriptor<Model>] = [],
        _ body: (Model) throws -> Void
    ) throws {
        let mapping = try TableMapping<Model>.shared
        let query = try SQLQuery.select(type, where: predicate, sortedBy: sortDescriptors)
        let statement = try makeStatement(sql: query.sql)
        try statement.bind(StatementArguments(positional: query.arguments))
        let backend = RowDecodingBackend(statement: statement, slots: mapping.readSlots, columns: mapping.columnNames)
        let keyPathOrder = KeyPathOrder()
        let container = DecodingContainer(
            source: mapping.keySet.source, keySet: mapping.keySet, backend: backend, keyPathOrder: keyPathOrder)
        while try statement.step() {
            keyPathOrder.startRow()
            try body(try Model(from: container))
        }
    }

    /// The number of models matching a predicate, or of every row without one.
    ///
    /// ```swift
    /// let all = try db.read { try $0.count(User.self) }
    /// let active = try db.read { try $0.count(User.self, where: #Predicate { $0.isActive }) }
    /// ```
    ///
    /// - Throws: ``QueryTranslationError`` or ``SQLiteError``.
    public func count<Model: SQLiteStorable>(_ type: Model.Type, where predicate: Predicate<Model>? = nil) throws -> Int
    {
        let mapping = try TableMapping<Model>.shared
        var sql = mapping.countSQL
        var arguments: StatementArguments = []
        if let predicate {
            let condition = try SQLQuery.whereClause(predicate, mapping: mapping)
            sql += " WHERE " + condition.sql
            arguments = StatementArguments(positional: condition.arguments)
        }
        guard case .integer(let count) = try fetchValue(sql: sql, arguments: arguments) else { return 0 }
        return Int(count)
    }

    /// Deletes the models matching a predicate.
    ///
    /// ```swift
    /// try db.write { try $0.delete(User.self, where: #Predicate { !$0.isActive }) }
    /// ```
    ///
    /// - Returns: The number of rows deleted.
    /// - Throws: ``QueryTranslationError`` or ``SQLiteError``.
    @discardableResult
    public func delete<Model: SQLiteStorable>(_ type: Model.Type, where predicate: Predicate<Model>) throws -> Int {
        let mapping = try TableMapping<Model>.shared
        let condition = try SQLQuery.whereClause(predicate, mapping: mapping)
        try execute(
            sql: "DELETE FROM \(mapping.quotedTable) WHERE " + condition.sql,
            arguments: StatementArguments(positional: condition.arguments))
        return changesCount
    }
}

extension StatementArguments {
    /// Positional arguments that are already ``SQLValue``s.
    init(positional: [SQLValue]) {
        self.init([] as [any SQLValueConvertible])
        self.positional = positional
    }
}
