import Foundation
import VariablyCodable
import VariablySQLite

/// What applying pulled records needs of a repository, as a value the database's writer runs: for one
/// repository's page, and for each table's share of a ``SyncStore`` batch of several tables.
struct PageApplier<Model: SQLiteStorable & Identifiable & Sendable>: Sendable where Model.ID: Codable & Sendable {
    /// What one application did.
    struct Counts: Sendable {
        var inserted = 0
        var updated = 0
        var deleted = 0
        /// Records left alone for a queued local change: the push decides about them.
        var keptLocal = 0
    }

    let state: SyncStateStore
    /// The `.sqlite` key set entries a pull overwrites; the others are local-only columns.
    let pulledEntries: [Int]
    /// The text the kept versions of the source's records start with; `nil` for sources without them.
    let versionPrefix: String?

    /// Writes `models` and removes the rows with `deletedKeys`, inside the caller's transaction, which
    /// must be rolled back when this throws (no savepoint of its own: see
    /// `Database.upsert(_:primaryKeys:updatingEntries:atomically:)`). Records with a queued local change
    /// are left alone. Existing rows keep their local-only columns.
    ///
    /// - Parameters:
    ///   - keys: The models' primary keys, in the same order.
    ///   - versions: Each model's version as the server sent it (JSON text), for sources with record
    ///     versions.
    /// - Complexity: O(p log n) for p records on a table of n rows: new and existing rows are told apart
    ///   by one indexed lookup per key, and an existing row's indexed columns are written only when they
    ///   change.
    func apply(
        _ models: [Model], keys: [SQLValue], versions: [String?]?, deletedKeys: [SQLValue], _ db: Database
    ) throws -> Counts {
        let pending = try state.pendingPrimaryKeys(db)
        var upserts = models
        var upsertKeys = keys
        var upsertVersions = versions
        var deletions = deletedKeys
        if !pending.isEmpty {
            let kept = keys.indices.filter { !pending.contains(keys[$0]) }
            upserts = kept.map { models[$0] }
            upsertKeys = kept.map { keys[$0] }
            upsertVersions = versions.map { versions in kept.map { versions[$0] } }
            deletions = deletedKeys.filter { !pending.contains($0) }
        }
        // A newer copy (or the deletion) of a record set aside for its parent replaces the one set aside.
        if try state.parked.parkedRecordCount(db) > 0 {
            try state.parked.forgetParkedRecords(withKeys: upsertKeys + deletions, db)
        }
        if let versionPrefix, let upsertVersions {
            try state.setVersions(
                Array(zip(upsertKeys, upsertVersions)) + deletions.map { ($0, nil) }, prefix: versionPrefix, db)
        }
        // A page may list a record twice: `inserted` counts distinct keys.
        let (inserted, deleted) = try state.withCapturePaused(db) {
            // Every caller's transaction (or savepoint) is rolled back when this throws.
            let inserted = try db.upsert(
                upserts, primaryKeys: upsertKeys, updatingEntries: pulledEntries, atomically: false)
            return (inserted, try db.delete(Model.self, primaryKeys: deletions))
        }
        let keptLocal = (models.count - upserts.count) + (deletedKeys.count - deletions.count)
        return Counts(inserted: inserted, updated: upserts.count - inserted, deleted: deleted, keptLocal: keptLocal)
    }
}
