import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Records the server deleted without saying so

extension Repository {
    /// Removes the cached records the server no longer has, for servers that list no deletions (no
    /// tombstones, no deleted ids): the source lists the ids it holds now, page by page
    /// (``RemoteSource/serverIDs(after:limit:)``; for ``HTTPRemoteSource``, `HTTPAPI`'s `idListing`,
    /// such as `?fields=id`), and the cached records it did not list are removed in one transaction,
    /// their references settled by their rules. Lighter than a ``resync(allowingDeletionOf:)``, which
    /// downloads every record again; run it on a schedule the app sets (at launch once a day, in a
    /// background task).
    ///
    /// A record with a queued local change is not removed: its change is pushed, and the server's
    /// answer (a `404` for an edit of a deleted record) is settled by the conflict policy. A listing that
    /// would remove every cached row (an empty answer, credentials the server no longer honours)
    /// removes nothing and throws, unless `deletions` allows it.
    ///
    /// ```swift
    /// let report = try await users.removeDeletedRecords()
    /// print(report.listedIDs, report.deleted)   // 99,120 listed, 12 removed
    /// ```
    ///
    /// - Parameter deletions: How much of the cache the listing may remove;
    ///   ``ResyncDeletions/allButEveryRow`` by default.
    /// - Returns: The report: ``SyncReport/listedIDs``, ``SyncReport/pages`` and ``SyncReport/deleted``.
    /// - Throws: ``RemoteSourceError/unavailable(_:)`` for a source that lists no ids;
    ///   ``SyncError/resyncWouldDelete(table:rows:of:)`` beyond `deletions`; the source's errors after
    ///   its retries. Nothing is removed then.
    /// - Complexity: O(n) in the server's ids and the cached rows; one request per page of ids.
    @discardableResult
    public func removeDeletedRecords(allowingDeletionOf deletions: ResyncDeletions = .allButEveryRow)
        async throws -> SyncReport<Model.ID>
    {
        while let running { _ = try? await running.task.value }
        return try await start(.removeDeleted(deletions))
    }
}
