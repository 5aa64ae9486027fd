import Foundation
import VariablyCodable

// MARK: - Writes in batches

extension HTTPRecordPusher {
    /// Pushes `changes` through `batch`, up to its ``HTTPBatchEndpoint/maximumRequests`` writes a
    /// request. A change that needs a look-up before its write (a create or a deletion in doubt, a
    /// conditional write with no version kept) goes on its own, as without batches. A batch the server
    /// rolls back as a whole (one write failed, or batches are off) is sent again one request per
    /// change, so that each change gets its own outcome and none is applied twice: nothing of a
    /// rolled-back batch was applied.
    func pushInBatches(
        _ changes: [RemoteChange<Model.ID>], to endpoints: HTTPRecordEndpoints, through batch: HTTPBatchEndpoint,
        willSend: (@Sendable ([RemoteChange<Model.ID>]) async throws -> Void)?,
        onResult: (@Sendable (PushResult<Model.ID>) async -> Void)?
    ) async throws -> [PushResult<Model.ID>] {
        let alone = changes.filter { !isBatchable($0, endpoints: endpoints) }
        let batchable = changes.filter { isBatchable($0, endpoints: endpoints) }
        var results: [PushResult<Model.ID>] = []
        let size = max(batch.maximumRequests, 1)
        for start in stride(from: 0, to: batchable.count, by: size) {
            let window = Array(batchable[start..<min(start + size, batchable.count)])
            do {
                try await willSend?(window)
                let answered: [PushResult<Model.ID>]
                do {
                    answered = try await sendBatch(window, to: endpoints, through: batch)
                } catch let partial as PartialPush<Model.ID> {
                    for result in partial.results { await onResult?(result) }
                    results += partial.results
                    throw partial.error
                }
                for result in answered {
                    results.append(result)
                    await onResult?(result)
                }
            } catch {
                // The answered ones are settled; the rest are retried (a transient failure) or stay queued.
                guard results.isEmpty else { throw PartialPush(results: results, error: error) }
                throw error
            }
        }
        guard !alone.isEmpty else { return results }
        do {
            results += try await pushRecords(alone, to: endpoints, willSend: willSend, onResult: onResult)
        } catch let partial as PartialPush<Model.ID> {
            throw PartialPush(results: results + partial.results, error: partial.error)
        } catch {
            guard results.isEmpty else { throw PartialPush(results: results, error: error) }
            throw error
        }
        return results
    }

    /// Whether `change` is written as it is, with no look-up first: not in doubt, and with the version
    /// its write is conditional on kept (or none needed).
    private func isBatchable(_ change: RemoteChange<Model.ID>, endpoints: HTTPRecordEndpoints) -> Bool {
        guard !change.mayHaveBeenApplied, change.preEditRecord == nil else { return false }
        guard endpoints.versionField != nil, endpoints.concurrency != .none else { return true }
        let isAbsent = change.baseVersion == Requests.absentRecordVersion
        if case .upsert = change.operation, change.isNew || isAbsent { return true }
        let kept = change.baseVersion.map { $0.rawValue.hasPrefix(Requests.recordVersionPrefix) } ?? false
        return kept || isAbsent
    }

    /// One batch of `changes`, each settled by its own answer; the changes one request each when the
    /// server rolled the batch back.
    private func sendBatch(
        _ changes: [RemoteChange<Model.ID>], to endpoints: HTTPRecordEndpoints, through batch: HTTPBatchEndpoint
    ) async throws -> [PushResult<Model.ID>] {
        var prepared: [(request: HTTPRequestHead, isCreate: Bool, recordURL: URL)] = []
        for change in changes {
            guard case .send(let request, let isCreate, let recordURL) = try await prepareRecord(change, to: endpoints)
            else {
                throw RemoteSourceError.invalidResponse("change \(change.idempotencyKey) needed a look-up in a batch")
            }
            prepared.append((request, isCreate, recordURL))
        }
        let url = batch.path.isEmpty ? baseURL : baseURL.appendingPathComponent(batch.path)
        var request = exchange.request(url: url, method: "POST", accept: "application/json")
        request.body = try batch.body(of: prepared.map(\.request))
        request.headers.append(("Content-Type", "application/json"))
        let response = try await exchange.send(request)
        switch try batch.answer(status: response.head.status, body: response.body, count: changes.count) {
        case .applied(let answers):
            var results: [PushResult<Model.ID>] = []
            for (index, change) in changes.enumerated() {
                let answer: HTTPExchange.Response = (
                    HTTPResponseHead(status: answers[index].status, headers: [:]), answers[index].body
                )
                let (outcome, record) = try await finishRecord(
                    change, answeredWith: answer, isCreate: prepared[index].isCreate,
                    recordURL: prepared[index].recordURL, endpoints: endpoints)
                results.append(
                    PushResult(
                        idempotencyKey: change.idempotencyKey, id: change.id, outcome: outcome, serverRecord: record))
            }
            return results
        case .rolledBack(_, let status, _) where [401, 408, 429].contains(status) || status >= 500:
            _ = try HTTPExchange.successBody(response)  // throws: transient, rate limited, or unauthorized
            throw RemoteSourceError.httpStatus(status, body: "")
        case .rolledBack:
            // Nothing of the batch was applied: each change on its own gets its own outcome.
            var results: [PushResult<Model.ID>] = []
            for (index, change) in changes.enumerated() {
                do {
                    let answer = try await exchange.send(prepared[index].request)
                    let (outcome, record) = try await finishRecord(
                        change, answeredWith: answer, isCreate: prepared[index].isCreate,
                        recordURL: prepared[index].recordURL, endpoints: endpoints)
                    results.append(
                        PushResult(
                            idempotencyKey: change.idempotencyKey, id: change.id, outcome: outcome, serverRecord: record
                        ))
                } catch {
                    guard results.isEmpty else { throw PartialPush(results: results, error: error) }
                    throw error
                }
            }
            return results
        }
    }
}
