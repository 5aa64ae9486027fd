import Foundation
import VariablyCodable
import VariablySQLite

/// One table's share of a ``SyncStore`` batch, as the writer applies it: the table's records held
/// by earlier batches, then its changes in every page of this one, the last change of each record
/// winning. The store applies the saves of every table parents first and the deletions children first,
/// inside one transaction; records found orphaned are parked and the batch is applied again
/// without them.
protocol TableBatching: AnyObject {
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
    /// What the batch did to the table, as a report of its model.
    func report(pages: Int) -> any SyncReportMerging
}

/// ``TableBatching`` for `Model`'s table. Lives only inside the writer's transaction.
final class TableBatch<Model: SQLiteStorable & Identifiable & Sendable>: TableBatching
where Model.ID: Codable & Sendable {
    let applier: PageApplier<Model>
    let primaryKey: PrimaryKey<Model>
    let references: [TableReference]
    /// The records to write, one per key, in the order their keys first appeared: their keys, models
    /// and versions side by side, as ``PageApplier/apply(_:keys:versions:deletedKeys:_:)`` takes them.
    private var saveKeys: [SQLValue] = []
    private var saveModels: [Model] = []
    private var saveVersions: [String?] = []
    private var deletions: [SQLValue] = []
    private let versioned: Bool
    private let pulled: Int
    private let skipped: [SkippedRecord<Model.ID>]
    private var counts = PageApplier<Model>.Counts()
    private var parkedCount = 0

    var table: String { primaryKey.table }

    /// The batch of `pages`, decoded off the writer, after the table's parked records.
    ///
    /// - Complexity: O(r) for r records: one hash of each key, one copy of each model written.
    init(pages: [Repository<Model>.FetchedPage], applier: PageApplier<Model>, versioned: Bool, _ db: Database) throws {
        self.applier = applier
        self.primaryKey = PrimaryKey<Model>()
        self.references = primaryKey.references
        self.versioned = versioned
        pulled = pages.reduce(0) { $0 + $1.recordCount }
        skipped = pages.flatMap(\.skipped)
        let decoder = KeySetJSONDecoder(source: .remote)
        // A parked record that no longer decodes (the model changed since) waits no more: the server sends
        // it again on a resync.
        let parkedRecords = try applier.state.parkedRecords(db)
        var held: (models: [Model], versions: [String?]) = ([], [])
        for record in parkedRecords {
            guard let model = try? decoder.decode(Model.self, from: record.record) else { continue }
            held.models.append(model)
            held.versions.append(record.version)
        }
        let capacity = held.models.count + pages.reduce(0) { $0 + $1.models.count + $1.page.deletedIDs.count }
        var recording = BatchChanges(capacity: capacity)
        let heldPage = Int32(pages.count)
        for (index, model) in held.models.enumerated() {
            recording.record(BatchChange(key: try primaryKey.sqlValue(of: model.id), page: heldPage, index: Int32(index)))
        }
        for (number, page) in pages.enumerated() {
            recording.record(page.keys, page: Int32(number))
            for id in page.page.deletedIDs {
                recording.record(BatchChange(key: try primaryKey.sqlValue(of: id), page: -1, index: 0))
            }
        }
        let total = recording.recorded
        let changes = recording.changes
        saveKeys.reserveCapacity(changes.count)
        saveModels.reserveCapacity(changes.count)
        if versioned { saveVersions.reserveCapacity(changes.count) }
        if changes.count == total {
            // No record changed twice (the usual batch): the models are copied a page at a time.
            // Element by element, this code (generic, reached through the store's type-erased members)
            // looks up `Model`'s metadata on every copy, which cost more than SQLite's inserts.
            for change in changes {
                if change.page == -1 { deletions.append(change.key) } else { saveKeys.append(change.key) }
            }
            saveModels.append(contentsOf: held.models)
            if versioned { saveVersions.append(contentsOf: held.versions) }
            for page in pages {
                saveModels.append(contentsOf: page.models)
                if versioned { saveVersions.append(contentsOf: page.versions ?? Array(repeating: nil, count: page.models.count)) }
            }
            return
        }
        for change in changes {
            switch change.page {
            case -1:
                deletions.append(change.key)
            case heldPage:
                saveKeys.append(change.key)
                saveModels.append(held.models[Int(change.index)])
                if versioned { saveVersions.append(held.versions[Int(change.index)]) }
            default:
                let page = pages[Int(change.page)]
                saveKeys.append(change.key)
                saveModels.append(page.models[Int(change.index)])
                if versioned { saveVersions.append(page.versions?[Int(change.index)]) }
            }
        }
    }

    func applySaves(excluding excluded: Set<SQLValue>, _ db: Database) throws -> [SQLValue] {
        try applier.state.releaseParkedRecords(db)
        guard !excluded.isEmpty else {
            counts = try applier.apply(saveModels, keys: saveKeys, versions: versioned ? saveVersions : nil, deletedKeys: [], db)
            parkedCount = 0
            return saveKeys
        }
        var kept: (keys: [SQLValue], models: [Model], versions: [String?]) = ([], [], [])
        var held: [SyncStateStore.ParkedRecord] = []
        let encoder = KeySetJSONEncoder(source: .remote)
        for (index, key) in saveKeys.enumerated() {
            let version = versioned ? saveVersions[index] : nil
            if excluded.contains(key) {
                let model = saveModels[index]
                held.append(
                    SyncStateStore.ParkedRecord(
                        recordID: try Repository<Model>.text(of: model.id), record: try encoder.encode(model), version: version))
            } else {
                kept.keys.append(key)
                kept.models.append(saveModels[index])
                if versioned { kept.versions.append(version) }
            }
        }
        counts = try applier.apply(kept.models, keys: kept.keys, versions: versioned ? kept.versions : nil, deletedKeys: [], db)
        try applier.state.park(held, db)
        parkedCount = held.count
        return kept.keys
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
        report.waitingForParents = parkedCount
        report.isComplete = true
        return report
    }
}

/// Where the last change of a record is: a record of a page (`page` indexes the batch's pages, the
/// parked records being one more page after them), or a deletion (`page` is -1). Not nested in the generic
/// ``TableBatch``: a type nested there is generic too, and an array of it looks up its metadata
/// on every use.
struct BatchChange {
    var key: SQLValue
    var page: Int32
    var index: Int32
}

/// The changes of a batch, one per key: the first change of a key takes the next place; a later
/// one (rare: a record changed twice within a batch) replaces it there.
struct BatchChanges {
    private var place: [SQLValue: Int] = [:]
    private(set) var changes: [BatchChange] = []
    /// Changes recorded, repeated keys included.
    private(set) var recorded = 0

    init(capacity: Int) {
        place.reserveCapacity(capacity)
        changes.reserveCapacity(capacity)
    }

    mutating func record(_ change: BatchChange) {
        recorded += 1
        if let earlier = place.updateValue(changes.count, forKey: change.key) {
            place[change.key] = earlier
            changes[earlier] = change
        } else {
            changes.append(change)
        }
    }

    /// Records the saves of page `page`, whose keys are `keys`.
    mutating func record(_ keys: [SQLValue], page: Int32) {
        for (index, key) in keys.enumerated() { record(BatchChange(key: key, page: page, index: Int32(index))) }
    }
}
