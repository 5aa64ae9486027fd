import Foundation

// MARK: - Merging records into their rows

extension Database {
    /// Upserts models, but an existing row keeps the columns of entries not in `updatedEntries`
    /// (positions in the `sqlite` key set): a pull overwrites what the server sends and leaves
    /// local-only columns alone. A new row takes every column from the model.
    ///
    /// An existing row's indexed columns (those of the table's `.index` and `.unique` elements, other
    /// than the primary key) are written only when their values change. SQLite rewrites an index
    /// entry whenever one of its columns is in an `UPDATE`'s (or an upsert's `DO UPDATE`'s) `SET`
    /// list, whatever the value (https://www.sqlite.org/lang_upsert.html,
    /// https://www.sqlite.org/lang_update.html), which for a table with indexes can double the pages a
    /// commit writes. So an existing row gets the upsert with the other columns only, then, per group
    /// of columns sharing an index, `UPDATE ... WHERE pk = ? AND (column IS NOT ? ...)`. Values are
    /// compared with `IS NOT` (NULL is a value like any other) and the `BINARY` collation, so a change
    /// that a column's collation would ignore (letter case under `NOCASE`) is still written.
    ///
    /// A unique value may move from one row of `models` to another (two rows swap their unique
    /// names): SQLite checks unique indexes row by row, so a row that a unique index refuses is retried
    /// after the others, and when no row moves forward any more, the refused rows' unique columns are
    /// first set to random placeholders (blobs), then to their values. A conflict that remains (a value
    /// that another row keeps) throws, and nothing is written.
    ///
    /// - Parameters:
    ///   - models: The models; a model whose key comes again later in `models` is overwritten by the
    ///     later one.
    ///   - keys: The models' primary keys, in the same order: they tell new rows from existing ones.
    ///     They only choose the statements; a row they wrongly call new is still updated fully.
    ///   - updatedEntries: The entries an existing row takes from the model.
    ///   - atomically: Whether a failure leaves nothing written (a savepoint around the writes). Pass
    ///     `false` only inside a transaction that is rolled back on any error: a savepoint makes SQLite
    ///     copy, for every statement that checks a foreign key, each page the statement touches into the
    ///     savepoint's journal, which spills to a temporary file; without it, a table with references
    ///     syncs about twice as fast.
    /// - Returns: How many rows were inserted (distinct keys that no row had).
    /// - Throws: ``SQLiteError`` or ``RecordEncodingError``; then nothing is written when `atomically`.
    /// - Complexity: O(m log n) for m models on a table of n rows, plus, when unique values move
    ///   between rows, O(r²) statements for the r rows that wait for others.
    @discardableResult
    package func upsert<Model: SQLiteStorable>(
        _ models: [Model], primaryKeys keys: [SQLValue], updatingEntries updatedEntries: [Int], atomically: Bool = true
    ) throws -> Int {
        precondition(models.count == keys.count, "upsert(_:primaryKeys:updatingEntries:) needs one key per model.")
        let mapping = try TableMapping<Model>.shared
        let plan = mapping.mergingPlans.plan(updating: updatedEntries) {
            MergingUpsertPlan(mapping: mapping, updatedEntries: updatedEntries)
        }
        let existing = try existingPrimaryKeys(Model.self, among: keys)
        let inserted = Self.distinctCount(of: keys) - existing.count
        guard !plan.groups.isEmpty else {
            try run(plan.insertSQL, slots: mapping.insertSlots, models: models, mapping: mapping)
            return inserted
        }
        func merge(_ models: UnsafeBufferPointer<Model>) throws {
            var merger = try RowMerger(database: self, plan: plan, mapping: mapping, existing: existing)
            // Rows a unique index refused, in order, and their keys: a later model with one of those
            // keys waits behind them, so that it still wins.
            var waiting: [Int] = []
            var waitingKeys: Set<SQLValue> = []
            guard let first = models.baseAddress else { return }
            for index in models.indices {
                if !waitingKeys.isEmpty, waitingKeys.contains(keys[index]) {
                    waiting.append(index)
                } else if try !merger.merge(first + index, key: keys[index]) {
                    waiting.append(index)
                    waitingKeys.insert(keys[index])
                }
            }
            var parked: Set<SQLValue> = []
            while !waiting.isEmpty {
                var stillWaiting: [Int] = []
                waitingKeys.removeAll(keepingCapacity: true)
                for index in waiting {
                    let isBlocked = waitingKeys.contains(keys[index])
                    if try isBlocked || !merger.merge(first + index, key: keys[index]) {
                        stillWaiting.append(index)
                        waitingKeys.insert(keys[index])
                    }
                }
                if stillWaiting.count == waiting.count {
                    // No row moved: take the waiting rows' unique values out of the way, once per row (a
                    // new row is not there yet: parking it changes nothing).
                    let toPark = stillWaiting.filter { !parked.contains(keys[$0]) }
                    guard !toPark.isEmpty else {
                        throw merger.lastRefusal ?? SQLiteError(code: .constraintUnique, sql: plan.insertSQL)
                    }
                    for index in toPark where parked.insert(keys[index]).inserted {
                        try merger.park(models[index])
                    }
                }
                waiting = stillWaiting
            }
        }
        try models.withUnsafeBufferPointer { models in
            if atomically { try inSavepoint { try merge(models) } } else { try merge(models) }
        }
        return inserted
    }
}

