import Foundation
import VariablyCodable
import VariablySQLite

/// One table's share of a batch, as the `PullEngine` applies it inside the writer's transaction: the
/// table's parked records whose parents are here now, then its changes in every page of the batch, the
/// last change of each record winning. The engine applies the saves of every table parents first and
/// the deletions children first; records found orphaned are parked and the batch is applied again
/// without them.
protocol TableBatching: AnyObject {
    /// The table's name.
    var table: String { get }
    /// Whether the batch has nothing to do: no page, no parked record ready.
    var isEmpty: Bool { get }
    /// The keys of the records the server deleted in this batch.
    var deletedKeys: [SQLValue] { get }
    /// Writes the saves, except `excluded` ones, which are parked with the reference values given;
    /// with `parkingCachedRows`, an excluded key that is no save of this batch is a cached row (one
    /// whose parent the server deleted) and is taken out of the table and parked too. Returns the keys
    /// written.
    func applySaves(excluding excluded: [SQLValue: String?], parkingCachedRows: Bool, _ db: Database) throws
        -> [SQLValue]
    /// Removes the deleted records.
    func applyDeletions(_ db: Database) throws
    /// The keys among `keys` whose rows reference a row that is not there.
    func orphans(among keys: [SQLValue], _ db: Database) throws -> Set<SQLValue>
    /// What the batch did to the table, to hand to the table's run once the transaction commits.
    func outcome() -> any BatchOutcome
}

/// What a batch did to one table, handed to the table's run (its ``RunTally``) once the batch's
/// transaction has committed.
protocol BatchOutcome: Sendable {
    func deliver()
}

/// Records parked for a parent the server deleted, settled by their reference's rule.
struct SettledOrphans: BatchOutcome {
    let table: any EngineTable
    let rule: ReferenceAction
    let count: Int

    func deliver() {
        table.noteSettledOrphans(count, by: rule)
    }
}

/// ``BatchOutcome`` of a table whose records are named by `ID`.
struct TableOutcome<ID: Hashable & Sendable>: BatchOutcome {
    let report: SyncReport<ID>
    let tally: RunTally<ID>

    func deliver() {
        tally.add(report)
    }
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
    private(set) var deletedKeys: [SQLValue] = []
    private let versioned: Bool
    private let pulled: Int
    private let skipped: [SkippedRecord<Model.ID>]
    /// The server's JSON of the skipped records, parked as undecodable.
    private let undecodable: [ParkedRecords.ParkedRecord]
    /// The parked records this batch took (ready and decodable), by id: forgotten when applied, parked
    /// again when still orphaned.
    private let takenParked: [StoredRecordID]
    /// The columns to empty after writing, by key: parked records whose parents the server deleted
    /// through an `ON DELETE SET NULL` reference.
    private let emptied: [SQLValue: [String]]
    private let pageCount: Int
    private let tally: RunTally<Model.ID>
    /// The batch's pages, whose bytes a record parked by this batch keeps.
    private let pages: [FetchedPage<Model>]
    /// The server's JSON of the parked records this batch took, by key.
    private let takenRecords: [SQLValue: Data]
    private var counts = PageApplier<Model>.Counts()
    private var parkedCount = 0

    var table: String { primaryKey.table }
    var isEmpty: Bool { saveKeys.isEmpty && deletedKeys.isEmpty && undecodable.isEmpty && takenParked.isEmpty }

    /// The batch of `pages`, decoded off the writer, after the table's ready parked records.
    ///
    /// - Complexity: O(r) for r records: one hash of each key when the batch has several pages or
    ///   parked records, one copy of each model written.
    init(
        pages: [FetchedPage<Model>], applier: PageApplier<Model>, versioned: Bool, hasParked: Bool,
        tally: RunTally<Model.ID>, _ db: Database
    ) throws {
        self.applier = applier
        self.tally = tally
        pageCount = pages.count
        self.pages = pages
        self.primaryKey = try PrimaryKey<Model>()
        self.references = primaryKey.references
        self.versioned = versioned
        pulled = pages.reduce(0) { $0 + $1.recordCount }
        skipped = pages.flatMap(\.skipped)
        undecodable = pages.flatMap(\.skippedRecords)
        let ready =
            hasParked ? try Self.readyParkedRecords(applier: applier, primaryKey: primaryKey, db) : ReadyParked()
        takenParked = ready.taken
        takenRecords = ready.records
        emptied = ready.emptied
        // A record the model still cannot decode stays parked as it was, undecodable.
        try applier.state.parked.park(ready.undecodable, state: .undecodable, db)
        try collect(pages, after: ready)
        // The latest page's forms of the server's dates: pushes write the model's dates the same way.
        let serverDates = pages.reduce(into: [String: ServerDateFormat]()) { $0.merge($1.serverDates) { $1 } }
        try applier.state.serverDates.noteServerDateFormats(serverDates, db)
    }

