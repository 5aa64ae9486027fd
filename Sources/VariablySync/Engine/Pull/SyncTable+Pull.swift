import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Pull

extension SyncTable {
    /// Pulls pages until caught up, through the one pull loop (`PullLoop`): while page *k* is applied,
    /// page *k + 1* is pulled and decoded on another thread; at most two pages are in memory. What the
    /// pages did goes to the run's tally.
    ///
    /// - Parameters:
    ///   - fromStart: Whether to pull from the beginning and remove the cached records not received (a
    ///     resync), within what `deletions` allows.
    ///   - announce: Told the records of each page applied.
    func pullChanges(
        fromStart: Bool, deletions: ResyncDeletions = .allButEveryRow,
        announce: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        let state = self.state
        let name = self.name
        // Records the model could not decode are tried again by this pull's first batch.
        let cursor = try await database.write { db in
            try state.parked.retryUndecodableRecords(db)
            return fromStart ? nil : try state.cursor(db)
        }
        tally.update { $0.cursor = cursor }
        // Retries happen in the fetch task; counted here, they reach the report even when a fetch fails.
        let retries = RunCounter()
        defer { tally.update { $0.retries += retries.value } }
        let engine = database.tableRegistry.engine(over: [self], on: database)
        let loop = PullLoop(
            engine: engine, source: TableBatchSource(table: self), firstBatchSize: configuration.pageSize,
            batchSize: configuration.pageSize, restartsOnUnknownCursor: false, seed: jitter.next())
        // A resync keeps the primary keys it received, to remove the cached records it did not.
        var received = Set<SQLValue>()
        var pages = 0
        var records = 0
        try await loop.run(after: cursor, retries: retries) { db, batch in
            // Other tables take part for their parked records only: their cursors stay theirs.
            try state.setCursor(batch.nextCursor, db)
            if !batch.hasMore { try state.forgetAcknowledgements(db) }
        } applied: { batch in
            if fromStart, let part = batch.parts[name] { received.formUnion(part.receivedKeys) }
            pages += 1
            records += batch.recordCount
            tally.update { report in
                report.checkRequests += batch.checkRequests
                report.cursor = batch.nextCursor
            }
            broadcaster.yield(
                .pageApplied(
                    page: pages, records: batch.recordCount, deletions: batch.deletionCount, totalRecords: records))
            announce(batch.recordCount)
        }
        if fromStart {
            let removed = try await removeRecords(notIn: received, allowing: deletions)
            tally.update { $0.deleted += removed }
        }
        try await engine.settleMissingParents()
        try await countParkedRecords()
    }

    /// Notes in the run's report how many of the table's records are parked: waiting for a parent (one
    /// the cache lacks, or one the server deleted while a restricting reference keeps its children),
    /// and undecodable.
    func countParkedRecords() async throws {
        let state = self.state
        let (waiting, undecodable) = try await database.read { db in
            try (
                state.parked.parkedRecordCount(in: .waiting, db)
                    + state.parked.parkedRecordCount(in: .parentDeleted, db),
                state.parked.parkedRecordCount(in: .undecodable, db)
            )
        }
        tally.update { report in
            report.parked = waiting
            report.undecodable = undecodable
        }
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
}
