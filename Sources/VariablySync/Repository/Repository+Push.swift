import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Push

extension Repository {
    func pushPendingChanges(into report: inout SyncReport) async throws {
        for round in 0...max(configuration.maxConflictRounds, 0) {
            let queue = try database.read { try state.pending($0) }
            guard !queue.isEmpty else { return }
            var rebased = false
            var start = 0
            while start < queue.count {
                try Task.checkCancellation()
                let batch = Array(queue[start..<min(start + configuration.pushBatchSize, queue.count)])
                start += batch.count
                let (changes, sent) = try makeChanges(batch)
                guard !changes.isEmpty else { continue }
                let state = self.state
                try database.write { try state.markSent(changes.map(\.idempotencyKey), $0) }
                let remote = self.remote
                var generator = SplitMix64(seed: random.next())
                let results = try await Self.retrying(
                    policy: configuration.retryPolicy, random: &generator, retries: &report.retries,
                    broadcaster: broadcaster
                ) { try await remote.push(changes) }
                let isLastRound = round == configuration.maxConflictRounds
                rebased = try applyPushResults(results, for: sent, isLastRound: isLastRound, into: &report) || rebased
            }
            if !rebased { return }
        }
    }

    /// The remote changes for queued ones; upserts carry the cached record in the remote key set.
    func makeChanges(_ batch: [PendingChange]) throws -> ([RemoteChange<Model.ID>], [String: PendingChange]) {
        var changes: [RemoteChange<Model.ID>] = []
        var sent: [String: PendingChange] = [:]
        let state = self.state
        for change in batch {
            let id = try Self.id(fromText: change.recordID)
            let operation: RemoteChange<Model.ID>.Operation
            switch change.operation {
            case .delete:
                operation = .delete
            case .upsert:
                guard let model = try database.read({ try $0.fetch(Model.self, id: id) }) else {
                    // Saved, then removed from the cache by a tombstone the push had not settled: nothing to send.
                    try database.write { try state.complete(change, version: nil, $0) }
                    continue
                }
                operation = .upsert(try recordEncoder.encode(model))
            }
            changes.append(
                RemoteChange(
                    idempotencyKey: change.idempotencyKey, id: id, operation: operation, baseCursor: change.baseCursor,
                    supersedes: change.supersededKeys))
            sent[change.idempotencyKey] = change
        }
        return (changes, sent)
    }

    /// Settles each pushed change in one transaction; returns whether a change stays queued for another round.
    func applyPushResults(
        _ results: [PushResult<Model.ID>], for sent: [String: PendingChange], isLastRound: Bool,
        into report: inout SyncReport
    ) throws -> Bool {
        let state = self.state
        let policy = configuration.conflictPolicy
        var accepted = 0
        var conflicts: [ConflictReport] = []
        var rejected: [RejectedChange] = []
        var skipped: [SkippedRecord] = []
        var rebased = false
        try database.write { db in
            for (index, result) in results.enumerated() {
                guard let change = sent[result.idempotencyKey] else { continue }
                switch result.outcome {
                case .accepted(let version):
                    try state.complete(change, version: version, db)
                    accepted += 1
                case .rejected(let reason):
                    try state.complete(change, version: nil, db)
                    rejected.append(RejectedChange(id: change.recordID, reason: reason))
                case .conflict(let serverJSON, let version):
                    let server: Model?
                    do {
                        server = try serverJSON.map { try recordDecoder.decode(Model.self, from: $0) }
                    } catch {
                        skipped.append(SkippedRecord(index: index, id: change.recordID, error: error))
                        conflicts.append(ConflictReport(id: change.recordID, policy: policy.name, resolution: .unresolved))
                        continue
                    }
                    let local = change.operation == .delete ? nil : try db.fetch(Model.self, id: result.id)
                    let resolution = policy.resolve(SyncConflict(id: change.recordID, local: local, server: server))
                    let outcome: ConflictReport.Resolution
                    switch resolution {
                    case .keepServer:
                        if let server { try db.upsert(server) } else { try db.delete(Model.self, id: result.id) }
                        try state.complete(change, version: nil, db)
                        outcome = .keptServer
                    case .keepLocal:
                        try state.rebase(change, operation: change.operation, on: version, db)
                        outcome = isLastRound ? .unresolved : .keptLocal
                        rebased = true
                    case .merged(let merged):
                        try db.upsert(merged)
                        try state.rebase(change, operation: .upsert, on: version, db)
                        outcome = isLastRound ? .unresolved : .merged
                        rebased = true
                    }
                    conflicts.append(ConflictReport(id: change.recordID, policy: policy.name, resolution: outcome))
                }
            }
        }
        report.pushed += accepted
        report.rejected += rejected
        report.conflicts += conflicts
        report.skipped += skipped
        broadcaster.yield(.pushed(accepted: accepted, conflicts: conflicts.count, rejected: rejected.count))
        return rebased
    }
}
