/// What a ``SyncStore/sync()`` did, one ``SyncReport`` per model.
///
/// ```swift
/// let report = try await store.sync()
/// print(report.for(Comment.self)?.pushed ?? 0)
/// ```
public struct SyncStoreReport: Sendable, CustomStringConvertible {
    let reports: [ObjectIdentifier: any SyncReportMerging]
    /// The store's tables in sync order, each with its model's identifier.
    let tables: [(table: String, model: ObjectIdentifier)]
    /// Requests to the store's ``RemoteChangeFeed`` retried after transient failures; 0 for a store that
    /// pulls each repository's own source (each report counts its own).
    public let feedRetries: Int

    init(
        reports: [ObjectIdentifier: any SyncReportMerging], tables: [(table: String, model: ObjectIdentifier)],
        feedRetries: Int = 0
    ) {
        self.reports = reports
        self.tables = tables
        self.feedRetries = feedRetries
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

/// A report that adds up the phases of a store's sync.
protocol SyncReportMerging: Sendable, CustomStringConvertible {
    /// The changes the server accepted.
    var pushedCount: Int { get }
    /// The changes held for a parent.
    var heldCount: Int { get }

    /// This report followed by `later`, of the same model; ``SyncReport/held`` stays this one's.
    func merged(with later: any SyncReportMerging) -> any SyncReportMerging
    /// This report with the held changes of `report`, of the same model.
    func holding(as report: any SyncReportMerging) -> any SyncReportMerging
}

extension SyncReport: SyncReportMerging {
    var pushedCount: Int { pushed }
    var heldCount: Int { held.count }

    func holding(as report: any SyncReportMerging) -> any SyncReportMerging {
        guard let report = report as? SyncReport<ID> else { return self }
        var copy = self
        copy.held = report.held
        return copy
    }

    func merged(with later: any SyncReportMerging) -> any SyncReportMerging {
        guard let later = later as? SyncReport<ID> else { return self }
        var merged = self
        merged.pulled += later.pulled
        merged.pages += later.pages
        merged.inserted += later.inserted
        merged.updated += later.updated
        merged.deleted += later.deleted
        merged.pushed += later.pushed
        merged.rejected += later.rejected
        merged.deferred += later.deferred
        // Held: what the last push of saves left (see SyncStore.sync()).
        merged.conflicts += later.conflicts
        merged.skipped += later.skipped
        merged.keptLocal += later.keptLocal
        // Held pulled records: what the last batch left.
        merged.waitingForParents = later.waitingForParents
        merged.undecodable = later.undecodable
        merged.retries += later.retries
        merged.checkRequests += later.checkRequests
        merged.listedIDs += later.listedIDs
        merged.cursor = later.cursor ?? cursor
        merged.duration += later.duration
        merged.resyncReason = later.resyncReason ?? resyncReason
        merged.isComplete = isComplete && later.isComplete
        return merged
    }
}
