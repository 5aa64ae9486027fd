/// How a ``SyncStore`` pulls its ``RemoteChangeFeed``.
///
/// ```swift
/// var configuration = ChangeFeedConfiguration()
/// configuration.pageSize = 2_000
/// configuration.batchSize = 100_000
/// let store = SyncStore(users, posts, feed: feed, configuration: configuration)
/// ```
public struct ChangeFeedConfiguration: Sendable {
    /// The most changes asked for per page.
    public var pageSize: Int
    /// How many records a batch gathers before it is applied: pages are applied together, with the
    /// cursor of the last, in one transaction, until the feed is caught up or this many records are
    /// waiting. A sync that brings fewer changes is one batch, so readers see all of it or none.
    /// A first sync (the store has no feed cursor yet) is applied in growing steps, each a server
    /// position of its own: its first page alone, then twice as many records each time, up to this
    /// size; SQLite starts on the first page while the rest downloads, and a first sync cut short
    /// keeps what it applied.
    public var batchSize: Int
    /// How failed page requests are retried.
    public var retryPolicy: RetryPolicy

    /// A configuration; the defaults suit most apps.
    ///
    /// ```swift
    /// let configuration = ChangeFeedConfiguration(pageSize: 500)
    /// ```
    ///
    /// - Parameters:
    ///   - pageSize: The most changes asked for per page (at least 1).
    ///   - batchSize: How many records a batch gathers before it is applied (at least 1).
    ///   - retryPolicy: How failed page requests are retried.
    public init(pageSize: Int = 1_000, batchSize: Int = 50_000, retryPolicy: RetryPolicy = RetryPolicy()) {
        precondition(pageSize > 0, "ChangeFeedConfiguration needs a page size of at least 1")
        precondition(batchSize > 0, "ChangeFeedConfiguration needs a batch size of at least 1")
        self.pageSize = pageSize
        self.batchSize = batchSize
        self.retryPolicy = retryPolicy
    }
}
