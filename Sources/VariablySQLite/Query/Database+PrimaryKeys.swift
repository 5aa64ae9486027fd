import Foundation
package import VariablyCodable

/// A stored model's primary key as its table declares it (``SQLiteTable/primaryKey``), resolved once
/// per process: the key set entry, its concrete key path (`\User.userID`, never the generic
/// `\Self.id`), and its column.
package struct PrimaryKey<Model: SQLiteStorable>: Sendable {
    /// The primary key's property, as the model's own key path: it finds the same property in the
    /// model's other key sets (e.g. its `.remote` key in a server's JSON).
    package let keyPath: any PartialKeyPath<Model> & Sendable
    /// The table, quoted for SQL.
    package let quotedTable: String
    /// The primary key column, quoted for SQL.
    package let quotedColumn: String
    /// The table's name.
    package let table: String
    /// The table's mapping, resolved with the key: what the key's other reads need.
    let mapping: TableMapping<Model>

    /// The primary key of `Model`'s table.
    ///
    /// - Throws: `DeclarationError` when the model's table declaration cannot be stored.
    package init() throws(DeclarationError) {
        let mapping = try TableMapping<Model>.shared
        self.mapping = mapping
        keyPath = mapping.keySet.entries[mapping.primaryKeyEntry].keyPath
        quotedTable = mapping.quotedTable
        quotedColumn = mapping.columns[mapping.primaryKeyEntry].quotedName
        table = mapping.tableName
    }

    /// `id` as the primary key column stores it.
    ///
    /// - Throws: An encoding error if `id` does not fit the column.
    package func sqlValue(of id: some Encodable) throws -> SQLValue {
        try mapping.primaryKeyValue(id)
    }

    /// The id that the primary key column stores as `value`, read as the column reads it.
    ///
    /// ```swift
    /// let id = try PrimaryKey<User>().id(stored: .integer(42), as: Int64.self)   // 42
    /// ```
    ///
    /// - Throws: A decoding error if `value` is not an `ID` as the column stores one.
    package func id<ID: Decodable>(stored value: SQLValue, as type: ID.Type) throws -> ID {
        try ColumnValueCoding.decode(ID.self, from: value, kind: mapping.columns[mapping.primaryKeyEntry].kind)
    }

    /// The SQL type the primary key column is declared with: `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    package var columnSQLType: String {
        mapping.columns[mapping.primaryKeyEntry].kind.sqlType
    }

    /// `ids` as the primary key column stores them, in order, with the table's mapping looked up once.
    ///
    /// - Throws: An encoding error if an id does not fit the column.
    /// - Complexity: O(n) in the ids.
    package func sqlValues<ID: Encodable>(of ids: [ID]) throws -> [SQLValue] {
        // The usual key types, told once per call: converting each id through `any Encodable` costs a
        // dynamic cast (and the runtime's metadata lookups) per id. The bit casts are between
        // identical types.
        switch mapping.columns[mapping.primaryKeyEntry].kind {
        case .int64 where ID.self == Int64.self: return unsafeBitCast(ids, to: [Int64].self).map { .integer($0) }
        case .int where ID.self == Int.self: return unsafeBitCast(ids, to: [Int].self).map { .integer(Int64($0)) }
        case .string where ID.self == String.self:
            return unsafeBitCast(ids, to: [String].self).map { .text(TextNormalization.nfc($0)) }
        default: return try ids.map { try mapping.primaryKeyValue($0) }
        }
    }

    /// The primary keys of `models`, in order, as the column stores them.
    ///
    /// - Throws: An encoding error if an id does not fit the column.
    /// - Complexity: O(n) in the models.
    package func sqlValues(ofModels models: [Model]) throws -> [SQLValue]
    where Model: Identifiable, Model.ID: Encodable {
        // `$0.id` is a witness call; `map(\.id)` would read through the key path, with the runtime's
        // metadata lookups, per model.
        try sqlValues(of: models.map { $0.id })
    }

    /// The column (quoted for SQL) of the property that `source` keeps at `key`, a top-level key or a
    /// dotted path as in key sets, such as a server's `"version"` or `"attributes.version"` field; `nil`
    /// when `source` has no such key or the table no column for it.
    package func quotedColumn(forTopLevelKey key: String, in source: CodingSource) -> String? {
        let keys = DataPath(dotted: key).keys
        guard let other = Model.keySets[source],
            let entry = other.entries.first(where: { $0.key.alternatives.contains { $0.keys == keys } }),
            let index = mapping.keySet.index(of: entry.keyPath)
        else { return nil }
        return mapping.columns[index].quotedName
    }

    /// The positions of the key set's entries whose columns a pull may overwrite: those `source` also
    /// has a key for. The others are local-only columns.
    /// The reference declared on `keyPath`'s column, if any.
    package func reference(at keyPath: AnyKeyPath) -> TableReference? {
        guard let column = mapping.column(for: keyPath) else { return nil }
        return column.column.reference
    }

    /// The table's declared references to parent tables.
    package var references: [TableReference] {
        mapping.references
    }

    /// The table's column names, unquoted, in the key set's order.
    package var columnNames: [String] {
        mapping.columns.map(\.name)
    }

    /// The top-level keys in `source` of the properties stored in `columns` (unquoted names): what a
    /// record's JSON in that source has to carry for a change of those columns.
    package func topLevelKeys(ofColumns columns: some Sequence<String>, in source: CodingSource) -> Set<String> {
        Set(keys(ofColumns: columns, in: source).flatMap { $0.alternatives.compactMap(\.keys.first) })
    }

    /// The full paths in `source` of the properties stored in `columns` (unquoted names), each at the
    /// path an encoder writes it (its key's first alternative): the leaf fields a change of those
    /// columns writes (`attributes.name`, where ``topLevelKeys(ofColumns:in:)`` has `attributes`).
    package func leafPaths(ofColumns columns: some Sequence<String>, in source: CodingSource) -> Set<DataPath> {
        Set(keys(ofColumns: columns, in: source).compactMap(\.alternatives.first))
    }

    /// The keys in `source` of the properties stored in `columns` (unquoted names); a column whose
    /// property `source` does not list is left out.
    private func keys(ofColumns columns: some Sequence<String>, in source: CodingSource) -> [SourceKey] {
        guard let other = Model.keySets[source] else { return [] }
        return columns.compactMap { name in
            guard let index = mapping.columns.firstIndex(where: { $0.name == name }),
                let entry = other.index(of: mapping.keySet.entries[index].keyPath)
            else { return nil }
            return other.entries[entry].key
        }
    }

    package func entries(sharedWith source: CodingSource) -> [Int] {
        guard let other = Model.keySets[source] else { return [] }
        return mapping.keySet.entries.indices.filter { other.index(of: mapping.keySet.entries[$0].keyPath) != nil }
    }
}

