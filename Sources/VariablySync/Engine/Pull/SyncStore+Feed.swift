import Foundation
import VariablySQLite

// MARK: - Pulling one feed of several tables

extension SyncStore {
    /// A feed page with each table's part decoded: what a batch applies.
    struct DecodedFeedPage: Sendable {
        /// Each member table's part (a `SyncTable<Model>.FetchedPage`), by table name.
        let parts: [String: any Sendable]
        let nextCursor: SyncCursor
        let hasMore: Bool
        let recordCount: Int
        /// Requests of the page retried after transient failures.
        let retries: Int
    }

    /// The row of `variably_feed_positions` that keeps the feed's cursor: one per set of tables.
    var feedState: FeedPosition {
        FeedPosition(tables: members.map(\.table.table))
    }

    /// The cursor of the last batch the store applied from its feed, or `nil` before the first.
    ///
    /// ```swift
    /// let position = try await store.feedCursor()
    /// ```
    ///
    /// - Throws: `SQLiteError`.
    public func feedCursor() async throws -> SyncCursor? {
        let state = feedState
        return try await members[0].database.read { try state.cursor($0) }
    }

    /// Pulls `feed` until caught up, in batches (``ChangeFeedConfiguration/batchSize``; a first
    /// sync's first batches are smaller, see below): pages are fetched and decoded ahead, up to a
    /// batch's worth, while the writer applies the last batch, every table and the feed's
    /// cursor in one transaction.
    ///
    /// - Returns: The feed's requests retried after transient failures.
    /// - Parameter fromStart: Whether the feed is pulled from its beginning (a resync), whatever the
    ///   stored cursor.
    func pullFeed(
        _ feed: any RemoteChangeFeed, fromStart: Bool = false,
        into reports: inout [ObjectIdentifier: any SyncReportMerging]
    ) async throws -> Int {
        let state = feedState
        let database = members[0].database
        let tables = members.map(\.table.table)
        let (stored, lastFeed) = try await database.write { db in
            // Records the models could not decode are tried again by this pull's first batch.
            for table in tables { try SyncStateStore(table: table).retryUndecodableRecords(db) }
            let position = try state.row(db)
            return (position?.cursor.map(SyncCursor.init(rawValue:)), position?.feed)
        }
        // A cursor of another feed means nothing to this one: start over.
        let cursor = !fromStart && (lastFeed == nil || lastFeed == feed.feedIdentifier) ? stored : nil
        let buffer = FeedPrefetcher<DecodedFeedPage>(capacity: feedConfiguration.batchSize)
        let producer = startProducing(feed, after: cursor, into: buffer)
        defer { producer.cancel() }
        var waiting: [DecodedFeedPage] = []
        var waitingRecords = 0
        var retries = 0
        // A first sync (no cursor yet) is applied in growing steps: its first page alone, then twice as
        // many records each time, up to a batch: SQLite starts on the first page while the rest is
        // fetched and decoded, readers see the first records early, and a first sync cut short keeps
        // what it applied. Later syncs gather up to a whole batch, so that readers see a small one
        // whole.
        let batchSize = feedConfiguration.batchSize
        var target = cursor == nil ? min(feedConfiguration.pageSize, batchSize) : batchSize
        do {
            while let page = try await withTaskCancellationHandler(
                operation: { try await buffer.next() }, onCancel: { producer.cancel() })
            {
                try Task.checkCancellation()
                retries += page.retries
                waiting.append(page)
                waitingRecords += page.recordCount
                if !page.hasMore || waitingRecords >= target {
                    let applied = try await applyBatch(waiting, feed: feed.feedIdentifier)
                    for (type, report) in applied {
                        reports[type] = reports[type].map { $0.merged(with: report) } ?? report
                    }
                    waiting = []
                    waitingRecords = 0
                    target = min(target * 2, batchSize)
                }
            }
        } catch {
            await buffer.close()
            throw error
        }
        await buffer.close()
        return retries
    }

