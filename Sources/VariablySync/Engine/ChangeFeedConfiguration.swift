import VariablyCodable

/// How a ``SyncStore`` pulls its ``RemoteChangeFeed``.
///
/// ```swift
/// var configuration = ChangeFeedConfiguration()
/// configuration.pageSize = 2_000
/// configuration.batchSize = 100_000
/// let store = try SyncStore(users, posts, feed: feed, configuration: configuration)
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

    /// A configuration; the defaults suit most apps. Sizes below 1 make the ``SyncStore`` that is given
    /// the configuration throw a `DeclarationError`.
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
        self.pageSize = pageSize
        self.batchSize = batchSize
        self.retryPolicy = retryPolicy
    }
}

extension ChangeFeedConfiguration {
    /// Throws when a size or the retry policy is out of range.
    func checkDeclaration() throws(DeclarationError) {
        for (name, value) in [("pageSize", pageSize), ("batchSize", batchSize)] where value < 1 {
            throw DeclarationError(
                .invalidSetting("ChangeFeedConfiguration.\(name)", requirement: "at least 1"), modelType: "SyncStore",
                fix: "set \(name) to 1 or more (it is \(value))")
        }
        try retryPolicy.checkDeclaration(of: "SyncStore", in: "ChangeFeedConfiguration.retryPolicy")
    }
}