    /// The table's parked records whose parents are here now, decoded.
    struct ReadyParked {
        var models: [Model] = []
        var versions: [String?] = []
        /// The ids of the parked records taken.
        var taken: [StoredRecordID] = []
        /// The server's JSON of the parked records taken, by key.
        var records: [SQLValue: Data] = [:]
        /// The columns to empty after writing, by key.
        var emptied: [SQLValue: [String]] = [:]
        /// The ready records the model still cannot decode.
        var undecodable: [ParkedRecords.ParkedRecord] = []
    }

    /// Reads and decodes the table's parked records whose parents are here now.
    private static func readyParkedRecords(
        applier: PageApplier<Model>, primaryKey: PrimaryKey<Model>, _ db: Database
    ) throws -> ReadyParked {
        let decoder = KeySetJSONDecoder(source: .remote)
        var ready = ReadyParked()
        for record in try applier.state.parked.readyParkedRecords(references: primaryKey.references, db) {
            let model: Model
            do {
                model = try decoder.decode(Model.self, from: record.record)
            } catch {
                var record = record
                record.problem = "\(error)"
                ready.undecodable.append(record)
                continue
            }
            ready.taken.append(record.recordID)
            ready.records[try primaryKey.sqlValue(of: model.id)] = record.record
            ready.models.append(model)
            ready.versions.append(record.version)
            if !record.emptied.isEmpty { ready.emptied[try primaryKey.sqlValue(of: model.id)] = record.emptied }
        }
        return ready
    }

