import Foundation
import VariablySQLite

/// Where a pull's batches come from: one table's source, a page a batch (`TableBatchSource`), or a
/// feed of several tables, its pages gathered into batches (`FeedBatchSource`).
protocol BatchSource: Sendable {
    /// Fetches and decodes what follows `cursor`, retrying transient failures: one page, or pages up to
    /// about `records` records, `cursorGuard` advanced between them.
    ///
    /// - Parameter retries: Counts the requests retried, also when the batch fails in the end.
    func batch(
        after cursor: SyncCursor?, records: Int, cursorGuard: inout CursorGuard, random: inout SplitMix64,
        retries: RunCounter
    ) async throws -> PulledBatch
}

/// Pages pulled and decoded, each table's part apart: what one transaction applies.
struct PulledBatch: Sendable {
    /// Each table's decoded pages, by table name.
    var parts: [String: any TablePages] = [:]
    /// The position the batch brings the cache to.
    var nextCursor: SyncCursor
    /// Whether more changes follow the batch.
    var hasMore: Bool
    var pageCount = 0
    /// Records received, malformed ones included.
    var recordCount = 0
    var deletionCount = 0
    /// Requests that only checked that a short page was the last.
    var checkRequests = 0
}

/// ``BatchSource`` of one table's own source: a page a batch, each applied with the table's cursor.
struct TableBatchSource<Model: SQLiteStorable & Identifiable & Sendable>: BatchSource
where Model.ID: Codable & Sendable {
    let table: SyncTable<Model>

    func batch(
        after cursor: SyncCursor?, records: Int, cursorGuard: inout CursorGuard, random: inout SplitMix64,
        retries: RunCounter
    ) async throws -> PulledBatch {
        let remote = table.remote
        let limit = table.configuration.pageSize
        var attempts = 0
        defer { retries.add(attempts) }
        let page = try await SyncTable<Model>.retrying(
            policy: table.configuration.retryPolicy, random: &random, retries: &attempts,
            broadcaster: table.broadcaster
        ) {
            try await remote.pull(after: cursor, limit: limit)
        }
        let fetched = try table.decode(page)
        return PulledBatch(
            parts: [table.name: FetchedPages(table, pages: [fetched])], nextCursor: page.nextCursor,
            hasMore: page.hasMore, pageCount: 1, recordCount: fetched.recordCount,
            deletionCount: page.deletedIDs.count, checkRequests: page.isCheck ? 1 : 0)
    }
}

/// ``BatchSource`` of a feed of several tables: pages gathered up to a batch, each table's part decoded
/// by its table.
struct FeedBatchSource: BatchSource {
    let feed: any RemoteChangeFeed
    /// The tables whose parts are decoded; a part of any other table is ignored.
    let tables: [any EngineTable]
    let configuration: ChangeFeedConfiguration

    func batch(
        after cursor: SyncCursor?, records: Int, cursorGuard: inout CursorGuard, random: inout SplitMix64,
        retries: RunCounter
    ) async throws -> PulledBatch {
        var batch = PulledBatch(nextCursor: cursor ?? SyncCursor(""), hasMore: true)
        var cursor = cursor
        while true {
            var attempts = 0
            let after = cursor
            let page: RemoteFeedPage
            do {
                page = try await configuration.retryPolicy.retrying(
                    random: &random, retries: &attempts, onRetry: { _, _, _ in }
                ) {
                    try await feed.pull(after: after, limit: configuration.pageSize)
                }
                retries.add(attempts)
            } catch {
                retries.add(attempts)
                throw error
            }
            for table in tables {
                guard let changes = page.tables[table.name] else { continue }
                var pages = batch.parts[table.name] ?? table.makePages()
                let before = pages.recordCount
                try pages.add(changes, cursor: page.nextCursor)
                batch.recordCount += pages.recordCount - before
                batch.deletionCount += changes.deletedIDs.count
                batch.parts[table.name] = pages
            }
            batch.pageCount += 1
            batch.checkRequests += page.isCheck ? 1 : 0
            batch.nextCursor = page.nextCursor
            batch.hasMore = page.hasMore
            guard page.hasMore, batch.recordCount < records else { return batch }
            try cursorGuard.advance(to: page.nextCursor)
            cursor = page.nextCursor
        }
    }
}