/// The statements of ``Database/upsert(_:primaryKeys:updatingEntries:)`` for one set of updated entries.
struct MergingUpsertPlan {
    /// Inserts a new row; on a primary key conflict, sets every updated column.
    let insertSQL: String
    /// Inserts a new row; on a primary key conflict, sets the updated columns that no index covers.
    let updateSQL: String
    /// The updated columns that share an index, one group per `UPDATE`.
    let groups: [Group]

    struct Group {
        /// `UPDATE t SET a = ?1, ... WHERE pk = ?n AND (a IS NOT ?1 COLLATE BINARY OR ...)`.
        let sql: String
        /// The entries ``sql`` binds, the primary key's last.
        let entries: [Int]
        /// Parameter `slots[i].index` of ``sql`` is entry `i`; 0 for entries not bound.
        let slots: [ColumnSlot]
        /// `UPDATE t SET a = randomblob(16), ... WHERE pk = ?1`, to move the group's values out of a
        /// unique index's way; `nil` when none of the group's indexes is unique.
        let parkSQL: String?
        /// The slots of ``parkSQL``: the primary key only.
        let parkSlots: [ColumnSlot]
    }

    init<Model>(mapping: TableMapping<Model>, updatedEntries: [Int]) {
        let updated = Set(updatedEntries).subtracting([mapping.primaryKeyEntry])
        let names = mapping.columns.map(\.quotedName)
        let primaryKey = mapping.primaryKeyEntry
        let groups = mapping.indexGroups.compactMap { group in
            let entries = group.entries.filter(updated.contains)
            return entries.isEmpty ? nil : (entries: entries, isUnique: group.isUnique)
        }
        let indexed = Set(groups.flatMap(\.entries))
        func upsertSQL(setting entries: [Int]) -> String {
            // https://www.sqlite.org/lang_upsert.html; with no column to set there is nothing to update.
            mapping.insertSQL + " ON CONFLICT (\(names[primaryKey])) "
                + (entries.isEmpty
                    ? "DO NOTHING"
                    : "DO UPDATE SET " + entries.map { "\(names[$0]) = excluded.\(names[$0])" }.joined(separator: ", "))
        }
        func slots(binding entries: [Int]) -> [ColumnSlot] {
            var slots = mapping.columns.map { ColumnSlot(type: $0.storedType, kind: $0.kind, index: 0) }
            for (position, entry) in entries.enumerated() {
                slots[entry] = ColumnSlot(
                    type: mapping.columns[entry].storedType, kind: mapping.columns[entry].kind,
                    index: Int32(position + 1))
            }
            return slots
        }
        let setEntries = mapping.columns.indices.filter(updated.contains)
        insertSQL = upsertSQL(setting: setEntries)
        updateSQL = upsertSQL(setting: setEntries.filter { !indexed.contains($0) })
        self.groups = groups.map { entries, isUnique in
            let assignments = entries.enumerated().map { "\(names[$1]) = ?\($0 + 1)" }
            // https://www.sqlite.org/lang_expr.html#isisnot; an explicit COLLATE wins over the column's.
            let changes = entries.enumerated().map { "\(names[$1]) IS NOT ?\($0 + 1) COLLATE BINARY" }
            let sql =
                "UPDATE \(mapping.quotedTable) SET " + assignments.joined(separator: ", ")
                + " WHERE \(names[primaryKey]) = ?\(entries.count + 1) AND (" + changes.joined(separator: " OR ") + ")"
            let parkSQL =
                "UPDATE \(mapping.quotedTable) SET "
                + entries.map { "\(names[$0]) = randomblob(16)" }.joined(separator: ", ")
                + " WHERE \(names[primaryKey]) = ?1"
            return Group(
                sql: sql, entries: entries + [primaryKey], slots: slots(binding: entries + [primaryKey]),
                parkSQL: isUnique ? parkSQL : nil, parkSlots: slots(binding: [primaryKey]))
        }
    }
}

