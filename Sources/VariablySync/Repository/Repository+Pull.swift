import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Pull

extension Repository {
    /// A pulled page, decoded: what the next transaction applies.
    struct FetchedPage: Sendable {
        let page: RemotePage<Model.ID>
        let models: [Model]
        let skipped: [SkippedRecord]
        let recordCount: Int
    }

    /// Pulls pages until caught up. While page *k* is applied on the actor, page *k + 1* is pulled and
    /// decoded on another thread, so the network, the JSON decoding and SQLite overlap; at most two
    /// pages are in memory.
    func pullChanges(into report: inout SyncReport, fromStart: Bool) async throws {
        let cursor = fromStart ? nil : try database.read { try state.cursor($0) }
        var seen = Set<Model.ID>()
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
            if page.hasMore { prefetch = startFetch(after: page.nextCursor, retries: retries) }
            let applied = try apply(
                fetched.models, deletedIDs: page.deletedIDs, cursor: page.nextCursor, isCaughtUp: !page.hasMore)
            if fromStart {
                for model in fetched.models { seen.insert(model.id) }
                for record in fetched.skipped { if let id = record.id.flatMap(Self.id(fromRaw:)) { seen.insert(id) } }
            }
            report.pulled += fetched.recordCount
            report.skipped += fetched.skipped
            report.pages += 1
            report.inserted += applied.inserted
            report.updated += applied.updated
            report.deleted += applied.deleted
            report.keptLocal += applied.keptLocal
            report.cursor = page.nextCursor
            broadcaster.yield(
                .pageApplied(
                    page: report.pages, records: fetched.recordCount, deletions: page.deletedIDs.count,
                    totalRecords: report.pulled))
        }
        if fromStart { report.deleted += try removeRecords(notIn: seen) }
    }

    /// Deletes cached records the server did not send during a resync, except those with a queued change.
    func removeRecords(notIn seen: Set<Model.ID>) throws -> Int {
        let state = self.state
        return try database.write { db in
            let pending = try state.pendingRecordIDs(db)
            var stale: [Model.ID] = []
            try db.forEach(Model.self) { model in
                if !seen.contains(model.id) { stale.append(model.id) }
            }
            var deleted = 0
            for id in stale where !pending.contains(try Self.text(of: id)) {
                if try db.delete(Model.self, id: id) { deleted += 1 }
            }
            return deleted
        }
    }

    /// An id as a malformed record carried it: JSON text for numbers, bare text for strings.
    static func id(fromRaw raw: String) -> Model.ID? {
        if let id = try? id(fromText: raw) { return id }
        let quoted = String(decoding: (try? JSONEncoder().encode(raw)) ?? Data(), as: UTF8.self)
        return try? id(fromText: quoted)
    }

    /// Starts pulling and decoding the page after `cursor` off the actor. The retry jitter is drawn
    /// from the repository's generator (reproducible when ``RetryPolicy/seed`` is set).
    func startFetch(after cursor: SyncCursor?, retries: RetryCounter) -> Task<FetchedPage, any Error> {
        let remote = self.remote
        let limit = configuration.pageSize
        let policy = configuration.retryPolicy
        let broadcaster = self.broadcaster
        let seed = random.next()
        return Task.detached {
            var random = SplitMix64(seed: seed)
            var attempts = 0
            defer { retries.add(attempts) }
            let page = try await Self.retrying(policy: policy, random: &random, retries: &attempts, broadcaster: broadcaster) {
                try await remote.pull(after: cursor, limit: limit)
            }
            return try Self.decode(page)
        }
    }

    /// Decodes a page with the remote key set through the core's `KeySetJSONDecoder` (same values and
    /// errors as `JSONDecoder(source: .remote)`, several times faster): the whole array at once, and only
    /// when a record fails, record by record, so that one bad record is skipped alone.
    static func decode(_ page: RemotePage<Model.ID>) throws -> FetchedPage {
        let decoder = KeySetJSONDecoder(source: .remote)
        if let models = try? decoder.decode([Model].self, from: page.records) {
            return FetchedPage(page: page, models: models, skipped: [], recordCount: models.count)
        }
        let records = try decoder.decode([PageRecord<Model>].self, from: page.records)
        var models: [Model] = []
        models.reserveCapacity(records.count)
        var skipped: [SkippedRecord] = []
        for (index, record) in records.enumerated() {
            switch record.result {
            case .success(let model): models.append(model)
            case .failure(let error): skipped.append(SkippedRecord(index: index, id: record.rawID, error: error))
            }
        }
        return FetchedPage(page: page, models: models, skipped: skipped, recordCount: records.count)
    }

    /// Applies one page and its cursor in one transaction. Records with a queued local change are
    /// left alone: the push decides about them.
    func apply(
        _ models: [Model], deletedIDs: [Model.ID], cursor: SyncCursor, isCaughtUp: Bool
    ) throws -> (inserted: Int, updated: Int, deleted: Int, keptLocal: Int) {
        let state = self.state
        return try database.write { db in
            let pending = try state.pendingRecordIDs(db)
            var upserts = models
            var deletions = deletedIDs
            if !pending.isEmpty {
                upserts = try models.filter { !pending.contains(try Self.text(of: $0.id)) }
                deletions = try deletedIDs.filter { !pending.contains(try Self.text(of: $0)) }
            }
            let before = try db.count(Model.self)
            try db.upsert(upserts)
            let inserted = try db.count(Model.self) - before
            var deleted = 0
            for id in deletions where try db.delete(Model.self, id: id) { deleted += 1 }
            try state.setCursor(cursor, db)
            if isCaughtUp { try state.forgetAcknowledgements(db) }
            let keptLocal = (models.count - upserts.count) + (deletedIDs.count - deletions.count)
            return (inserted, upserts.count - inserted, deleted, keptLocal)
        }
    }
}