// MARK: - Reads and writes by primary key

extension Database {
    /// Which of `keys` are primary keys of rows of `Model`'s table, as the table stores them, in one
    /// indexed query per 500 distinct keys.
    ///
    /// - Complexity: O(k log n) for k keys in a table of n rows.
    package func existingPrimaryKeys<Model: SQLiteStorable>(
        _ type: Model.Type, among keys: [SQLValue]
    ) throws -> Set<SQLValue> {
        let key = try PrimaryKey<Model>()
        if let smallest = Self.smallestInteger(in: keys) {
            // A table whose largest key sorts below every key asked about holds none of them: for
            // integer keys appended in order (a first sync), one read of the index's last entry
            // replaces the lookups (https://www.sqlite.org/optoverview.html#minmax; SQLite sorts
            // numbers before text and blobs, so a largest key that is not an integer settles nothing).
            switch try fetchValue(sql: "SELECT max(\(key.quotedColumn)) FROM \(key.quotedTable)") {
            case nil, .null?: return []
            case .integer(let largest)? where largest < smallest: return []
            default: break
            }
        }
        var found = Set<SQLValue>()
        for chunk in Array(Set(keys)).chunked(by: 500) {
            let statement = try cachedStatement(
                sql: "SELECT \(key.quotedColumn) FROM \(key.quotedTable) WHERE \(key.quotedColumn) IN ("
                    + Array(repeating: "?", count: chunk.count).joined(separator: ",") + ")")
            try statement.bind(StatementArguments(chunk))
            while try statement.step() { found.insert(statement.value(at: 0)) }
        }
        return found
    }

