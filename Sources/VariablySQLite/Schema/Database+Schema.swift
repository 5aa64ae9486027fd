public import VariablyCodable

// MARK: - Schema from the key set

extension Database {
    /// The `CREATE TABLE` statement derived from the model's `sqlite` key set and table declaration.
    ///
    /// ```swift
    /// Database.createTableSQL(for: User.self)
    /// // CREATE TABLE "users" ("id" INTEGER PRIMARY KEY NOT NULL, "user_name" TEXT NOT NULL, ...)
    /// ```
    ///
    /// - Throws: `DeclarationError` when the declaration cannot be stored (see ``migrate(_:)``).
    public static func createTableSQL<Model: SQLiteStorable>(for type: Model.Type) throws(DeclarationError) -> String {
        try TableMapping<Model>.shared.createTableSQL
    }

    /// Creates the model's table and its indexes.
    ///
    /// - Throws: `DeclarationError` when the declaration cannot be stored, ``SQLiteError`` (e.g. when
    ///   the table exists).
    public func create<Model: SQLiteStorable>(table type: Model.Type) throws {
        let mapping = try TableMapping<Model>.shared
        try inSavepoint {
            try execute(sql: mapping.createTableSQL)
            for sql in mapping.createIndexSQL { try execute(sql: sql) }
            try verifyIndexes(mapping)
        }
    }

    /// Whether a table exists (https://www.sqlite.org/schematab.html); names compare like SQLite
    /// compares identifiers, ignoring the case of ASCII letters only (NOCASE).
    ///
    /// - Throws: ``SQLiteError``.
    public func tableExists(_ name: String) throws -> Bool {
        try fetchValue(
            sql: "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE", arguments: [name])
            != nil
    }

    /// Brings the model's table up to date: creates it when missing, adds columns the key set gained
    /// (`ALTER TABLE ... ADD COLUMN`) and indexes the declaration gained. Never drops or rewrites
    /// anything: a change that needs that throws ``SchemaMismatchError`` before any change is made.
    ///
    /// The tables of the models it references (``TableElement/references(_:_:onDelete:)``) are created
    /// too when they are missing, empty, as SQLite refuses writes to a table whose parent table does not
    /// exist; a parent's existing table is left to its own `migrate`.
    ///
    /// ```swift
    /// try db.write { try $0.migrate(User.self) }
    /// ```
    ///
    /// - Returns: The statements run, empty when the table was already up to date.
    /// - Throws: `DeclarationError` for a declaration that cannot be stored (a property an index names
    ///   without a key, two indexes of one name, a default SQLite would not give back...), before anything
    ///   is written; ``SchemaMismatchError`` or ``SQLiteError``.
    @discardableResult
    public func migrate<Model: SQLiteStorable>(_ type: Model.Type) throws -> [String] {
        let mapping = try TableMapping<Model>.shared
        return try inSavepoint {
            var statements: [String] = []
            if try !tableExists(mapping.tableName) {
                statements = [mapping.createTableSQL] + mapping.createIndexSQL
            } else {
                // Only the indexes the table lacks: a table already up to date runs nothing.
                let existing = try fetch(
                    sql: "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? COLLATE NOCASE",
                    arguments: [mapping.tableName])
                let missing = mapping.indexes.filter { index in !existing.contains { $0[0] == .text(index.name) } }
                statements = try additiveChanges(mapping) + missing.map { $0.createSQL(table: mapping.tableName) }
            }
            for sql in statements { try execute(sql: sql) }
            try verifyIndexes(mapping)
            try verifyReferences(mapping)
            for element in Model.sqliteTable.elements {
                if case .reference(_, _, _, let createParent) = element.kind { statements += try createParent(self) }
            }
            return statements
        }
    }

    /// Checks that every declared reference is on the table as declared: a table created before the
    /// reference was declared lacks it, and only rebuilding the table adds it.
    private func verifyReferences<Model>(_ mapping: TableMapping<Model>) throws {
        guard !mapping.references.isEmpty else { return }
        // https://www.sqlite.org/pragma.html#pragma_foreign_key_list
        let rows = try fetch(
            sql: #"SELECT "from", "table", "to", "on_update", "on_delete" FROM pragma_foreign_key_list(?)"#,
            arguments: [mapping.tableName])
        var problems: [SchemaMismatchError.Problem] = []
        for reference in mapping.references {
            let found = rows.contains { row in
                row[0] == .text(reference.column) && row[1] == .text(reference.parentTable)
                    && row[2] == .text(reference.parentColumn) && row[3] == .text("CASCADE")
                    && row[4] == .text(reference.onDelete.sql)
            }
            if !found {
                problems.append(
                    .referenceDiffers(
                        column: reference.column,
                        parent: "\(SQL.quote(reference.parentTable)) (\(SQL.quote(reference.parentColumn)))"))
            }
        }
        if !problems.isEmpty { throw SchemaMismatchError(table: mapping.tableName, problems: problems) }
    }

