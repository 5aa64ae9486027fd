import Foundation
import VariablySQLite

/// The one place where pulled pages become transactions, for a ``Repository`` pulling its own source
/// (the one-table case), a ``SyncStore`` pulling table by table, and a ``SyncStore`` pulling a feed of
/// several tables.
///
/// A batch (one page of one table, or a feed's pages of every table) is applied with the cursor that
/// passed it in one transaction: the saves of every table parents first, then the deletions children
/// first, then the cursor. Nothing a server sends stops the cursor:
/// - a record whose parent is not in the cache (another table's, or its own table's: a reply served
///   before the comment it replies to, a cycle) is **parked** with its JSON and version in the same
///   transaction, never shown to a reader, and applied by the batch its parents arrive in;
/// - a parked record whose parent the server deleted is settled by the reference's declared rule
///   (`.cascade`: dropped, `.setNull`: applied with the reference emptied, `.restrict`: kept parked);
/// - a cached row whose parent the server deleted while keeping it (a restricting reference) is parked
///   the same way;
/// - a record the model cannot decode is parked too, and decoded again by later syncs.
///
/// The deferred foreign keys (https://www.sqlite.org/foreignkeys.html#fk_deferred) are the test: only
/// when the transaction has broken one (`SQLITE_DBSTATUS_DEFERRED_FKS`) does the engine look for the
/// orphans, roll back, and apply the batch again with them parked.
struct PullEngine: Sendable {
    let database: SQLiteDatabase
    /// Every table the batches may touch, each after the tables it references.
    let tables: [any EngineTable]

    /// Orphans found while a batch was applied: for each table, the keys to park and the values of
    /// their reference columns (a JSON object).
    private struct OrphansFound: Error {
        let keys: [String: [SQLValue: String?]]
    }

    /// Applies `parts` (each table's decoded pages) and the position `setPosition` writes in one
    /// transaction, parking what cannot be applied yet.
    ///
    /// - Parameters:
    ///   - parts: The decoded pages of each table, by table name; tables without pages take part only
    ///     for their parked records whose parents are here now.
    ///   - setPosition: Writes the cursors, inside the transaction, after the records.
    /// - Returns: What the batch did, one report per model whose table took part.
    /// - Throws: ``SyncError/foreignKeyViolation(table:recordID:reference:)`` if a broken reference is
    ///   still left after every round (a table the engine does not know), `SQLiteError`.
    /// - Complexity: O(p log n) for p records; with orphans, one more look-up per applied record and
    ///   reference, and the batch applied once more.
    func apply(
        _ parts: [String: any TablePages],
        setPosition: @escaping @Sendable (Database) throws -> Void
    ) async throws {
        let tables = self.tables
        var excluded: [String: [SQLValue: String?]] = [:]
        // Each round parks at least one record the rounds before did not (a chain of replies served
        // child first parks one more level a round), else it stops with the violation: the rounds are
        // bounded by the records of the batch, never by a constant.
        while true {
            let parking = excluded
            do {
                let outcomes = try await database.write { db in
                    let parked = try ParkedRecords.tablesWithParkedRecords(db)
                    var members: [(table: any EngineTable, batch: any TableBatching)] = []
                    var applied: [[SQLValue]] = []
                    // Parents first, each table's batch made once the tables before it are written, so
                    // that it takes the parked records whose parents those brought.
                    for table in tables {
                        let pages = parts[table.name]
                        let hasParked = parked.contains(table.name)
                        guard pages != nil || hasParked || parking[table.name] != nil else { continue }
                        let batch = try (pages ?? table.makePages()).makeBatch(hasParked: hasParked, db)
                        if pages == nil, batch.isEmpty, parking[table.name] == nil { continue }
                        members.append((table, batch))
                        applied.append(
                            try batch.applySaves(excluding: parking[table.name] ?? [:], parkingCachedRows: true, db))
                    }
                    for member in members.reversed() { try member.batch.applyDeletions(db) }
                    let settled = try Self.settleParkedChildren(of: members.map(\.batch), among: tables, db)
                    // Records parked for a parent of their own table (a reply before the comment it
                    // replies to), or of a table written after theirs (a cycle), whose parent this batch
                    // brought: applied in the same transaction, until none is left ready.
                    let hadParked = try ParkedRecords.tablesWithParkedRecords(db)
                    // Each pass applies at least one parked record or ends: at most one a record.
                    for _ in 0...(try ParkedRecords.parkedRecordCount(db)) {
                        var isDone = true
                        for table in tables where hadParked.contains(table.name) {
                            let batch = try table.makePages().makeBatch(hasParked: true, db)
                            guard !batch.isEmpty else { continue }
                            isDone = false
                            members.append((table, batch))
                            // Its saves are parked records only: an excluded key that is none of them is
                            // the first batch's to settle, never a cached row to take out again (that would
                            // park the old copy over the new one, and empty its replies' references).
                            applied.append(
                                try batch.applySaves(
                                    excluding: parking[table.name] ?? [:], parkingCachedRows: false, db))
                        }
                        if isDone { break }
                    }
                    if db.hasUnresolvedForeignKeys {
                        let found = try Self.orphans(members.map(\.batch), applied: applied, among: tables, db)
                        if Self.parksMore(found, than: parking) { throw OrphansFound(keys: found) }
                        throw try Self.violation(among: tables, db)
                    }
                    try setPosition(db)
                    return members.map { $0.batch.outcome() } + settled
                }
                // Committed: each table's run hears what its batch did.
                for outcome in outcomes { outcome.deliver() }
                return
            } catch let found as OrphansFound {
                for (table, keys) in found.keys { excluded[table, default: [:]].merge(keys) { $1 } }
            }
        }
    }

