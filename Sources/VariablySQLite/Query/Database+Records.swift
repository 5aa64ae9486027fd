import Foundation
import VariablyCodable

// MARK: - Writing records

extension Database {
    /// Inserts a model.
    ///
    /// ```swift
    /// try db.write { try $0.insert(user) }
    /// ```
    ///
    /// - Throws: ``SQLiteError`` (`ResultCode.constraintPrimaryKey` matches it when the key exists), or
    ///   ``RecordEncodingError`` when a property cannot be encoded.
    public func insert<Model: SQLiteStorable>(_ model: Model) throws {
        try insert(CollectionOfOne(model))
    }

    /// Inserts models with one prepared statement, all or none (in a savepoint).
    ///
    /// ```swift
    /// try db.write { try $0.insert(users) }
    /// ```
    ///
    /// - Throws: ``SQLiteError`` or ``RecordEncodingError``; nothing is inserted then.
    /// - Complexity: O(*n*) in the number of models.
    public func insert<Models: Sequence>(_ models: Models) throws where Models.Element: SQLiteStorable {
        let mapping = try TableMapping<Models.Element>.shared
        try run(mapping.insertSQL, slots: mapping.insertSlots, models: models, mapping: mapping)
    }

    /// Inserts a model, or updates every column of the row that has its primary key
    /// (`INSERT ... ON CONFLICT (pk) DO UPDATE`, https://www.sqlite.org/lang_upsert.html).
    ///
    /// ```swift
    /// try db.write { try $0.upsert(user) }
    /// ```
    ///
    /// - Throws: ``SQLiteError`` or `VariablyCodingError`.
    public func upsert<Model: SQLiteStorable>(_ model: Model) throws {
        try upsert(CollectionOfOne(model))
    }

    /// Upserts models with one prepared statement, all or none (in a savepoint).
    ///
    /// ```swift
    /// try db.write { try $0.upsert(users) }
    /// ```
    ///
    /// - Throws: ``SQLiteError`` or ``RecordEncodingError``; nothing is written then.
    /// - Complexity: O(*n*) in the number of models.
    public func upsert<Models: Sequence>(_ models: Models) throws where Models.Element: SQLiteStorable {
        let mapping = try TableMapping<Models.Element>.shared
        try run(mapping.upsertSQL, slots: mapping.insertSlots, models: models, mapping: mapping)
    }

    /// Updates every column of the row with the model's primary key.
    ///
    /// ```swift
    /// let found = try db.write { try $0.update(user) }
    /// ```
    ///
    /// - Returns: Whether a row had that key.
    /// - Throws: ``SQLiteError`` or `VariablyCodingError`.
    @discardableResult
    public func update<Model: SQLiteStorable>(_ model: Model) throws -> Bool {
        let mapping = try TableMapping<Model>.shared
        try run(mapping.updateSQL, slots: mapping.updateSlots, models: CollectionOfOne(model), mapping: mapping)
        return changesCount > 0
    }

    /// Deletes the row whose primary key is `id`.
    ///
    /// ```swift
    /// try db.write { try $0.delete(User.self, id: 42) }
    /// ```
    ///
    /// - Returns: Whether a row was deleted.
    /// - Throws: ``SQLiteError``.
    @discardableResult
    public func delete<Model: SQLiteStorable>(_ type: Model.Type, id: some Encodable) throws -> Bool {
        let mapping = try TableMapping<Model>.shared
        try execute(sql: mapping.deleteByIDSQL, arguments: StatementArguments([try mapping.primaryKeyValue(id)]))
        return changesCount > 0
    }

    /// Deletes every row.
    ///
    /// - Returns: The number of rows deleted.
    /// - Throws: ``SQLiteError``.
    @discardableResult
    public func deleteAll<Model: SQLiteStorable>(_ type: Model.Type) throws -> Int {
        let mapping = try TableMapping<Model>.shared
        try cachedStatement(sql: "DELETE FROM \(mapping.quotedTable)").execute()
        return changesCount
    }

    func run<Models: Sequence>(
        _ sql: String, slots: [ColumnSlot], models: Models, mapping: TableMapping<Models.Element>
    ) throws where Models.Element: SQLiteStorable {
        let statement = try cachedStatement(sql: sql)
        let sink = RowEncodingSink(statement: statement, slots: slots)
        let entries = Array(mapping.coders.indices)
        func body() throws {
            // An array's models are bound where they are (unspecialized, iterating a generic sequence
            // copies each model out through its value witness: 500 instructions a row for the benchmark's).
            let bound: Void? = try models.withContiguousStorageIfAvailable { buffer in
                guard let base = buffer.baseAddress else { return }
                for index in 0..<buffer.count {
                    try step(
                        statement, bindingModelAt: base + index, entries: entries, sink: sink, slots: slots,
                        mapping: mapping)
                }
            }
            guard bound == nil else { return }
            for model in models {
                try step(statement, binding: model, entries: entries, sink: sink, slots: slots, mapping: mapping)
            }
        }
        // One model needs no savepoint: a single statement is atomic already.
        if Models.self == CollectionOfOne<Models.Element>.self {
            try body()
        } else {
            try inSavepoint(body)
        }
    }