    /// How many different keys `keys` holds.
    ///
    /// - Complexity: O(*n*) comparisons when the keys are integers in increasing order (a page of a
    ///   server's listing); O(*n*) hashes otherwise.
    package static func distinctCount(of keys: [SQLValue]) -> Int {
        var previous = Int64.min
        for (position, key) in keys.enumerated() {
            guard case .integer(let value) = key, position == 0 || value > previous else { return Set(keys).count }
            previous = value
        }
        return keys.count
    }

    /// The smallest of `keys` when they are all integers and there is at least one; `nil` otherwise.
    private static func smallestInteger(in keys: [SQLValue]) -> Int64? {
        var smallest: Int64?
        for key in keys {
            guard case .integer(let value) = key else { return nil }
            smallest = Swift.min(smallest ?? value, value)
        }
        return smallest
    }

    /// The models whose primary keys are `keys`, in one indexed query per 500 keys; missing keys are
    /// skipped.
    ///
    /// - Complexity: O(k log n) for k keys in a table of n rows.
    package func fetch<Model: SQLiteStorable>(_ type: Model.Type, primaryKeys keys: [SQLValue]) throws -> [Model] {
        try fetch(type, whereColumn: PrimaryKey<Model>().quotedColumn, in: keys)
    }

    /// The rows whose `quotedColumn` holds one of `keys`, in chunks of 500 bound values, each chunk's in
    /// primary key order.
    package func fetch<Model: SQLiteStorable>(
        _ type: Model.Type, whereColumn quotedColumn: String, in keys: [SQLValue]
    ) throws -> [Model] {
        let mapping = try TableMapping<Model>.shared
        var models: [Model] = []
        for chunk in keys.chunked(by: 500) {
            let sql =
                mapping.selectSQL + " WHERE \(quotedColumn) IN ("
                + Array(repeating: "?", count: chunk.count).joined(separator: ",") + ") ORDER BY "
                + mapping.columns[mapping.primaryKeyEntry].quotedName
            models += try fetch(sql, arguments: StatementArguments(chunk), mapping: mapping, slots: mapping.readSlots)
        }
        return models
    }

    /// Calls `body` with the primary key of every row, reading that column only.
    ///
    /// - Complexity: O(n), without decoding any model.
    package func forEachPrimaryKey<Model: SQLiteStorable>(_ type: Model.Type, _ body: (SQLValue) throws -> Void) throws
    {
        let key = try PrimaryKey<Model>()
        let statement = try makeStatement(sql: "SELECT \(key.quotedColumn) FROM \(key.quotedTable)")
        while try statement.step() { try body(statement.value(at: 0)) }
    }

    /// Deletes the rows whose primary keys are `keys`.
    ///
    /// - Returns: The number of rows deleted.
    package func delete<Model: SQLiteStorable>(_ type: Model.Type, primaryKeys keys: [SQLValue]) throws -> Int {
        let key = try PrimaryKey<Model>()
        var deleted = 0
        for chunk in keys.chunked(by: 500) {
            try execute(
                sql: "DELETE FROM \(key.quotedTable) WHERE \(key.quotedColumn) IN ("
                    + Array(repeating: "?", count: chunk.count).joined(separator: ",") + ")",
                arguments: StatementArguments(chunk))
            deleted += changesCount
        }
        return deleted
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    fileprivate func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

extension StatementArguments {
    fileprivate init(_ values: ArraySlice<SQLValue>) {
        self.init(positional: Array(values))
    }
}