    /// Checks that every declared index exists on the table, with the declared columns in order and
    /// the declared uniqueness: `CREATE INDEX IF NOT EXISTS` does nothing when an index of that name
    /// exists, whatever it covers.
    private func verifyIndexes<Model>(_ mapping: TableMapping<Model>) throws {
        guard !mapping.indexes.isEmpty else { return }
        // https://www.sqlite.org/pragma.html#pragma_index_list and #pragma_index_info
        let rows = try fetch(
            sql: #"""
                SELECT list."name", list."unique", info."name" FROM pragma_index_list(?) AS list,
                pragma_index_info(list."name") AS info ORDER BY list."name", info."seqno"
                """#,
            arguments: [mapping.tableName])
        var found: [[UInt8]: (isUnique: Bool, columns: [String])] = [:]
        for row in rows {
            guard case .text(let name) = row[0] else { continue }
            let column: String = if case .text(let column) = row[2] { column } else { "" }
            found[SQL.identifierKey(name), default: (row[1] == .integer(1), [])].columns.append(column)
        }
        var problems: [SchemaMismatchError.Problem] = []
        for index in mapping.indexes {
            let existing = found[SQL.identifierKey(index.name)]
            if existing?.isUnique != index.isUnique
                || existing?.columns.map(SQL.identifierKey) != index.columns.map(SQL.identifierKey)
            {
                problems.append(
                    .indexDiffers(
                        name: index.name, columns: index.columns, isUnique: index.isUnique,
                        found: existing?.columns ?? []))
            }
        }
        guard problems.isEmpty else { throw SchemaMismatchError(table: mapping.tableName, problems: problems) }
    }

    private struct ExistingColumn {
        let name: String
        let type: String
        let isNotNull: Bool
        let hasDefault: Bool
        let primaryKeyPosition: Int64
    }

    private func additiveChanges<Model>(_ mapping: TableMapping<Model>) throws -> [String] {
        // https://www.sqlite.org/pragma.html#pragfunc: table-valued pragma, so the name is bound.
        let rows = try fetch(
            sql: "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)",
            arguments: [mapping.tableName])
        var existing: [[UInt8]: ExistingColumn] = [:]
        for row in rows {
            guard case .text(let name) = row[0] else { continue }
            let type: String = if case .text(let type) = row[1] { type } else { "" }
            let isNotNull = row[2] == .integer(1)
            let primaryKeyPosition: Int64 = if case .integer(let position) = row[4] { position } else { 0 }
            existing[SQL.identifierKey(name)] = ExistingColumn(
                name: name, type: type, isNotNull: isNotNull, hasDefault: !row[3].isNull,
                primaryKeyPosition: primaryKeyPosition)
        }
        var problems: [SchemaMismatchError.Problem] = []
        var statements: [String] = []
        for column in mapping.columns {
            if let old = existing[SQL.identifierKey(column.name)] {
                if old.type.uppercased() != column.sqlType {
                    problems.append(.typeChanged(column: column.name, from: old.type, to: column.sqlType))
                }
                // A rowid alias primary key reports notnull 0 even when declared NOT NULL.
                if !column.isPrimaryKey, old.isNotNull == column.isOptional {
                    problems.append(.nullabilityChanged(column: column.name, isOptional: column.isOptional))
                }
            } else if column.isPrimaryKey {
                continue
            } else if column.isOptional || column.defaultValue != nil {
                // https://www.sqlite.org/lang_altertable.html#altertabaddcol: a NOT NULL column needs a default.
                statements.append("ALTER TABLE \(mapping.quotedTable) ADD COLUMN \(column.definition)")
            } else {
                problems.append(.newColumnNeedsValue(column: column.name))
            }
        }
        let oldKey = existing.values.filter { $0.primaryKeyPosition > 0 }.sorted {
            $0.primaryKeyPosition < $1.primaryKeyPosition
        }
        .map(\.name)
        let newKey = [mapping.columns[mapping.primaryKeyEntry].name]
        if oldKey.map(SQL.identifierKey) != newKey.map(SQL.identifierKey) {
            problems.append(.primaryKeyChanged(from: oldKey, to: newKey))
        }
        let modelColumns = Set(mapping.columns.map { SQL.identifierKey($0.name) })
        for old in existing.values.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) })
        where !modelColumns.contains(SQL.identifierKey(old.name)) && old.isNotNull && !old.hasDefault {
            problems.append(.removedRequiredColumn(column: old.name))
        }
        guard problems.isEmpty else {
            throw SchemaMismatchError(table: mapping.tableName, problems: problems)
        }
        return statements
    }
}
