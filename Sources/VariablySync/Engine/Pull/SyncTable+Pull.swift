import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Pull

extension SyncTable {
    /// A pulled page, decoded: what the next transaction applies.
    struct FetchedPage: Sendable {
        let page: RemotePage<Model.ID>
        let models: [Model]
        let skipped: [SkippedRecord<Model.ID>]
        let recordCount: Int
        /// The models' primary keys as the table stores them, in the same order: worked out with the
        /// decoding, off the writer.
        var keys: [SQLValue] = []
        /// Each model's version as the server sent it (JSON text), when the source's writes are
        /// conditional on one; `nil` otherwise.
        var versions: [String?]?
        /// The server's JSON of the skipped records that have an id, to park until the model decodes them.
        var skippedRecords: [SyncStateStore.ParkedRecord] = []
        /// The form of each date that follows the server, as the page's first record writes it.
        var serverDates: [String: ServerDateFormat] = [:]
    }

    /// Pulls pages until caught up. While page *k* is applied on the actor, page *k + 1* is pulled and
    /// decoded on another thread, so the network, the JSON decoding and SQLite overlap; at most two
    /// pages are in memory.
    func pullChanges(
        into report: inout SyncReport<Model.ID>, fromStart: Bool, deletions: ResyncDeletions = .allButEveryRow
    ) async throws {
        let state = self.state
        let engine = self.engine
        // Records the model could not decode are tried again by this pull's first batch.
        let cursor = try await database.write { db in
            try state.retryUndecodableRecords(db)
            return fromStart ? nil : try state.cursor(db)
        }
        // A resync keeps the primary keys it received, to remove the cached records it did not.
        var seen = Set<SQLValue>()
        var cursorGuard = CursorGuard(startingAfter: cursor)
        report.cursor = cursor
        // Retries happen in the fetch tasks; counted here, they reach the report even when a fetch fails.
        let retries = RetryCounter()
        defer { report.retries += retries.value }
        var prefetch: Task<FetchedPage, any Error>? = startFetch(after: cursor, retries: retries)
        defer { prefetch?.cancel() }
        while let task = prefetch {
            let fetched = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
            prefetch = nil
            try Task.checkCancellation()
            if !fetched.skipped.isEmpty, configuration.malformedRecords == .failPage {
                throw SyncError.malformedRecords(fetched.skipped)
            }
            let page = fetched.page
            if page.hasMore {
                try cursorGuard.advance(to: page.nextCursor)
                prefetch = startFetch(after: page.nextCursor, retries: retries)
            }
            let keys = fetched.keys
            let applied = try await apply(fetched, engine: engine)
            if fromStart {
                seen.formUnion(keys)
                for record in fetched.skipped {
                    if let id = record.id, let key = try? primaryKey.sqlValue(of: id) { seen.insert(key) }
                }
            }
            report.pulled += fetched.recordCount
            report.skipped += fetched.skipped
            report.pages += 1
            if page.isCheck { report.checkRequests += 1 }
            report.inserted += applied?.inserted ?? 0
            report.updated += applied?.updated ?? 0
            report.deleted += applied?.deleted ?? 0
            report.keptLocal += applied?.keptLocal ?? 0
            report.cursor = page.nextCursor
            broadcaster.yield(
                .pageApplied(
                    page: report.pages, records: fetched.recordCount, deletions: page.deletedIDs.count,
                    totalRecords: report.pulled))
        }
        if fromStart { report.deleted += try await removeRecords(notIn: seen, allowing: deletions) }
        try await engine.settleMissingParents()
        (report.waitingForParents, report.undecodable) = try await database.read { db in
            try (state.parkedRecordCount(in: .waiting, db), state.parkedRecordCount(in: .undecodable, db))
        }
    }

    /// The engine that applies this repository's pages: over every table opened on its database, so
    /// that a page brings the parked records of other tables that were waiting for its records.
    nonisolated var engine: PullEngine {
        PullEngine(database: database, tables: database.engineTables)
    }

    /// Deletes cached records the server did not send during a resync, except those with a queued
    /// change. Reads the primary key column only and deletes in batches by key; removes nothing when
    /// that is more than `deletions` allows.
    ///
    /// - Complexity: O(n) in the cached rows, without decoding any model.
    func removeRecords(notIn seen: Set<SQLValue>, allowing deletions: ResyncDeletions) async throws -> Int {
        let state = self.state
        let table = primaryKey.table
        return try await database.write { db in
            let pending = try state.pendingPrimaryKeys(db)
            var stale: [SQLValue] = []
            var cached = 0
            try db.forEachPrimaryKey(Model.self) { key in
                cached += 1
                if !seen.contains(key), !pending.contains(key) { stale.append(key) }
            }
            guard deletions.allows(stale.count, of: cached) else {
                throw SyncError.resyncWouldDelete(table: table, rows: stale.count, of: cached)
            }
            return try state.withCapturePaused(db) { try db.delete(Model.self, primaryKeys: stale) }
        }
    }

