/// What a ``SyncStore/sync()`` did, one ``SyncReport`` per model.
///
/// ```swift
/// let report = try await store.sync()
/// print(report.for(Comment.self)?.pushed ?? 0)
/// ```
public struct SyncStoreReport: Sendable, CustomStringConvertible {
    let reports: [ObjectIdentifier: any AnyTableReport]
    /// The store's tables in sync order, each with its model's identifier.
    let tables: [(table: String, model: ObjectIdentifier)]
    /// Requests to the store's ``RemoteChangeFeed`` retried after transient failures; 0 for a store that
    /// pulls each repository's own source (each report counts its own).
    public let feedRetries: Int
    /// Requests to the store's ``RemoteChangeFeed`` that checked whether a page shorter than asked
    /// ended the feed (a server may cap its pages without saying so; at most one a sync), as
    /// ``SyncReport/checkRequests`` counts a table's own.
    public let feedCheckRequests: Int

    init(
        reports: [ObjectIdentifier: any AnyTableReport], tables: [(table: String, model: ObjectIdentifier)],
        feedRetries: Int = 0, feedCheckRequests: Int = 0
    ) {
        self.reports = reports
        self.tables = tables
        self.feedRetries = feedRetries
        self.feedCheckRequests = feedCheckRequests
    }

    /// The report of `model`'s repository, or `nil` when the store has none.
    ///
    /// ```swift
    /// let posts = report.for(Post.self)
    /// ```
    public func `for`<Model: Identifiable>(_ model: Model.Type) -> SyncReport<Model.ID>? {
        reports[ObjectIdentifier(model)] as? SyncReport<Model.ID>
    }

    /// One line per table, in sync order, named: `posts: pulled 120 in 2 pages (…)`.
    public var description: String {
        tables.compactMap { entry in reports[entry.model].map { "\(entry.table): \($0)" } }.joined(separator: "\n")
    }
}

/// A table's report as a store keeps it, whatever its model.
protocol AnyTableReport: Sendable, CustomStringConvertible {}

extension SyncReport: AnyTableReport {}

extension SyncReport {
    /// Adds `later`, a push or a batch of the same run, to this report: counts and lists add up; the
    /// records parked and undecodable are the latest batch's; the changes waiting for a parent stay this
    /// report's unless `replacingWaiting` (a push of saves, which knows them now).
    mutating func add(_ later: SyncReport<ID>, replacingWaiting: Bool = false) {
        pulled += later.pulled
        pages += later.pages
        inserted += later.inserted
        updated += later.updated
        deleted += later.deleted
        pushed += later.pushed
        failed += later.failed
        retrying += later.retrying
        if replacingWaiting { waitingForParent = later.waitingForParent }
        conflicts += later.conflicts
        skipped += later.skipped
        keptLocal += later.keptLocal
        parked = later.parked
        settledOrphans.merge(later.settledOrphans, uniquingKeysWith: +)
        undecodable = later.undecodable
        retries += later.retries
        checkRequests += later.checkRequests
        listedIDs += later.listedIDs
        cursor = later.cursor ?? cursor
        duration += later.duration
        resyncReason = later.resyncReason ?? resyncReason
    }
}
