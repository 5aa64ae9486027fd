/// What a ``Repository`` does when it syncs: page sizes, retries, malformed records, conflicts.
///
/// ```swift
/// var configuration = SyncConfiguration<User>()
/// configuration.pageSize = 500
/// configuration.retryPolicy = RetryPolicy(maxAttempts: 8)
/// configuration.malformedRecords = .failPage
/// configuration.conflictPolicy = .clientWins
/// let repository = try Repository(database: database, remote: server, configuration: configuration)
/// ```
public struct SyncConfiguration<Model: Identifiable & Sendable>: Sendable where Model.ID: Sendable {
    /// The most changes asked for in one pull.
    public var pageSize: Int
    /// The most local changes sent in one push.
    public var pushBatchSize: Int
    /// How transient failures are retried.
    public var retryPolicy: RetryPolicy
    /// What to do with a server record that does not decode.
    public var malformedRecords: MalformedRecordPolicy
    /// How conflicts between local changes and the server are settled.
    public var conflictPolicy: ConflictPolicy<Model>
    /// How many times one sync pushes a change again after resolving its conflict.
    public var maxConflictRounds: Int
    /// Whether ``Repository/sync()`` turns into ``Repository/resync(allowingDeletionOf:)`` when the server no longer knows
    /// the stored cursor (``RemoteSourceError/invalidCursor(_:)``), as after the server compacted its
    /// feed; otherwise that error is thrown.
    public var resyncsOnUnknownCursor: Bool

    /// The defaults: pages of 1,000, pushes of 500, `RetryPolicy()`, skip malformed
    /// records, ``ConflictPolicy/serverWins``.
    ///
    /// - Parameters:
    ///   - pageSize: The most changes per pull.
    ///   - pushBatchSize: The most changes per push.
    ///   - retryPolicy: Retries of transient failures.
    ///   - malformedRecords: Skip and report, or fail the page.
    ///   - conflictPolicy: Conflict resolution.
    ///   - maxConflictRounds: Re-pushes after conflicts, per sync.
    ///   - resyncsOnUnknownCursor: Resync from the start when the server forgot the cursor.
    public init(
        pageSize: Int = 1_000, pushBatchSize: Int = 500, retryPolicy: RetryPolicy = RetryPolicy(),
        malformedRecords: MalformedRecordPolicy = .skipAndReport, conflictPolicy: ConflictPolicy<Model> = .serverWins,
        maxConflictRounds: Int = 3, resyncsOnUnknownCursor: Bool = true
    ) {
        precondition(pageSize > 0 && pushBatchSize > 0, "SyncConfiguration needs page and push sizes of at least 1.")
        self.pageSize = pageSize
        self.pushBatchSize = pushBatchSize
        self.retryPolicy = retryPolicy
        self.malformedRecords = malformedRecords
        self.conflictPolicy = conflictPolicy
        self.maxConflictRounds = maxConflictRounds
        self.resyncsOnUnknownCursor = resyncsOnUnknownCursor
    }
}

/// What a ``Repository`` does with a server record that does not decode with the remote key set.
public enum MalformedRecordPolicy: Sendable, Equatable {
    /// Apply the rest of the page and list the record in ``SyncReport/skipped``.
    case skipAndReport
    /// Apply nothing of the page and throw ``SyncError/malformedRecords(_:)``; the cursor stays before the page.
    case failPage
}