    /// Starts pulling and decoding the page after `cursor` off the actor. The retry jitter is drawn
    /// from the repository's generator (reproducible when ``RetryPolicy/seed`` is set).
    func startFetch(after cursor: SyncCursor?, retries: RetryCounter) -> Task<FetchedPage, any Error> {
        let remote = self.remote
        let limit = configuration.pageSize
        let policy = configuration.retryPolicy
        let broadcaster = self.broadcaster
        let seed = jitter.next()
        let versionField = recordVersions?.field
        let primaryKey = self.primaryKey
        let dateObserver = self.dateObserver
        return Task.detached {
            var random = SplitMix64(seed: seed)
            var attempts = 0
            defer { retries.add(attempts) }
            let page = try await Self.retrying(
                policy: policy, random: &random, retries: &attempts, broadcaster: broadcaster
            ) {
                try await remote.pull(after: cursor, limit: limit)
            }
            var fetched = try Self.decode(page)
            fetched.keys = try primaryKey.sqlValues(ofModels: fetched.models)
            if let versionField { fetched.versions = Self.versions(in: page.records, field: versionField, of: fetched) }
            fetched.serverDates = dateObserver.formats(in: page.records)
            return fetched
        }
    }

    /// The bytes of each decoded record's `field`, in the order of `fetched.models` (records that were
    /// skipped left out); `nil` for a record without one.
    ///
    /// - Complexity: One more walk over the page's bytes, made only for sources with record versions.
    static func versions(in records: Data, field: String, of fetched: FetchedPage) -> [String?] {
        guard let body = try? JSONBody(records), let elements = try? body.elements(of: body.root) else {
            return Array(repeating: nil, count: fetched.models.count)
        }
        let skipped = Set(fetched.skipped.map(\.index))
        let path = DataPath(dotted: field)
        var versions: [String?] = []
        versions.reserveCapacity(fetched.models.count)
        for (index, element) in elements.enumerated() where !skipped.contains(index) {
            let range = try? body.range(at: path, in: element)
            let text = range.map { String(decoding: body.data($0), as: UTF8.self) }
            versions.append(text == "null" ? nil : text)
        }
        return versions.count == fetched.models.count ? versions : Array(repeating: nil, count: fetched.models.count)
    }

    /// Decodes a page with the remote key set through the core's `KeySetJSONDecoder` (same values and
    /// errors as `JSONDecoder(source: .remote)`, several times faster): the whole array at once, and only
    /// when a record fails, record by record, so that one bad record is skipped alone. A record whose
    /// text the decoder refuses (invalid UTF-8) fails with the decoder's error like any other, never
    /// repaired.
    static func decode(_ page: RemotePage<Model.ID>) throws -> FetchedPage {
        let decoder = KeySetJSONDecoder(source: .remote)
        if let models = try? decoder.decode([Model].self, from: page.records) {
            return FetchedPage(page: page, models: models, skipped: [], recordCount: models.count)
        }
        let records: [PageRecord<Model>]
        do {
            records = try decoder.decode([PageRecord<Model>].self, from: page.records)
        } catch {
            // A record that is not even JSON (invalid UTF-8 in a string) makes the whole page unparsable;
            // split, the error is that record's alone and the others are applied.
            guard let split = PageRecord<Model>.decodeOneByOne(page.records, refusedWith: error, decoder: decoder)
            else { throw error }
            records = split
        }
        var models: [Model] = []
        models.reserveCapacity(records.count)
        var skipped: [SkippedRecord<Model.ID>] = []
        for (index, record) in records.enumerated() {
            switch record.result {
            case .success(let model): models.append(model)
            case .failure(let error): skipped.append(SkippedRecord(index: index, id: record.id, error: error))
            }
        }
        var fetched = FetchedPage(page: page, models: models, skipped: skipped, recordCount: records.count)
        fetched.skippedRecords = parkable(skipped, in: page.records)
        return fetched
    }

    /// The server's JSON of the `skipped` records that have an id, to park as undecodable.
    ///
    /// - Complexity: One more walk over the page's bytes, only for a page with skipped records.
    static func parkable(_ skipped: [SkippedRecord<Model.ID>], in records: Data) -> [SyncStateStore.ParkedRecord] {
        guard !skipped.isEmpty, let body = try? JSONBody(records), let elements = try? body.elements(of: body.root)
        else {
            return []
        }
        return skipped.compactMap { record in
            guard let id = record.id, record.index < elements.count, let text = try? text(of: id) else { return nil }
            return SyncStateStore.ParkedRecord(
                recordID: text, record: body.data(elements[record.index]), version: nil, problem: "\(record.error)")
        }
    }

    /// Applies one page and its cursor in one transaction, through the engine.
    ///
    /// - Returns: What the page did to this table.
    func apply(_ fetched: FetchedPage, engine: PullEngine) async throws -> PageApplier<Model>.Counts? {
        let cursor = fetched.page.nextCursor
        let isCaughtUp = !fetched.page.hasMore
        let state = self.state
        // Other tables take part for their parked records only: their cursors stay theirs.
        let reports = try await engine.apply([primaryKey.table: [fetched]]) { db, _ in
            try state.setCursor(cursor, db)
            if isCaughtUp { try state.forgetAcknowledgements(db) }
        }
        guard let report = reports[ObjectIdentifier(Model.self)] as? SyncReport<Model.ID> else { return nil }
        return PageApplier<Model>.Counts(
            inserted: report.inserted, updated: report.updated, deleted: report.deleted, keptLocal: report.keptLocal)
    }
}