    /// Lines up the saves and deletions of `pages` after the ready parked records `held`, the last change
    /// of each record winning.
    private func collect(_ pages: [FetchedPage<Model>], after held: ReadyParked) throws {
        if held.models.isEmpty, pages.count == 1, let page = pages.first {
            // One page and nothing parked (a lone table's pull): the page as it is; the applier counts
            // a key listed twice once.
            saveKeys = page.keys
            saveModels = page.models
            if versioned { saveVersions = page.versions ?? Array(repeating: nil, count: page.models.count) }
            deletedKeys = try page.page.deletedIDs.map { try primaryKey.sqlValue(of: $0) }
            return
        }
        let capacity = held.models.count + pages.reduce(0) { $0 + $1.models.count + $1.page.deletedIDs.count }
        var recording = BatchChanges(capacity: capacity)
        let heldPage = Int32(pages.count)
        for (index, model) in held.models.enumerated() {
            recording.record(
                BatchChange(key: try primaryKey.sqlValue(of: model.id), page: heldPage, index: Int32(index)))
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
            // Element by element, this code (generic, reached through the engine's type-erased tables)
            // looks up `Model`'s metadata on every copy, which cost more than SQLite's inserts.
            for change in changes {
                if change.page == -1 { deletedKeys.append(change.key) } else { saveKeys.append(change.key) }
            }
            saveModels.append(contentsOf: held.models)
            if versioned { saveVersions.append(contentsOf: held.versions) }
            for page in pages {
                saveModels.append(contentsOf: page.models)
                if versioned {
                    saveVersions.append(contentsOf: page.versions ?? Array(repeating: nil, count: page.models.count))
                }
            }
            return
        }
        for change in changes {
            switch change.page {
            case -1:
                deletedKeys.append(change.key)
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

    func applySaves(excluding excluded: [SQLValue: String?], parkingCachedRows: Bool, _ db: Database) throws
        -> [SQLValue]
    {
        for recordID in takenParked { try applier.state.parked.forgetParkedRecord(recordID, db) }
        try applier.state.parked.park(undecodable, state: .undecodable, db)
        let written: [SQLValue]
        if excluded.isEmpty {
            counts = try applier.apply(
                saveModels, keys: saveKeys, versions: versioned ? saveVersions : nil, deletedKeys: [], db)
            parkedCount = 0
            written = saveKeys
        } else {
            var kept: (keys: [SQLValue], models: [Model], versions: [String?]) = ([], [], [])
            var parked: [ParkedRecords.ParkedRecord] = []
            var parkedKeys = Set<SQLValue>()
            let encoder = KeySetJSONEncoder(source: .remote)
            // A record parked is kept as the server sent it, every key and digit of it.
            let serverJSON = serverRecords(ofKeys: Set(excluded.keys))
            for (index, key) in saveKeys.enumerated() {
                let version = versioned ? saveVersions[index] : nil
                if let parents = excluded[key] {
                    let model = saveModels[index]
                    parked.append(
                        ParkedRecords.ParkedRecord(
                            recordID: try primaryKey.storedID(of: model.id),
                            record: try serverJSON[key] ?? encoder.encode(model),
                            version: version, parents: parents, emptied: emptied[key] ?? []))
                    parkedKeys.insert(key)
                } else {
                    kept.keys.append(key)
                    kept.models.append(saveModels[index])
                    if versioned { kept.versions.append(version) }
                }
            }
            // Rows already in the cache that lost a parent (a deletion the server made, whose children
            // it keeps): parked with the values they have, out of every reader's sight.
            let cached = parkingCachedRows ? excluded.keys.filter { !parkedKeys.contains($0) } : []
            if !cached.isEmpty {
                for model in try db.fetch(Model.self, primaryKeys: cached) {
                    let key = try primaryKey.sqlValue(of: model.id)
                    parked.append(
                        ParkedRecords.ParkedRecord(
                            recordID: try primaryKey.storedID(of: model.id), record: try encoder.encode(model),
                            version: nil, parents: excluded[key] ?? nil))
                }
                _ = try applier.state.withCapturePaused(db) { try db.delete(Model.self, primaryKeys: cached) }
            }
            counts = try applier.apply(
                kept.models, keys: kept.keys, versions: versioned ? kept.versions : nil, deletedKeys: [], db)
            try applier.state.parked.park(parked, db)
            parkedCount = parked.count
            written = kept.keys
        }
        // The server's data, as the reference's rule settles it here: not a local change to push.
        try applier.state.withCapturePaused(db) {
            for (key, columns) in emptied where excluded[key] == nil {
                try applier.state.emptyReferences(
                    references.filter { columns.contains($0.column) }, of: key,
                    primaryKeyColumn: primaryKey.quotedColumn, db)
            }
        }
        return written
    }

    /// The server's JSON of the records with `keys` among this batch's saves, as the server sent them:
    /// the last one of each key, as the batch applies it.
    ///
    /// - Complexity: One more walk over the bytes of each page holding such a record; only run when a
    ///   record is parked.
    private func serverRecords(ofKeys keys: Set<SQLValue>) -> [SQLValue: Data] {
        var found = takenRecords.filter { keys.contains($0.key) }
        for page in pages where page.keys.contains(where: keys.contains) {
            guard let records = page.modelRecords() else { continue }
            for (key, record) in zip(page.keys, records) where keys.contains(key) { found[key] = record }
        }
        return found
    }

    func applyDeletions(_ db: Database) throws {
        guard !deletedKeys.isEmpty else { return }
        let removed = try applier.apply([], keys: [], versions: versioned ? [] : nil, deletedKeys: deletedKeys, db)
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

    func outcome() -> any BatchOutcome {
        var report = SyncReport<Model.ID>()
        report.pulled = pulled
        report.pages = pageCount
        report.inserted = counts.inserted
        report.updated = counts.updated
        report.deleted = counts.deleted
        report.keptLocal = counts.keptLocal
        report.skipped = skipped
        report.parked = parkedCount
        return TableOutcome(report: report, tally: tally)
    }
}