    /// Binds `entries` of `model` to `statement` (`sink` binds through `slots`) and runs it once.
    /// `entries` is an array, not any collection: called from another module, this function runs
    /// unspecialized, where iterating a generic collection costs a witness call per entry.
    ///
    /// - Throws: ``RecordEncodingError`` when a value cannot be encoded, ``SQLiteError`` (with the
    ///   bound values, kept out of its description) when the statement fails.
    func step<Model: SQLiteStorable>(
        _ statement: Statement, binding model: Model, entries: [Int], sink: RowEncodingSink,
        slots: [ColumnSlot], mapping: TableMapping<Model>
    ) throws {
        try withUnsafePointer(to: model) { model in
            try step(statement, bindingModelAt: model, entries: entries, sink: sink, slots: slots, mapping: mapping)
        }
    }

    /// ``step(_:binding:entries:sink:slots:mapping:)`` for the model at `model`, which a loop over an
    /// array's buffer passes without copying the model out of the array (unspecialized, a copy is a
    /// value-witness call, and the array's subscript a metadata lookup, per row).
    func step<Model: SQLiteStorable>(
        _ statement: Statement, bindingModelAt model: UnsafePointer<Model>, entries: [Int], sink: RowEncodingSink,
        slots: [ColumnSlot], mapping: TableMapping<Model>
    ) throws {
        statement.beginRecordRow()
        let coders = mapping.coders
        let readers = mapping.fastReaders
        let base = UnsafeRawPointer(model)
        for index in entries {
            if let reader = readers[index] {
                let parameter = slots[index].index
                guard parameter > 0 else { continue }
                let code = reader.bind(base, to: statement, at: parameter)
                if code != FastColumnReader.notBound {
                    if code != 0 { throw self.error(code: code, sql: statement.sql) }
                    continue
                }
            }
            do {
                try coders[index].encode(model.pointee, to: sink, at: index)
            } catch let error as SQLiteError {
                throw error
            } catch {
                throw RecordEncodingError(
                    modelType: "\(Model.self)", keyPath: "\(mapping.keySet.entries[index].keyPath)",
                    column: mapping.columns[index].name, underlyingError: error)
            }
        }
        do {
            try statement.step()
        } catch let error as SQLiteError {
            // The values stay out of the description, but are there for debugging.
            let capture = CapturingEncodingSink(slots: slots)
            for index in entries { try? coders[index].encode(model.pointee, to: capture, at: index) }
            throw SQLiteError(
                code: error.code, message: error.message, sql: error.sql,
                arguments: StatementArguments(positional: capture.values))
        }
    }
}

// MARK: - Reading records

extension Database {
    /// The model whose primary key is `id`, or `nil`.
    ///
    /// ```swift
    /// let user = try db.read { try $0.fetch(User.self, id: 42) }
    /// ```
    ///
    /// - Throws: ``SQLiteError`` or `VariablyCodingError`.
    public func fetch<Model: SQLiteStorable>(_ type: Model.Type, id: some Encodable) throws -> Model? {
        let mapping = try TableMapping<Model>.shared
        return try fetch(
            mapping.selectByIDSQL, arguments: StatementArguments([try mapping.primaryKeyValue(id)]),
            mapping: mapping, slots: mapping.readSlots
        ).first
    }

    /// Every model of the table, in rowid order.
    ///
    /// ```swift
    /// let users = try db.read { try $0.fetchAll(User.self) }
    /// ```
    ///
    /// - Throws: ``SQLiteError`` or `VariablyCodingError`.
    /// - Complexity: O(*n*) in the number of rows.
    @inlinable
    public func fetchAll<Model: SQLiteStorable>(_ type: Model.Type) throws -> [Model] {
        try allRows(of: type).collect()
    }

    /// The cursor of ``fetchAll(_:)``: every row of the model's table.
    ///
    /// - Throws: ``SQLiteError``.
    @usableFromInline func allRows<Model: SQLiteStorable>(of type: Model.Type) throws -> RowCursor<Model> {
        let mapping = try TableMapping<Model>.shared
        return try RowCursor(
            statement: try cachedStatement(sql: mapping.selectSQL), arguments: [], mapping: mapping,
            slots: mapping.readSlots)
    }

    /// Models read from hand-written SQL; columns are matched to the `sqlite` key set by name, once
    /// per query. Properties without a column decode as missing (`nil` for optionals).
    ///
    /// ```swift
    /// let users = try db.fetch(User.self, sql: "SELECT * FROM users WHERE age > ? LIMIT 10", arguments: [30])
    /// ```
    ///
    /// - Throws: ``SQLiteError`` or `VariablyCodingError`.
    /// - Complexity: O(*n*) in the number of rows.
    public func fetch<Model: SQLiteStorable>(
        _ type: Model.Type, sql: String, arguments: StatementArguments = []
    ) throws -> [Model] {
        let mapping = try TableMapping<Model>.shared
        let statement = try cachedStatement(sql: sql)
        return try fetch(statement, arguments: arguments, mapping: mapping, slots: mapping.readSlots(for: statement))
    }

    func fetch<Model: SQLiteStorable>(
        _ sql: String, arguments: StatementArguments, mapping: TableMapping<Model>, slots: [ColumnSlot]
    ) throws -> [Model] {
        try fetch(try cachedStatement(sql: sql), arguments: arguments, mapping: mapping, slots: slots)
    }

    func fetch<Model: SQLiteStorable>(
        _ statement: Statement, arguments: StatementArguments, mapping: TableMapping<Model>, slots: [ColumnSlot]
    ) throws -> [Model] {
        try RowCursor(statement: statement, arguments: arguments, mapping: mapping, slots: slots).collect()
    }
}

extension TableMapping {
    func primaryKeyValue(_ id: some Encodable) throws -> SQLValue {
        try ColumnValueCoding.encode(id, kind: columns[primaryKeyEntry].kind)
    }
}
