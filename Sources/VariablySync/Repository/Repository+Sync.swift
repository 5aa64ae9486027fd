import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Sync

extension Repository {
    /// Pushes the queued local changes, then pulls pages of server changes until caught up.
    ///
    /// Each page is applied in one transaction together with its cursor, so an interrupted sync
    /// resumes after the last applied page and a page applied twice changes nothing. Transient
    /// failures are retried per ``RetryPolicy``; cancellation is honoured between pages and
    /// between retries.
    ///
    /// ```swift
    /// let report = try await repository.sync()
    /// print(report.inserted, report.updated, report.deleted, report.conflicts)
    /// ```
    ///
    /// - Returns: What the sync did.
    /// - Throws: ``SyncError``, `CancellationError`, the remote's non-transient errors, `SQLiteError`.
    @discardableResult
    public func sync() async throws -> SyncReport {
        if let running { return try await running.value }
        let task = Task { try await self.performSync() }
        running = task
        defer { running = nil }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Pushes the queued local changes, then pulls every record from the start of the server's feed and
    /// removes cached records the server no longer has: a full reconciliation, for a cursor the server
    /// no longer knows (``RemoteSourceError/invalidCursor(_:)``) or a cache of unknown history.
    ///
    /// Pages are applied as in ``sync()``; the removal of records the server did not send runs in one
    /// transaction after the last page. Records with a queued local change, and records the server sent
    /// malformed, are never removed. If a resync stops early, the cache is still consistent page by
    /// page and a later `sync()` continues from there, but stale records stay until the next resync.
    ///
    /// ```swift
    /// do {
    ///     try await repository.sync()
    /// } catch RemoteSourceError.invalidCursor {
    ///     try await repository.resync()
    /// }
    /// ```
    ///
    /// - Returns: What the resync did; ``SyncReport/deleted`` includes the stale records removed.
    /// - Throws: As ``sync()``.
    /// - Complexity: O(n) in the server's records, plus one pass over the cache.
    @discardableResult
    public func resync() async throws -> SyncReport {
        if let running { _ = try? await running.value }
        let task = Task { try await self.performSync(fromStart: true) }
        running = task
        defer { running = nil }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    private func performSync(fromStart: Bool = false) async throws -> SyncReport {
        let clock = ContinuousClock()
        let start = clock.now
        var report = SyncReport()
        do {
            let pendingCount = try database.read { try state.pendingCount($0) }
            broadcaster.yield(.started(pendingChanges: pendingCount))
            try await pushPendingChanges(into: &report)
            do {
                try await pullChanges(into: &report, fromStart: fromStart)
            } catch RemoteSourceError.invalidCursor where !fromStart && configuration.resyncsOnUnknownCursor {
                report.resynced = true
                try await pullChanges(into: &report, fromStart: true)
            }
        } catch {
            // What happened before the failure (pages applied, conflicts settled) stays true: keep it.
            report.duration = start.duration(to: clock.now)
            lastReport = report
            broadcaster.yield(.failed("\(error)", partialReport: report))
            throw error
        }
        report.duration = start.duration(to: clock.now)
        report.isComplete = true
        lastReport = report
        broadcaster.yield(.finished(report))
        return report
    }

    // MARK: Pull

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
    private func pullChanges(into report: inout SyncReport, fromStart: Bool) async throws {
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
    private func removeRecords(notIn seen: Set<Model.ID>) throws -> Int {
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

    /// Starts pulling and decoding the page after `cursor` off the actor. The retry jitter is seeded
    /// from the repository's generator, so the delays stay reproducible.
    private func startFetch(after cursor: SyncCursor?, retries: RetryCounter) -> Task<FetchedPage, any Error> {
        let remote = self.remote
        let limit = configuration.pageSize
        let policy = configuration.retryPolicy
        let broadcaster = self.broadcaster
        let seed = random.next()
        return Task.detached {
            var random = SeededRandomNumberGenerator(seed: seed)
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
    private static func decode(_ page: RemotePage<Model.ID>) throws -> FetchedPage {
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
    private func apply(
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

    // MARK: Push

    private func pushPendingChanges(into report: inout SyncReport) async throws {
        for round in 0...max(configuration.maxConflictRounds, 0) {
            let queue = try database.read { try state.pending($0) }
            guard !queue.isEmpty else { return }
            var rebased = false
            var start = 0
            while start < queue.count {
                try Task.checkCancellation()
                let batch = Array(queue[start..<min(start + configuration.pushBatchSize, queue.count)])
                start += batch.count
                let (changes, sent) = try makeChanges(batch)
                guard !changes.isEmpty else { continue }
                let state = self.state
                try database.write { try state.markSent(changes.map(\.idempotencyKey), $0) }
                let remote = self.remote
                var generator = SeededRandomNumberGenerator(seed: random.next())
                let results = try await Self.retrying(
                    policy: configuration.retryPolicy, random: &generator, retries: &report.retries,
                    broadcaster: broadcaster
                ) { try await remote.push(changes) }
                let isLastRound = round == configuration.maxConflictRounds
                rebased = try applyPushResults(results, for: sent, isLastRound: isLastRound, into: &report) || rebased
            }
            if !rebased { return }
        }
    }

    /// The remote changes for queued ones; upserts carry the cached record in the remote key set.
    private func makeChanges(_ batch: [PendingChange]) throws -> ([RemoteChange<Model.ID>], [String: PendingChange]) {
        var changes: [RemoteChange<Model.ID>] = []
        var sent: [String: PendingChange] = [:]
        let state = self.state
        for change in batch {
            let id = try Self.id(fromText: change.recordID)
            let operation: RemoteChange<Model.ID>.Operation
            switch change.operation {
            case .delete:
                operation = .delete
            case .upsert:
                guard let model = try database.read({ try $0.fetch(Model.self, id: id) }) else {
                    // Saved, then removed from the cache by a tombstone the push had not settled: nothing to send.
                    try database.write { try state.complete(change, version: nil, $0) }
                    continue
                }
                operation = .upsert(try recordEncoder.encode(model))
            }
            changes.append(
                RemoteChange(
                    idempotencyKey: change.idempotencyKey, id: id, operation: operation, baseCursor: change.baseCursor,
                    supersedes: change.supersededKeys))
            sent[change.idempotencyKey] = change
        }
        return (changes, sent)
    }

    /// Settles each pushed change in one transaction; returns whether a change stays queued for another round.
    private func applyPushResults(
        _ results: [PushResult<Model.ID>], for sent: [String: PendingChange], isLastRound: Bool,
        into report: inout SyncReport
    ) throws -> Bool {
        let state = self.state
        let policy = configuration.conflictPolicy
        var accepted = 0
        var conflicts: [ConflictReport] = []
        var rejected: [RejectedChange] = []
        var skipped: [SkippedRecord] = []
        var rebased = false
        try database.write { db in
            for (index, result) in results.enumerated() {
                guard let change = sent[result.idempotencyKey] else { continue }
                switch result.outcome {
                case .accepted(let version):
                    try state.complete(change, version: version, db)
                    accepted += 1
                case .rejected(let reason):
                    try state.complete(change, version: nil, db)
                    rejected.append(RejectedChange(id: change.recordID, reason: reason))
                case .conflict(let serverJSON, let version):
                    let server: Model?
                    do {
                        server = try serverJSON.map { try recordDecoder.decode(Model.self, from: $0) }
                    } catch {
                        skipped.append(SkippedRecord(index: index, id: change.recordID, error: error))
                        conflicts.append(ConflictReport(id: change.recordID, policy: policy.name, resolution: .unresolved))
                        continue
                    }
                    let local = change.operation == .delete ? nil : try db.fetch(Model.self, id: result.id)
                    let resolution = policy.resolve(SyncConflict(id: change.recordID, local: local, server: server))
                    let outcome: ConflictReport.Resolution
                    switch resolution {
                    case .keepServer:
                        if let server { try db.upsert(server) } else { try db.delete(Model.self, id: result.id) }
                        try state.complete(change, version: nil, db)
                        outcome = .keptServer
                    case .keepLocal:
                        try state.rebase(change, operation: change.operation, on: version, db)
                        outcome = isLastRound ? .unresolved : .keptLocal
                        rebased = true
                    case .merged(let merged):
                        try db.upsert(merged)
                        try state.rebase(change, operation: .upsert, on: version, db)
                        outcome = isLastRound ? .unresolved : .merged
                        rebased = true
                    }
                    conflicts.append(ConflictReport(id: change.recordID, policy: policy.name, resolution: outcome))
                }
            }
        }
        report.pushed += accepted
        report.rejected += rejected
        report.conflicts += conflicts
        report.skipped += skipped
        broadcaster.yield(.pushed(accepted: accepted, conflicts: conflicts.count, rejected: rejected.count))
        return rebased
    }

    // MARK: Retries

    /// Counts the retries of fetch tasks running off the actor.
    ///
    /// `@unchecked Sendable`: `count` is only touched while holding `lock`.
    final class RetryCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0

        var value: Int { lock.withLock { count } }

        func add(_ retries: Int) {
            lock.withLock { count += retries }
        }
    }

    /// Runs `operation`, retrying transient failures with exponential backoff and seeded jitter.
    private static func retrying<T: Sendable>(
        policy: RetryPolicy, random: inout SeededRandomNumberGenerator, retries: inout Int,
        broadcaster: ProgressBroadcaster, _ operation: @Sendable () async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                guard policy.isTransient(error) else { throw error }
                guard attempt < policy.maxAttempts else {
                    throw SyncError.retriesExhausted(attempts: attempt, lastError: error)
                }
                attempt += 1
                let delay = policy.delay(beforeAttempt: attempt, random: Double.random(in: 0..<1, using: &random))
                retries += 1
                broadcaster.yield(.retrying(attempt: attempt, delay: delay, error: "\(error)"))
                try await Task.sleep(for: delay)
            }
        }
    }
}
