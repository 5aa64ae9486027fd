import Foundation
import VariablyCodable

// MARK: - Requests in windows

extension HTTPRecordPusher {
    /// One request per change, `maximumConcurrentRequests` at a time (the queue holds one change per
    /// record, so each record's changes stay in order). When a request fails (a transient error, a
    /// timeout) after others were answered, ``PartialPush`` carries the answered ones, so that the
    /// repository settles them and retries only the rest: a create the server has applied is never
    /// sent twice because another record's request failed.
    func pushRecords(
        _ changes: [RemoteChange<Model.ID>], to endpoints: HTTPRecordEndpoints,
        willSend: (@Sendable ([RemoteChange<Model.ID>]) async throws -> Void)? = nil,
        onResult: (@Sendable (PushResult<Model.ID>) async -> Void)? = nil
    ) async throws -> [PushResult<Model.ID>] {
        // The creates in doubt found first, many at a time where the endpoints declare how.
        var found = self
        found.createsFound = try await HTTPCreatesFound.finding(changes, endpoints: endpoints, through: self)
        let pusher = found
        if let batch = endpoints.batch {
            var alone = endpoints
            alone.batch = nil
            return try await pusher.pushInBatches(
                changes, to: alone, through: batch, willSend: willSend, onResult: onResult)
        }
        var results = [PushResult<Model.ID>?](repeating: nil, count: changes.count)
        var failure: (any Error)?
        let window = max(endpoints.maximumConcurrentRequests, 1)
        await withTaskGroup(of: (Int, Result<PushResult<Model.ID>, any Error>).self) { group in
            var next = 0
            // The changes up to this index were announced to `willSend`, a window at a time.
            var announced = 0
            func announce() async -> Bool {
                guard next >= announced, next < changes.count, let willSend else { return true }
                let end = min(announced + window, changes.count)
                do {
                    try await willSend(Array(changes[announced..<end]))
                } catch {
                    if failure == nil { failure = error }
                    return false
                }
                announced = end
                return true
            }
            func startNext() {
                guard next < changes.count, willSend == nil || next < announced else { return }
                let index = next
                next += 1
                group.addTask {
                    let change = changes[index]
                    do {
                        try Task.checkCancellation()
                        let (outcome, record) = try await pusher.pushRecord(change, to: endpoints)
                        return (
                            index,
                            .success(
                                PushResult(
                                    idempotencyKey: change.idempotencyKey, id: change.id, outcome: outcome,
                                    serverRecord: record))
                        )
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            if await announce() {
                for _ in 0..<min(window, changes.count) { startNext() }
            }
            while let (index, result) = await group.next() {
                switch result {
                case .success(let pushed):
                    results[index] = pushed
                    await onResult?(pushed)
                case .failure(let error):
                    // The first failure stops new requests; those on their way finish and are kept.
                    if failure == nil { failure = error }
                }
                if failure == nil, await announce() { startNext() }
            }
        }
        guard let failure else { return results.compactMap { $0 } }
        let answered = results.compactMap { $0 }
        if answered.isEmpty { throw failure }
        throw PartialPush(results: answered, error: failure)
    }
}