/// Writes models into their rows with the statements of a ``MergingUpsertPlan``, one at a time.
private struct RowMerger<Model: SQLiteStorable> {
    let database: Database
    let mapping: TableMapping<Model>
    /// A plain `INSERT`, for the keys that no row had: SQLite runs it with less work than an upsert
    /// (no conflict target to check for a `DO UPDATE`).
    let plainInsert: (statement: Statement, sink: RowEncodingSink)
    let insert: (statement: Statement, sink: RowEncodingSink)
    let update: (statement: Statement, sink: RowEncodingSink)
    let groups: [(statement: Statement, sink: RowEncodingSink, plan: MergingUpsertPlan.Group)]
    /// Every entry, for the upserts.
    private let entries: [Int]
    /// The keys of the rows the table had before: the others are inserted by a plain `INSERT`; a key
    /// that it finds taken (one that comes twice, or a key that `keys` wrongly called new) is written
    /// by the statement that also updates every column.
    private let existing: Set<SQLValue>
    /// The last error of a row that a unique index refused.
    private(set) var lastRefusal: SQLiteError?

    init(database: Database, plan: MergingUpsertPlan, mapping: TableMapping<Model>, existing: Set<SQLValue>) throws {
        func prepared(_ sql: String, _ slots: [ColumnSlot]) throws -> (Statement, RowEncodingSink) {
            let statement = try database.cachedStatement(sql: sql)
            return (statement, RowEncodingSink(statement: statement, slots: slots))
        }
        self.database = database
        self.mapping = mapping
        plainInsert = try prepared(mapping.insertSQL, mapping.insertSlots)
        insert = try prepared(plan.insertSQL, mapping.insertSlots)
        update = try prepared(plan.updateSQL, mapping.insertSlots)
        groups = try plan.groups.map { group in
            let (statement, sink) = try prepared(group.sql, group.slots)
            return (statement, sink, group)
        }
        self.existing = existing
        entries = Array(mapping.coders.indices)
    }

    /// Writes `model` into its row, or inserts it.
    ///
    /// - Returns: `false` when a unique index refused the row: it is left as it was, or with its
    ///   columns that no index covers written, and can be merged again later.
    mutating func merge(_ model: UnsafePointer<Model>, key: SQLValue) throws -> Bool {
        do {
            if !existing.isEmpty, existing.contains(key) {
                try database.step(
                    update.statement, bindingModelAt: model, entries: entries, sink: update.sink,
                    slots: mapping.insertSlots, mapping: mapping)
                for group in groups {
                    try database.step(
                        group.statement, bindingModelAt: model, entries: group.plan.entries, sink: group.sink,
                        slots: group.plan.slots, mapping: mapping)
                }
            } else {
                do {
                    try database.step(
                        plainInsert.statement, bindingModelAt: model, entries: entries, sink: plainInsert.sink,
                        slots: mapping.insertSlots, mapping: mapping)
                } catch let error as SQLiteError where ResultCode.constraintPrimaryKey.matches(error.code) {
                    // SQLite undid the failed statement alone (https://www.sqlite.org/lang_conflict.html,
                    // ABORT): the upsert writes the row over the one with its key.
                    try database.step(
                        insert.statement, bindingModelAt: model, entries: entries, sink: insert.sink,
                        slots: mapping.insertSlots, mapping: mapping)
                }
            }
        } catch let error as SQLiteError where ResultCode.constraintUnique.matches(error.code) {
            lastRefusal = error
            return false
        }
        return true
    }

    /// Sets the unique-indexed columns of `model`'s row to random blobs, which no other row has.
    func park(_ model: Model) throws {
        for group in groups {
            guard let sql = group.plan.parkSQL else { continue }
            let statement = try database.cachedStatement(sql: sql)
            try database.step(
                statement, binding: model, entries: [mapping.primaryKeyEntry],
                sink: RowEncodingSink(statement: statement, slots: group.plan.parkSlots), slots: group.plan.parkSlots,
                mapping: mapping)
        }
    }
}
