import Foundation
import VariablyCodable
import VariablySQLite

/// One table's share of a ``SyncStore`` checkpoint, as the writer applies it: the table's records held
/// by earlier checkpoints, then its changes in every page of this one, the last change of each record
/// winning. The store applies the saves of every table parents first and the deletions children first,
/// inside one savepoint; records found orphaned are set aside (held) and the savepoint is applied again
/// without them.
protocol TableCheckpointing: AnyObject {
    /// The table's name.
    var table: String { get }
    /// Writes the saves, except `excluded` ones, which are held; returns the keys written.
    func applySaves(excluding excluded: Set<SQLValue>, _ db: Database) throws -> [SQLValue]
    /// Removes the deleted records.
    func applyDeletions(_ db: Database) throws
    /// The keys among `keys` whose rows reference a row that is not there.
    func orphans(among keys: [SQLValue], _ db: Database) throws -> Set<SQLValue>
    /// Removes the rows with `keys`, without queueing their deletion.
    func remove(_ keys: Set<SQLValue>, _ db: Database) throws
    /// Forgets what the table's pushes acknowledged: the feed is caught up.
    func caughtUp(_ db: Database) throws
    /// Records `cursor` as the table's position: the base of the local changes queued from now on.
    func setPosition(_ cursor: SyncCursor, _ db: Database) throws
    /// What the checkpoint did to the table, as a report of its model.
    func report(pages: Int) -> any SyncReportMerging
}

/// ``TableCheckpointing`` for `Model`'s table. Lives only inside the writer's transaction.
final class TableCheckpoint<Model: SQLiteStorable & Identifiable & Sendable>: TableCheckpointing
where Model.ID: Codable & Sendable {
    let applier: PageApplier<Model>
    let primaryKey: PrimaryKey<Model>
    let references: [TableReference]
    /// The records to write, one per key, in the order their keys first appeared.
    private var saves: [(key: SQLValue, model: Model, version: String?)] = []
    private var deletions: [SQLValue] = []
    private let versioned: Bool
    private let pulled: Int
    private let skipped: [SkippedRecord<Model.ID>]
    private var counts = PageApplier<Model>.Counts()
    private var heldCount = 0

    var table: String { primaryKey.table }

    /// The last change of a record in the checkpoint.
    private enum Change {
        case save(Model, String?)
        case delete
    }

    /// The checkpoint of `pages`, decoded off the writer, after the table's held records.
    init(pages: [Repository<Model>.FetchedPage], applier: PageApplier<Model>, versioned: Bool, _ db: Database) throws {
        self.applier = applier
        self.primaryKey = PrimaryKey<Model>()
        self.references = primaryKey.references
        self.versioned = versioned
        pulled = pages.reduce(0) { $0 + $1.recordCount }
        skipped = pages.flatMap(\.skipped)
        var order: [SQLValue] = []
        var last: [SQLValue: Change] = [:]
        func record(_ key: SQLValue, _ change: Change) {
            if last.updateValue(change, forKey: key) == nil { order.append(key) }
        }
        let decoder = KeySetJSONDecoder(source: .remote)
        for held in try applier.state.heldRecords(db) {
            // A held record that no longer decodes (the model changed since) waits no more: the server
            // sends it again on a resync.
            guard let model = try? decoder.decode(Model.self, from: held.record) else { continue }
            record(try primaryKey.sqlValue(of: model.id), .save(model, held.version))
        }
        for page in pages {
            for (index, model) in page.models.enumerated() {
                record(page.keys[index], .save(model, page.versions?[index]))
            }
            for id in page.page.deletedIDs { record(try primaryKey.sqlValue(of: id), .delete) }
        }
        for key in order {
            switch last[key] {
            case .save(let model, let version): saves.append((key, model, version))
            case .delete: deletions.append(key)
            case nil: break
            }
        }
    }

    func applySaves(excluding excluded: Set<SQLValue>, _ db: Database) throws -> [SQLValue] {
        try applier.state.releaseHeldRecords(db)
        let kept = excluded.isEmpty ? saves : saves.filter { !excluded.contains($0.key) }
        let keys = kept.map(\.key)
        counts = try applier.apply(
            kept.map(\.model), keys: keys, versions: versioned ? kept.map(\.version) : nil, deletedKeys: [], db)
        let encoder = KeySetJSONEncoder(source: .remote)
        let held = try saves.filter { excluded.contains($0.key) }.map { save in
            SyncStateStore.HeldRecord(
                recordID: try Repository<Model>.text(of: save.model.id), record: try encoder.encode(save.model),
                version: save.version)
        }
        try applier.state.hold(held, db)
        heldCount = held.count
        return keys
    }

    func applyDeletions(_ db: Database) throws {
        guard !deletions.isEmpty else { return }
        let removed = try applier.apply([], keys: [], versions: versioned ? [] : nil, deletedKeys: deletions, db)
        counts.deleted = removed.deleted
        counts.keptLocal += removed.keptLocal
    }

    func orphans(among keys: [SQLValue], _ db: Database) throws -> Set<SQLValue> {
        guard !references.isEmpty else { return [] }
        var orphans = Set<SQLValue>()
        for key in keys
        where try applier.state.isOrphan(key, primaryKeyColumn: primaryKey.quotedColumn, references: references, db) {
            orphans.insert(key)
        }
        return orphans
    }

    func remove(_ keys: Set<SQLValue>, _ db: Database) throws {
        _ = try applier.state.withCapturePaused(db) { try db.delete(Model.self, primaryKeys: Array(keys)) }
    }

    func caughtUp(_ db: Database) throws {
        try applier.state.forgetAcknowledgements(db)
    }

    func setPosition(_ cursor: SyncCursor, _ db: Database) throws {
        try applier.state.setCursor(cursor, db)
    }

    func report(pages: Int) -> any SyncReportMerging {
        var report = SyncReport<Model.ID>()
        report.pulled = pulled
        report.pages = pages
        report.inserted = counts.inserted
        report.updated = counts.updated
        report.deleted = counts.deleted
        report.keptLocal = counts.keptLocal
        report.skipped = skipped
        report.waitingForParents = heldCount
        report.isComplete = true
        return report
    }
}
