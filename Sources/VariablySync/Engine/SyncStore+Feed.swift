import Foundation
import VariablySQLite

// MARK: - Pulling one feed of several tables

extension SyncStore {
    /// A feed page with each table's part decoded: what a batch applies.
    struct DecodedFeedPage: Sendable {
        /// Each member table's part (a `Repository<Model>.FetchedPage`), by table name.
        let parts: [String: any Sendable]
        let nextCursor: SyncCursor
        let hasMore: Bool
        let recordCount: Int
        /// Requests of the page retried after transient failures.
        let retries: Int
    }

    /// Orphans found while a batch was applied: the keys of each table to hold back.
    struct OrphansFound: Error {
        let keys: [String: Set<SQLValue>]
    }

    /// The row of `variably_sync_state` that keeps the feed's cursor: one per set of tables.
    var feedState: SyncStateStore {
        SyncStateStore(table: "variably_feed:" + members.map(\.table).sorted().joined(separator: ","))
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
    func pullFeed(_ feed: any RemoteChangeFeed, into reports: inout [ObjectIdentifier: any SyncReportMerging]) async throws -> Int {
        let state = feedState
        let database = members[0].database
        let (stored, lastFeed) = try await database.read { try (state.cursor($0), state.feed($0)) }
        // A cursor of another feed means nothing to this one: start over.
        let cursor = lastFeed == nil || lastFeed == feed.feedIdentifier ? stored : nil
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
            var repeats = (cursor: cursor, count: 0)
            do {
                while true {
                    let page: DecodedFeedPage
                    do {
                        page = try await Self.fetch(feed, after: cursor, members: members, configuration: configuration, random: &random)
                    } catch RemoteSourceError.invalidCursor where cursor != nil && !delivered {
                        cursor = nil
                        continue
                    }
                    try Task.checkCancellation()
                    delivered = true
                    guard await buffer.put(page, records: page.recordCount), page.hasMore else { break }
                    repeats = repeats.cursor == page.nextCursor ? (page.nextCursor, repeats.count + 1) : (page.nextCursor, 0)
                    if repeats.count > Self.maximumCursorRepeats { throw SyncError.cursorDidNotAdvance(page.nextCursor) }
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
        _ feed: any RemoteChangeFeed, after cursor: SyncCursor?, members: [Member], configuration: ChangeFeedConfiguration,
        random: inout SplitMix64
    ) async throws -> DecodedFeedPage {
        var retries = 0
        let page = try await configuration.retryPolicy.retrying(random: &random, retries: &retries, onRetry: { _, _, _ in }) {
            try await feed.pull(after: cursor, limit: configuration.pageSize)
        }
        var parts: [String: any Sendable] = [:]
        var records = 0
        for member in members {
            guard let changes = page.tables[member.table] else { continue }
            let part = try member.decodeFeed(changes, page.nextCursor)
            records += (part as? any FeedPart)?.recordCount ?? 0
            parts[member.table] = part
        }
        return DecodedFeedPage(
            parts: parts, nextCursor: page.nextCursor, hasMore: page.hasMore, recordCount: records, retries: retries)
    }

    /// Applies `pages` and the last one's cursor in one transaction: the saves of every table parents
    /// first, the deletions children first. A record whose parent is in none of the tables (a child
    /// sent in an earlier page than its parent) is held: the transaction is rolled back and the
    /// batch applied again without it, and it waits in `variably_held_records` for the batch
    /// its parent comes in. (A transaction, not a savepoint: inside a savepoint, every statement that
    /// checks a foreign key copies the pages it touches into the savepoint's journal.)
    ///
    /// - Complexity: O(p log n) for p records; with orphans, one more look-up per applied record and
    ///   reference, and the batch applied once more.
    private func applyBatch(_ pages: [DecodedFeedPage], feed: String) async throws -> [ObjectIdentifier: any SyncReportMerging] {
        let members = self.members
        let state = feedState
        guard let last = pages.last else { return [:] }
        var excluded: [String: Set<SQLValue>] = [:]
        // Each round holds back every orphan it finds (and theirs, transitively); a second round normally
        // commits, a few more cover rows whose removal broke others.
        for round in 1...Self.maximumParkingRounds {
            let holding = excluded
            do {
                return try await members[0].database.write { db in
                    let batches = try members.map { member in
                        try member.batch(pages.compactMap { $0.parts[member.table] }, db)
                    }
                    var applied: [[SQLValue]] = []
                    for batch in batches {
                        applied.append(try batch.applySaves(excluding: holding[batch.table] ?? [], db))
                    }
                    for batch in batches.reversed() { try batch.applyDeletions(db) }
                    if db.hasUnresolvedForeignKeys, round < Self.maximumParkingRounds {
                        let found = try Self.orphans(batches, applied: applied, db)
                        if !found.isEmpty { throw OrphansFound(keys: found) }
                    }
                    try state.setCursor(last.nextCursor, db)
                    try state.setFeed(feed, db)
                    // Each table's local changes are based on the position the cache is at: the server
                    // tells a conflict from it (a table's own cursor is what its queued changes carry).
                    for batch in batches { try batch.setPosition(last.nextCursor, db) }
                    if !last.hasMore { for batch in batches { try batch.caughtUp(db) } }
                    var reports: [ObjectIdentifier: any SyncReportMerging] = [:]
                    for (member, batch) in zip(members, batches) {
                        let pageCount = pages.filter { $0.parts[member.table] != nil }.count
                        reports[member.type] = batch.report(pages: pageCount)
                    }
                    return reports
                }
            } catch let found as OrphansFound {
                excluded.merge(found.keys) { $0.union($1) }
            }
        }
        // The last round does not look for orphans: its commit fails if one is left.
        preconditionFailure("the last round of applyBatch returns or throws")
    }

    /// How many times in a row the feed may answer the same cursor with "more to come" before the pull
    /// stops with ``SyncError/cursorDidNotAdvance(_:)``, as a repository's own pull does.
    static var maximumCursorRepeats: Int { 16 }

    /// How many times a batch is applied at most while orphans are held back.
    static var maximumParkingRounds: Int { 4 }

    /// The applied records whose parents are missing, and those whose parents are among them: each
    /// found orphan's row is removed (inside the transaction the caller rolls back) and the rest looked
    /// at again, until none is found.
    private static func orphans(
        _ batches: [any TableBatching], applied: [[SQLValue]], _ db: Database
    ) throws -> [String: Set<SQLValue>] {
        var found: [String: Set<SQLValue>] = [:]
        var remaining = applied
        while true {
            var more = false
            for (index, batch) in batches.enumerated() {
                let orphans = try batch.orphans(among: remaining[index], db)
                guard !orphans.isEmpty else { continue }
                more = true
                found[batch.table, default: []].formUnion(orphans)
                remaining[index].removeAll { orphans.contains($0) }
                try batch.remove(orphans, db)
            }
            if !more { return found }
        }
    }
}

/// A decoded part of a feed page that knows its size.
protocol FeedPart: Sendable {
    /// Records received, malformed ones included.
    var recordCount: Int { get }
}

extension Repository.FetchedPage: FeedPart {}
