import Foundation
import VariablySQLite

/// The one pull loop, for a ``Repository`` pulling its own source (a one-table feed, a page a batch)
/// and a ``SyncStore`` pulling a feed of several tables: batches are fetched and decoded ahead, off the
/// writer, while the `PullEngine` applies the last one with its position in one transaction, so that
/// the network, the JSON decoding and SQLite overlap.
struct PullLoop: Sendable {
    let engine: PullEngine
    let source: any BatchSource
    /// The records of the first batch; each next one takes twice as many, up to `batchSize`.
    let firstBatchSize: Int
    /// The most records of a batch, and of the batches fetched ahead of the writer.
    let batchSize: Int
    /// Whether a cursor the server no longer knows starts the pull over from the beginning (a feed),
    /// rather than ending it with ``RemoteSourceError/invalidCursor(_:)`` (a table's source: its sync
    /// decides whether to resync).
    let restartsOnUnknownCursor: Bool
    /// Seeds the retries' jitter.
    let seed: UInt64

    /// Pulls from after `cursor` until caught up.
    ///
    /// - Parameters:
    ///   - position: Writes the position a batch brings the cache to, inside its transaction.
    ///   - applied: Told of each batch once it has committed.
    ///   - retries: Counts the requests retried, also when the pull fails.
    ///   - isolation: Where `applied` runs: the caller's actor.
    func run(
        after cursor: SyncCursor?, retries: RunCounter, isolation: isolated (any Actor)? = #isolation,
        position: @escaping @Sendable (Database, PulledBatch) throws -> Void,
        applied: (PulledBatch) async throws -> Void
    ) async throws {
        let buffer = BatchPrefetcher<PulledBatch>(capacity: batchSize)
        let producer = startProducing(after: cursor, retries: retries, into: buffer)
        defer { producer.cancel() }
        do {
            while let batch = try await withTaskCancellationHandler(
                operation: { try await buffer.next() }, onCancel: { producer.cancel() })
            {
                try Task.checkCancellation()
                try await engine.apply(batch.parts) { db in try position(db, batch) }
                try await applied(batch)
            }
        } catch {
            await buffer.close()
            throw error
        }
        await buffer.close()
    }

    /// Starts the task that fetches and decodes the batches after `cursor` one after the other and hands
    /// them to `buffer`, off the caller, until caught up or the buffer is closed.
    private func startProducing(
        after cursor: SyncCursor?, retries: RunCounter, into buffer: BatchPrefetcher<PulledBatch>
    ) -> Task<Void, Never> {
        let loop = self
        return Task.detached {
            var random = SplitMix64(seed: loop.seed)
            var cursor = cursor
            var delivered = false
            var cursorGuard = CursorGuard(startingAfter: cursor)
            var target = loop.firstBatchSize
            do {
                while true {
                    let batch: PulledBatch
                    do {
                        batch = try await loop.source.batch(
                            after: cursor, records: target, cursorGuard: &cursorGuard, random: &random,
                            retries: retries)
                    } catch RemoteSourceError.invalidCursor
                        where loop.restartsOnUnknownCursor && cursor != nil && !delivered
                    {
                        cursor = nil
                        cursorGuard = CursorGuard(startingAfter: nil)
                        continue
                    }
                    try Task.checkCancellation()
                    delivered = true
                    guard await buffer.put(batch, records: batch.recordCount), batch.hasMore else { break }
                    try cursorGuard.advance(to: batch.nextCursor)
                    cursor = batch.nextCursor
                    target = min(target * 2, loop.batchSize)
                }
                await buffer.finish(.success(()))
            } catch {
                await buffer.finish(.failure(error))
            }
        }
    }
}