    /// Whether `found` holds an orphan that `parking` does not already exclude.
    private static func parksMore(_ found: [String: [SQLValue: String?]], than parking: [String: [SQLValue: String?]])
        -> Bool
    {
        found.contains { table, keys in keys.keys.contains { parking[table]?[$0] == nil } }
    }

    /// Settles the parked records of every table that reference, through a reference, a record the
    /// server deleted in this batch.
    ///
    /// - Returns: What was settled, for each table's run once the transaction commits.
    private static func settleParkedChildren(
        of batches: [any TableBatching], among tables: [any EngineTable], _ db: Database
    ) throws -> [any BatchOutcome] {
        var settled: [any BatchOutcome] = []
        for batch in batches where !batch.deletedKeys.isEmpty {
            settled += try settleParkedChildren(ofDeleted: batch.deletedKeys, in: batch.table, among: tables, db)
        }
        return settled
    }

    /// Settles the parked records of every table that reference the records with `keys` of `table`,
    /// which the server deleted (see ``SyncStateStore/settleParkedRecords(referencing:deletedKeys:_:)``).
    ///
    /// - Returns: What was settled, by table and rule, for each table's run once the transaction commits.
    static func settleParkedChildren(
        ofDeleted keys: [SQLValue], in table: String, among tables: [any EngineTable], _ db: Database
    ) throws -> [any BatchOutcome] {
        var settled: [any BatchOutcome] = []
        for child in tables {
            for reference in child.references where reference.parentTable == table {
                let count = try ParkedRecords(table: child.name).settleParkedRecords(
                    referencing: reference, deletedKeys: keys, db)
                if count > 0 { settled.append(SettledOrphans(table: child, rule: reference.onDelete, count: count)) }
            }
        }
        return settled
    }

