import Foundation
import VariablySQLite

// MARK: - Pulling one feed of several tables

extension SyncStore {
    /// The row of `variably_feed_positions` that keeps the feed's cursor: one per set of tables.
    var feedState: FeedPosition {
        FeedPosition(tables: members.map(\.table.name))
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
        return try await database.read { try state.cursor($0) }
    }

    /// Pulls `feed` until caught up, through the one pull loop (`PullLoop`), in batches
    /// (``ChangeFeedConfiguration/batchSize``; a first sync's first batches are smaller, see below):
    /// pages are fetched and decoded ahead, up to a batch's worth, while the writer applies the last
    /// batch, every table and the feed's cursor in one transaction.
    ///
    /// - Parameters:
    ///   - fromStart: Whether the feed is pulled from its beginning (a resync), whatever the stored
    ///     cursor.
    ///   - retries: Counts the feed's requests retried after transient failures.
    ///   - checks: Counts the requests that checked whether a page shorter than asked ended the feed.
    func pullFeed(_ feed: any RemoteChangeFeed, fromStart: Bool, retries: RunCounter, checks: RunCounter)
        async throws
    {
        let position = feedState
        let tables = members.map(\.table)
        let names = tables.map(\.name)
        let (stored, lastFeed) = try await database.write { db in
            // Records the models could not decode are tried again by this pull's first batch.
            for name in names { try ParkedRecords(table: name).retryUndecodableRecords(db) }
            let row = try position.row(db)
            return (row?.cursor.map(SyncCursor.init(rawValue:)), row?.feed)
        }
        // A cursor of another feed means nothing to this one: start over.
        let cursor = !fromStart && (lastFeed == nil || lastFeed == feed.feedIdentifier) ? stored : nil
        // A first sync (no cursor yet) is applied in growing steps: its first page alone, then twice as
        // many records each time, up to a batch: SQLite starts on the first page while the rest is
        // fetched and decoded, readers see the first records early, and a first sync cut short keeps
        // what it applied. Later syncs gather up to a whole batch, so that readers see a small one
        // whole.
        let batchSize = feedConfiguration.batchSize
        let loop = PullLoop(
            engine: database.tableRegistry.engine(over: tables, on: database),
            source: FeedBatchSource(feed: feed, tables: tables, configuration: feedConfiguration),
            firstBatchSize: cursor == nil ? min(feedConfiguration.pageSize, batchSize) : batchSize,
            batchSize: batchSize, restartsOnUnknownCursor: true, seed: random.next())
        let states = names.map { SyncStateStore(table: $0) }
        let identifier = feed.feedIdentifier
        var total = 0
        try await loop.run(after: cursor, retries: retries) { db, batch in
            try position.save(cursor: batch.nextCursor, feed: identifier, db)
            // Each table's local changes are based on the position the cache is at: the server tells a
            // conflict from it (a table's own cursor is what its queued changes carry).
            for state in states {
                try state.setCursor(batch.nextCursor, db)
                if !batch.hasMore { try state.forgetAcknowledgements(db) }
            }
        } applied: { batch in
            total += batch.recordCount
            checks.add(batch.checkRequests)
            broadcaster.yield(.applied(table: nil, records: batch.recordCount, totalRecords: total))
        }
    }
}