    /// Starts the task that pulls the pages after `cursor` one after the other, decodes each member
    /// table's part, and hands them to `buffer`, off the actor, until the feed is caught up or the
    /// buffer is closed. A cursor the server no longer knows starts the feed over from its beginning.
    private func startProducing(
        _ feed: any RemoteChangeFeed, after cursor: SyncCursor?, into buffer: FeedPrefetcher<DecodedFeedPage>
    ) -> Task<Void, Never> {
        let members = self.members
        let configuration = feedConfiguration
        let seed = random.next()
        return Task.detached {
            var random = SplitMix64(seed: seed)
            var cursor = cursor
            var delivered = false
            var cursorGuard = CursorGuard(startingAfter: cursor)
            do {
                while true {
                    let page: DecodedFeedPage
                    do {
                        page = try await Self.fetch(
                            feed, after: cursor, members: members, configuration: configuration, random: &random)
                    } catch RemoteSourceError.invalidCursor where cursor != nil && !delivered {
                        cursor = nil
                        continue
                    }
                    try Task.checkCancellation()
                    delivered = true
                    guard await buffer.put(page, records: page.recordCount), page.hasMore else { break }
                    try cursorGuard.advance(to: page.nextCursor)
                    cursor = page.nextCursor
                }
                await buffer.finish(.success(()))
            } catch {
                await buffer.finish(.failure(error))
            }
        }
    }

    /// Pulls the page after `cursor`, retrying transient failures, and decodes each member table's part.
    private static func fetch(
        _ feed: any RemoteChangeFeed, after cursor: SyncCursor?, members: [Member],
        configuration: ChangeFeedConfiguration,
        random: inout SplitMix64
    ) async throws -> DecodedFeedPage {
        var retries = 0
        let page = try await configuration.retryPolicy.retrying(
            random: &random, retries: &retries, onRetry: { _, _, _ in }
        ) {
            try await feed.pull(after: cursor, limit: configuration.pageSize)
        }
        var parts: [String: any Sendable] = [:]
        var records = 0
        for member in members {
            guard let changes = page.tables[member.table.table] else { continue }
            let part = try member.table.decodeFeed(changes, page.nextCursor)
            records += (part as? any FeedPart)?.recordCount ?? 0
            parts[member.table.table] = part
        }
        return DecodedFeedPage(
            parts: parts, nextCursor: page.nextCursor, hasMore: page.hasMore, recordCount: records, retries: retries)
    }

    /// Applies `pages` and the last one's cursor in one transaction, through the `PullEngine`: the
    /// saves of every table parents first, the deletions children first. A record whose parent is in
    /// none of the tables (a child sent in an earlier page than its parent) is parked until the batch
    /// its parent comes in.
    ///
    /// - Complexity: O(p log n) for p records; with orphans, one more look-up per applied record and
    ///   reference, and the batch applied once more.
    private func applyBatch(_ pages: [DecodedFeedPage], feed: String) async throws -> [ObjectIdentifier:
        any SyncReportMerging]
    {
        let state = feedState
        guard let last = pages.last else { return [:] }
        var parts: [String: [any Sendable]] = [:]
        for page in pages {
            for (table, part) in page.parts { parts[table, default: []].append(part) }
        }
        let tables = members.map { SyncStateStore(table: $0.table.table) }
        return try await engine.apply(parts) { db, _ in
            try state.save(cursor: last.nextCursor, feed: feed, db)
            // Each table's local changes are based on the position the cache is at: the server tells a
            // conflict from it (a table's own cursor is what its queued changes carry).
            for table in tables {
                try table.setCursor(last.nextCursor, db)
                if !last.hasMore { try table.forgetAcknowledgements(db) }
            }
        }
    }

    /// The engine over the store's tables, and those of the other repositories on its database.
    var engine: PullEngine {
        let database = members[0].database
        let own = members.map(\.table)
        let others = database.engineTables.filter { table in !own.contains { $0.table == table.table } }
        return PullEngine(database: database, tables: EngineTable.ordered(own + others))
    }
}

/// A decoded part of a feed page that knows its size.
protocol FeedPart: Sendable {
    /// Records received, malformed ones included.
    var recordCount: Int { get }
}

extension SyncTable.FetchedPage: FeedPart {}
