import Foundation
import VariablySQLite

// MARK: - Pulling one feed of several tables

extension SyncStore {
    /// A feed page with each table's part decoded: what a checkpoint applies.
    struct DecodedFeedPage: Sendable {
        /// Each member table's part (a `Repository<Model>.FetchedPage`), by table name.
        let parts: [String: any Sendable]
        let nextCursor: SyncCursor
        let hasMore: Bool
        let recordCount: Int
        /// Requests of the page retried after transient failures.
        let retries: Int
    }

    /// Orphans found while a checkpoint was applied: the keys of each table to hold back.
    struct OrphansFound: Error {
        let keys: [String: Set<SQLValue>]
    }

    /// The row of `variably_sync_state` that keeps the feed's cursor: one per set of tables.
    var feedState: SyncStateStore {
        SyncStateStore(table: "variably_feed:" + members.map(\.table).sorted().joined(separator: ","))
    }

    /// The cursor of the last checkpoint the store applied from its feed, or `nil` before the first.
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

    /// Pulls `feed` until caught up, in checkpoints (``ChangeFeedConfiguration/checkpointSize``): the
    /// pages of a checkpoint are decoded while the network fetches the next, then applied, every table
    /// and the feed's cursor, in one transaction.
    ///
    /// - Returns: The feed's requests retried after transient failures.
    func pullFeed(_ feed: any RemoteChangeFeed, into reports: inout [ObjectIdentifier: any SyncReportMerging]) async throws -> Int {
        let state = feedState
        let database = members[0].database
        let (stored, lastFeed) = try await database.read { try (state.cursor($0), state.feed($0)) }
        // A cursor of another feed means nothing to this one: start over.
        var cursor = lastFeed == nil || lastFeed == feed.feedIdentifier ? stored : nil
        var waiting: [DecodedFeedPage] = []
        var waitingRecords = 0
        var retries = 0
        var repeats = (cursor: cursor, count: 0)
        var prefetch: Task<DecodedFeedPage, any Error>? = startFeedFetch(feed, after: cursor)
        defer { prefetch?.cancel() }
        while let task = prefetch {
            let page: DecodedFeedPage
            do {
                page = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
            } catch RemoteSourceError.invalidCursor where cursor != nil && waiting.isEmpty {
                // The server forgot the position: every table starts over from the feed's beginning.
                cursor = nil
                prefetch = startFeedFetch(feed, after: nil)
                continue
            }
            prefetch = nil
            retries += page.retries
            try Task.checkCancellation()
            if page.hasMore {
                repeats = repeats.cursor == page.nextCursor ? (page.nextCursor, repeats.count + 1) : (page.nextCursor, 0)
                if repeats.count > Self.maximumCursorRepeats { throw SyncError.cursorDidNotAdvance(page.nextCursor) }
                prefetch = startFeedFetch(feed, after: page.nextCursor)
            }
            waiting.append(page)
            waitingRecords += page.recordCount
            if !page.hasMore || waitingRecords >= feedConfiguration.checkpointSize {
                let applied = try await applyCheckpoint(waiting, feed: feed.feedIdentifier)
                for (type, report) in applied {
                    reports[type] = reports[type].map { $0.merged(with: report) } ?? report
                }
                cursor = page.nextCursor
                waiting = []
                waitingRecords = 0
            }
        }
        return retries
    }

    /// Pulls the page after `cursor` and decodes each member table's part, off the actor.
    private func startFeedFetch(_ feed: any RemoteChangeFeed, after cursor: SyncCursor?) -> Task<DecodedFeedPage, any Error> {
        let members = self.members
        let configuration = feedConfiguration
        let seed = random.next()
        return Task.detached {
            var random = SplitMix64(seed: seed)
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
    }

    /// Applies `pages` and the last one's cursor in one transaction: the saves of every table parents
    /// first, the deletions children first. A record whose parent is in none of the tables (a child
    /// sent in an earlier page than its parent) is held: the savepoint is rolled back and applied again
    /// without it, and it waits in `variably_held_records` for the checkpoint its parent comes in.
    ///
    /// - Complexity: O(p log n) for p records; with orphans, one more look-up per applied record and
    ///   reference, and the checkpoint applied once more.
    private func applyCheckpoint(_ pages: [DecodedFeedPage], feed: String) async throws -> [ObjectIdentifier: any SyncReportMerging] {
        let members = self.members
        let state = feedState
        guard let last = pages.last else { return [:] }
        return try await members[0].database.write { db in
            let checkpoints = try members.map { member in
                try member.checkpoint(pages.compactMap { $0.parts[member.table] }, db)
            }
            var excluded: [String: Set<SQLValue>] = [:]
            // Each round holds back every orphan it finds (and theirs, transitively); a second round
            // normally commits, a few more cover rows whose removal broke others.
            for round in 1...Self.maximumHoldRounds {
                do {
                    try db.inSavepoint {
                        var applied: [[SQLValue]] = []
                        for checkpoint in checkpoints {
                            applied.append(try checkpoint.applySaves(excluding: excluded[checkpoint.table] ?? [], db))
                        }
                        for checkpoint in checkpoints.reversed() { try checkpoint.applyDeletions(db) }
                        if db.hasUnresolvedForeignKeys, round < Self.maximumHoldRounds {
                            let found = try Self.orphans(checkpoints, applied: applied, db)
                            if !found.isEmpty { throw OrphansFound(keys: found) }
                        }
                        try state.setCursor(last.nextCursor, db)
                        try state.setFeed(feed, db)
                        if !last.hasMore { for checkpoint in checkpoints { try checkpoint.caughtUp(db) } }
                    }
                    break
                } catch let found as OrphansFound {
                    excluded.merge(found.keys) { $0.union($1) }
                }
            }
            var reports: [ObjectIdentifier: any SyncReportMerging] = [:]
            for (member, checkpoint) in zip(members, checkpoints) {
                let pageCount = pages.filter { $0.parts[member.table] != nil }.count
                reports[member.type] = checkpoint.report(pages: pageCount)
            }
            return reports
        }
    }

    /// How many times in a row the feed may answer the same cursor with "more to come" before the pull
    /// stops with ``SyncError/cursorDidNotAdvance(_:)``, as a repository's own pull does.
    static var maximumCursorRepeats: Int { 16 }

    /// How many times a checkpoint is applied at most while orphans are held back.
    static var maximumHoldRounds: Int { 4 }

    /// The applied records whose parents are missing, and those whose parents are among them: each
    /// found orphan's row is removed (inside the savepoint the caller rolls back) and the rest looked
    /// at again, until none is found.
    private static func orphans(
        _ checkpoints: [any TableCheckpointing], applied: [[SQLValue]], _ db: Database
    ) throws -> [String: Set<SQLValue>] {
        var found: [String: Set<SQLValue>] = [:]
        var remaining = applied
        while true {
            var more = false
            for (index, checkpoint) in checkpoints.enumerated() {
                let orphans = try checkpoint.orphans(among: remaining[index], db)
                guard !orphans.isEmpty else { continue }
                more = true
                found[checkpoint.table, default: []].formUnion(orphans)
                remaining[index].removeAll { orphans.contains($0) }
                try checkpoint.remove(orphans, db)
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
