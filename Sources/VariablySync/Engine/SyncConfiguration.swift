import VariablyCodable

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
    /// Sizes are checked when a repository opens with the configuration: a page or push size below 1
    /// makes ``Repository/open(database:remote:configuration:)`` throw a `DeclarationError`.
    ///
    /// ```swift
    /// let configuration = SyncConfiguration<User>(pageSize: 500, conflictPolicy: .clientWins)
    /// ```
    ///
    /// - Parameters:
    ///   - pageSize: The most changes per pull (at least 1).
    ///   - pushBatchSize: The most changes per push (at least 1).
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
        self.pageSize = pageSize
        self.pushBatchSize = pushBatchSize
        self.retryPolicy = retryPolicy
        self.malformedRecords = malformedRecords
        self.conflictPolicy = conflictPolicy
        self.maxConflictRounds = maxConflictRounds
        self.resyncsOnUnknownCursor = resyncsOnUnknownCursor
    }
}

extension SyncConfiguration {
    /// Throws when a size or the retry policy is out of range.
    func checkDeclaration() throws(DeclarationError) {
        for (name, value) in [("pageSize", pageSize), ("pushBatchSize", pushBatchSize)] where value < 1 {
            throw DeclarationError(
                .invalidSetting("SyncConfiguration.\(name)", requirement: "at least 1"), model: Model.self,
                fix: "set \(name) to 1 or more (it is \(value))")
        }
        try retryPolicy.checkDeclaration(of: "\(Model.self)", in: "SyncConfiguration.retryPolicy")
    }
}

/// What a ``Repository`` does with a server record that does not decode with the remote key set.
public enum MalformedRecordPolicy: Sendable, Equatable {
    /// Apply the rest of the page and list the record in ``SyncReport/skipped``.
    case skipAndReport
    /// Apply nothing of the page and throw ``SyncError/malformedRecords(_:)``; the cursor stays before the page.
    case failPage
}
