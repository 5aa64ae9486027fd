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
    public func sync() async throws -> SyncReport<Model.ID> {
        // A running sync or resync also brings the cache up to date: join it.
        if let running { return try await running.join() }
        return try await start(.pull)
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
    /// A resync that would remove every row of a non-empty table (the server sent nothing, as some
    /// answer credentials that no longer pass a rule) stops with ``SyncError/resyncWouldDelete(table:rows:of:)``
    /// and removes nothing; `deletions` sets that limit.
    ///
    /// - Parameter deletions: How much of the cache the resync may remove; by default anything short
    ///   of every row.
    /// - Returns: What the resync did; ``SyncReport/deleted`` includes the stale records removed.
    /// - Throws: As ``sync()``; ``SyncError/resyncWouldDelete(table:rows:of:)`` beyond `deletions`.
    /// - Complexity: O(n) in the server's records, plus one pass over the cache.
    @discardableResult
    public func resync(allowingDeletionOf deletions: ResyncDeletions = .allButEveryRow) async throws
        -> SyncReport<Model.ID>
    {
        // Join a running resync; after a running sync, start one (each push happens once: the queue
        // is read by the sync that owns it, never by two at a time).
        while let running {
            if running.isResync { return try await running.join() }
            _ = try? await running.task.value
        }
        return try await start(.pullFromStart(deletions))
    }

    /// Starts `step` as the repository's one running sync and waits for it.
    func start(_ step: RunStep) async throws -> SyncReport<Model.ID> {
        let sync = RunningSync(Task { try await self.performSync(step) }, isResync: step.isResync)
        running = sync
        defer { running = nil }
        return try await sync.join()
    }

    /// Runs one sync of the table through the engine, and keeps its report, also when it fails.
    private func performSync(_ step: RunStep) async throws -> SyncReport<Model.ID> {
        let (report, error) = await table.run(step)
        // What happened before a failure (pages applied, conflicts settled) stays true: keep it.
        lastReport = report
        table.announceEnd(of: report, error)
        if let error { throw error }
        return report
    }
}