    /// The rows that reference a row that is not there, and those whose parents are among them, with
    /// the values of their reference columns: first among the applied records (one look-up each), then,
    /// if a broken reference is left, through `PRAGMA foreign_key_check` on every table (a cached row
    /// whose parent the server deleted). Each found row is removed, inside the transaction the caller
    /// rolls back, and the rest looked at again, until none is found.
    private static func orphans(
        _ batches: [any TableBatching], applied: [[SQLValue]], among tables: [any EngineTable], _ db: Database
    ) throws -> [String: [SQLValue: String?]] {
        var found: [String: [SQLValue: String?]] = [:]
        var remaining = applied
        var isLookingAtApplied = true
        while db.hasUnresolvedForeignKeys {
            var more = false
            if isLookingAtApplied {
                for (index, batch) in batches.enumerated() {
                    let orphans = try batch.orphans(among: remaining[index], db)
                    guard !orphans.isEmpty else { continue }
                    more = true
                    remaining[index].removeAll { orphans.contains($0) }
                    try take(orphans, from: tables.first { $0.name == batch.table }, into: &found, db)
                }
            }
            if !more {
                isLookingAtApplied = false
                for table in tables where !table.references.isEmpty {
                    let orphans = try brokenRows(of: table, db)
                    guard !orphans.isEmpty else { continue }
                    more = true
                    try take(orphans, from: table, into: &found, db)
                }
            }
            if !more { break }
        }
        return found
    }

    /// Records the rows with `keys` of `table` as found, with their reference values, and removes them.
    private static func take(
        _ keys: Set<SQLValue>, from table: (any EngineTable)?, into found: inout [String: [SQLValue: String?]],
        _ db: Database
    ) throws {
        guard let table else { return }
        let state = SyncStateStore(table: table.name)
        let primaryKeyColumn = try primaryKeyColumn(of: table.name, db)
        for key in keys {
            found[table.name, default: [:]][key] = try state.parked.referenceValues(
                of: key, primaryKeyColumn: primaryKeyColumn, references: table.references, db)
        }
        try state.withCapturePaused(db) {
            for key in keys {
                try db.execute(
                    sql: "DELETE FROM \(SQL.quote(table.name)) WHERE \(primaryKeyColumn) = ?", arguments: [key])
            }
        }
    }

    /// The primary keys of `table`'s rows that break a foreign key
    /// (https://www.sqlite.org/pragma.html#pragma_foreign_key_check).
    ///
    /// - Complexity: A scan of the table: only run when a broken reference is left after the applied
    ///   records were looked at.
    private static func brokenRows(of table: any EngineTable, _ db: Database) throws -> Set<SQLValue> {
        let primaryKeyColumn = try primaryKeyColumn(of: table.name, db)
        var keys = Set<SQLValue>()
        for row in try db.fetch(sql: "PRAGMA foreign_key_check(\(SQL.quote(table.name)))") {
            guard let rowid = row.integer("rowid") else { continue }
            if let key = try db.fetchValue(
                sql: "SELECT \(primaryKeyColumn) FROM \(SQL.quote(table.name)) WHERE rowid = ?", arguments: [rowid])
            {
                keys.insert(key)
            }
        }
        return keys
    }

    /// `table`'s primary key column, quoted.
    private static func primaryKeyColumn(of table: String, _ db: Database) throws -> String {
        let name = try db.fetchValue(
            sql: "SELECT name FROM pragma_table_info(?) WHERE pk = 1", arguments: [table])
        guard case .text(let column)? = name else { return "rowid" }
        return SQL.quote(column)
    }

    /// The error naming the first row that still breaks a foreign key: the table, the record and the
    /// reference.
    private static func violation(among tables: [any EngineTable], _ db: Database) throws -> SyncError {
        var candidates = tables.map(\.name)
        candidates += try db.fetch(sql: "SELECT name FROM sqlite_schema WHERE type = 'table'")
            .compactMap { row in row.text("name").flatMap { candidates.contains($0) ? nil : $0 } }
        for table in candidates {
            for row in try db.fetch(sql: "PRAGMA foreign_key_check(\(SQL.quote(table)))") {
                guard let parent = row.text("parent") else { continue }
                let primaryKeyColumn = try primaryKeyColumn(of: table, db)
                var record = "?"
                if let rowid = row.integer("rowid"),
                    let key = try db.fetchValue(
                        sql: "SELECT \(primaryKeyColumn) FROM \(SQL.quote(table)) WHERE rowid = ?", arguments: [rowid])
                {
                    record = key.description
                }
                return SyncError.foreignKeyViolation(table: table, recordID: record, reference: parent)
            }
        }
        return SyncError.foreignKeyViolation(table: "?", recordID: "?", reference: "?")
    }
}
