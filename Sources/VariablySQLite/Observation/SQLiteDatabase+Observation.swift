public import Foundation

// MARK: - Observation

extension SQLiteDatabase {
    /// The models matching a query, now and after every committed write that changes them.
    ///
    /// ```swift
    /// for try await adults in database.observe(User.self, where: #Predicate { $0.age > 30 }, limit: 100) {
    ///     print(adults.count)
    /// }
    /// ```
    ///
    /// The sequence yields the current result at once, then a new result after each committed
    /// transaction that wrote the model's table through this database (any write: `write`, a
    /// repository's sync pages, saves and deletes), and only when the result differs from the last one
    /// (the rows are compared before the models are decoded). Transactions committed while a fetch runs
    /// are coalesced into one more fetch; a consumer slower than the writes gets the latest result.
    /// Fetches run on the database's readers and never block the writer. The sequence ends when the
    /// consuming task is cancelled, and throws when a fetch fails (a predicate SQL cannot express:
    /// ``QueryTranslationError``). Writes by other processes to the same file are not seen: SQLite
    /// tells a connection nothing of them.
    ///
    /// - Parameters:
    ///   - type: The stored model type.
    ///   - predicate: The filter, or `nil` for every model.
    ///   - sortDescriptors: The order.
    ///   - limit: The most models per result.
    /// - Returns: An asynchronous sequence of results.
    public func observe<Model: SQLiteStorable & Sendable>(
        _ type: Model.Type, where predicate: Predicate<Model>? = nil,
        sortedBy sortDescriptors: [SortDescriptor<Model>] = [], limit: Int? = nil
    ) -> AsyncThrowingStream<[Model], any Error> {
        let query: SQLQuery
        let mapping: TableMapping<Model>
        do {
            query = try SQLQuery.select(type, where: predicate, sortedBy: sortDescriptors, limit: limit)
            mapping = try TableMapping<Model>.shared
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        return QueryObservation<[Row], [Model]>.stream(database: self, tables: [mapping.tableName]) { db, previous in
            let arguments = StatementArguments(positional: query.arguments)
            let rows = try db.fetch(sql: query.sql, arguments: arguments)
            if rows == previous { return nil }
            return (rows, try db.fetch(query.sql, arguments: arguments, mapping: mapping, slots: mapping.readSlots))
        }
    }

    /// The model with `id`, now and after every committed write that changes it; `nil` while there is
    /// none.
    ///
    /// ```swift
    /// for try await user in database.observe(User.self, id: 42) { print(user?.userName ?? "deleted") }
    /// ```
    ///
    /// Emission rules as ``observe(_:where:sortedBy:limit:)``.
    ///
    /// - Returns: An asynchronous sequence of the model or `nil`.
    public func observe<Model: SQLiteStorable & Sendable>(
        _ type: Model.Type, id: some Encodable & Sendable
    ) -> AsyncThrowingStream<Model?, any Error> {
        let mapping: TableMapping<Model>
        let key: SQLValue
        do {
            mapping = try TableMapping<Model>.shared
            key = try mapping.primaryKeyValue(id)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        let sql = mapping.selectByIDSQL
        return QueryObservation<[Row], Model?>.stream(database: self, tables: [mapping.tableName]) { db, previous in
            let rows = try db.fetch(sql: sql, arguments: [key])
            if rows == previous { return nil }
            return (rows, try db.fetch(sql, arguments: [key], mapping: mapping, slots: mapping.readSlots).first)
        }
    }

    /// The number of models matching a predicate, now and after every committed write that changes it.
    ///
    /// ```swift
    /// for try await count in database.observeCount(User.self, where: #Predicate { $0.isActive && $0.age > 30 }) {
    ///     print("\(count) active users over 30")
    /// }
    /// ```
    ///
    /// Emission rules as ``observe(_:where:sortedBy:limit:)``.
    ///
    /// - Returns: An asynchronous sequence of counts.
    public func observeCount<Model: SQLiteStorable>(
        _ type: Model.Type, where predicate: Predicate<Model>? = nil
    ) -> AsyncThrowingStream<Int, any Error> {
        let mapping: TableMapping<Model>
        var sql: String
        var arguments: [SQLValue] = []
        do {
            mapping = try TableMapping<Model>.shared
            sql = "SELECT count(*) FROM \(mapping.quotedTable)"
            if let predicate {
                let condition = try SQLQuery.whereClause(predicate, mapping: mapping)
                sql += " WHERE " + condition.sql
                arguments = condition.arguments
            }
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        let query = SQLQuery(sql: sql, arguments: arguments)
        return observe(tables: [mapping.tableName]) { db in
            guard
                case .integer(let count)? = try db.fetchValue(
                    sql: query.sql, arguments: StatementArguments(positional: query.arguments))
            else { return 0 }
            return Int(count)
        }
    }

    /// Any value read from the database, now and after every committed write to one of `tables`, when
    /// it differs from the last one.
    ///
    /// ```swift
    /// let totals = database.observe(tables: ["orders"]) { db in
    ///     try db.fetchValue(sql: "SELECT total(amount) FROM orders")
    /// }
    /// for try await total in totals { print(total ?? .null) }
    /// ```
    ///
    /// - Parameters:
    ///   - tables: The tables `fetch` reads: a write to one of them fetches again.
    ///   - fetch: Reads the value, in a read transaction on one of the database's readers.
    /// - Returns: An asynchronous sequence of values.
    public func observe<Value: Equatable & Sendable>(
        tables: Set<String>, _ fetch: @escaping @Sendable (Database) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        QueryObservation<Value, Value>.stream(database: self, tables: tables) { db, previous in
            let value = try fetch(db)
            return value == previous ? nil : (value, value)
        }
    }
}
