import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Push

extension Repository {
    /// Pushes the queue in batches. The queue is read in one statement per round, and the records of a
    /// batch in one indexed query per 500 changes.
    ///
    /// A change of a record that references a record the server does not have yet (created here, its
    /// create not accepted) is held: it goes once that create is accepted, in the same sync when it
    /// comes first (a self-reference, or a parent table pushed before), and is reported in
    /// ``SyncReport/held`` otherwise, with the parent's refusal when there is one.
    ///
    /// Changes go in the order of the local transactions that made them (see `SyncStateStore`'s
    /// transaction groups).
    ///
    /// - Parameters:
    ///   - operations: The operations pushed: a ``SyncStore`` pushes creates and updates parents first,
    ///     then deletions children first.
    ///   - throughGroup: The last transaction group pushed (`nil`: all): a store's round.
    func pushPendingChanges(
        into report: inout SyncReport<Model.ID>, operations: Set<PendingChange.Operation> = [.upsert, .delete],
        throughGroup: Int64? = nil
    ) async throws {
        // A read-only source: local changes stay queued (pendingChangeCount tells how many).
        guard remote.acceptsPushes else { return }
        var round = 0
        var hasResolvedDoubt = false
        while round <= max(configuration.maxConflictRounds, 0) {
            let state = self.state
            let primaryKey = self.primaryKey
            let (pending, held) = try await database.read { db in
                try (
                    state.pending(throughGroup: throughGroup, db),
                    state.heldChanges(primaryKeyColumn: primaryKey.quotedColumn, references: primaryKey.references, db)
                )
            }
            var queue = pending.filter { operations.contains($0.operation) && held[$0.recordID] == nil }
            // A cycle of new records (each waits for another through an optional reference): the
            // oldest is created with those references empty, and completed by an update once they exist.
            var withoutReferences: [String: Set<String>] = [:]
            if queue.isEmpty, operations.contains(.upsert),
                let first = pending.first(where: { change in
                    change.isNew && change.operation == .upsert
                        && held[change.recordID].map { !$0.isBlockedByRequired } == true
                }), let hold = held[first.recordID]
            {
                withoutReferences[first.idempotencyKey] = hold.optionalColumns
                queue = [first]
            }
            // Creates in doubt go first, alone: adopting the server's copy of one takes the place of a copy
            // pulled meanwhile, whose edit here is carried over (and based on the create) only while it is
            // still queued. The rest is read again after them.
            var isResolvingDoubt = false
            if !hasResolvedDoubt {
                hasResolvedDoubt = true
                let inDoubt = queue.filter { $0.isNew && $0.mayHaveBeenApplied && $0.operation == .upsert }
                if !inDoubt.isEmpty, inDoubt.count < queue.count {
                    queue = inDoubt
                    isResolvingDoubt = true
                }
            }
            let sending = Set(queue.map(\.recordID))
            report.held = try held.filter { !sending.contains($0.key) }
                .sorted { $0.key < $1.key }.map {
                    RejectedChange(id: try Self.id(fromText: $0.key), reason: $0.value.reason)
                }
            guard !queue.isEmpty else { return }
            let pushedBefore = report.pushed
            var rebased = false
            var start = 0
            while start < queue.count {
                try Task.checkCancellation()
                let batch = Array(queue[start..<min(start + configuration.pushBatchSize, queue.count)])
                start += batch.count
                let (changes, sent, vanished) = try await makeChanges(batch, withoutReferences: withoutReferences)
                report.conflicts += vanished.map {
                    ConflictReport(id: $0, policy: "deleted on the server with its parent", resolution: .keptServer)
                }
                guard !changes.isEmpty else { continue }
                try await database.write { try state.markSent(changes, $0) }
                let remote = self.remote
                let isLastRound = round == configuration.maxConflictRounds
                let emptied = Set(withoutReferences.keys)
                // Each answer is committed as it arrives, not when the whole batch is answered: a kill
                // loses at most the answers of the requests in flight.
                let arrived = ArrivedResults()
                let settleOnArrival: @Sendable (PushResult<Model.ID>) async -> Void = { result in
                    do {
                        let settled = try await self.settle(
                            [result], for: sent, withoutReferences: emptied, isLastRound: isLastRound)
                        arrived.add(result.idempotencyKey, settled)
                    } catch {
                        // Settled with the rest when the push returns.
                    }
                }
                var unanswered = changes
                while !unanswered.isEmpty {
                    var generator = SplitMix64(seed: random.next())
                    let asked = unanswered
                    let results: [PushResult<Model.ID>]
                    // A retry sends changes whose answers a failure may have swallowed after the server
                    // applied them (a timeout, a lost connection): said so, a create is looked up by its
                    // client reference before it is sent again.
                    let resent = asked.map { change in
                        var change = change
                        change.mayHaveBeenApplied = true
                        return change
                    }
                    let attempts = Attempts()
                    do {
                        let answered = try await Self.retrying(
                            policy: configuration.retryPolicy, random: &generator, retries: &report.retries,
                            broadcaster: broadcaster
                        ) {
                            let sending = attempts.next() == 1 ? asked : resent
                            if let streaming = remote as? any ResultStreamingSource<Model> {
                                return try await streaming.push(sending, onResult: settleOnArrival)
                            }
                            return try await remote.push(sending)
                        }
                        try Self.checkResults(answered, answer: asked)
                        results = answered
                        unanswered = []
                    } catch let partial as PartialPush<Model.ID> {
                        // Settle what the server answered; retry only the rest.
                        let answered = Set(partial.results.map(\.idempotencyKey))
                        let remaining = asked.filter { !answered.contains($0.idempotencyKey) }
                        guard remaining.count < asked.count else { throw partial.error }
                        try Self.checkResults(
                            partial.results, answer: asked.filter { answered.contains($0.idempotencyKey) })
                        results = partial.results
                        unanswered = remaining.map { change in
                            var change = change
                            change.mayHaveBeenApplied = true
                            return change
                        }
                        report.retries += 1
                    } catch SyncError.retriesExhausted(let attempts, let error) where Self.isServerFailure(error) {
                        // The server answered these with a failure after every retry: they wait, with
                        // the error, for a later sync; the other changes and the pull go on.
                        let waiting = asked.filter { !arrived.keys.contains($0.idempotencyKey) }
                        let reason = "failed \(attempts) times: \(error)"
                        try await database.write {
                            try state.deferRetry(of: waiting.map(\.idempotencyKey), error: reason, $0)
                        }
                        report.deferred += waiting.map { RejectedChange(id: $0.id, reason: reason) }
                        results = []
                        unanswered = []
                    }
                    let settledOnArrival = arrived.keys
                    rebased =
                        try await applyPushResults(
                            results.filter { !settledOnArrival.contains($0.idempotencyKey) }, for: sent,
                            withoutReferences: emptied, isLastRound: isLastRound, into: &report) || rebased
                }
                for settled in arrived.take() { rebased = merge(settled, into: &report) || rebased }
            }
            if isResolvingDoubt {
                continue
            } else if rebased {
                round += 1
            } else if held.isEmpty || report.pushed == pushedBefore {
                // Nothing held, or nothing accepted that could free what is.
                return
            }
        }
    }

    /// The remote changes for queued ones; upserts carry the cached record in the remote key set,
    /// read for the whole batch at once.
    ///
    /// - Parameter withoutReferences: By idempotency key, the columns sent empty (`null`): references to
    ///   records the server does not have yet, in a cycle.
    func makeChanges(
        _ batch: [PendingChange], withoutReferences: [String: Set<String>] = [:]
    ) async throws -> (changes: [RemoteChange<Model.ID>], sent: [String: PendingChange], vanished: [Model.ID]) {
        let primaryKey = self.primaryKey
        let upsertKeys = batch.compactMap {
            $0.operation == .upsert ? SyncStateStore.primaryKey(fromQueueText: $0.recordID) : nil
        }
        let state = self.state
        let (cached, parked) = try await database.read { db in
            let cached = try db.fetch(Model.self, primaryKeys: upsertKeys)
            guard cached.count < upsertKeys.count else { return (cached, [SQLValue: Data]()) }
            // A row out of the cache may be parked with the values it had here (its parent deleted on
            // the server, which keeps it): its edit still goes, from that copy.
            let missing = Set(upsertKeys).subtracting(try cached.map { try primaryKey.sqlValue(of: $0.id) })
            return (cached, try state.parkedRecords(withKeys: Array(missing), db))
        }
        var records: [SQLValue: Model] = [:]
        for model in cached { records[try primaryKey.sqlValue(of: model.id)] = model }

        var changes: [RemoteChange<Model.ID>] = []
        var sent: [String: PendingChange] = [:]
        var vanished: [PendingChange] = []
        for change in batch {
            let id = try Self.id(fromText: change.recordID)
            let operation: RemoteChange<Model.ID>.Operation
            switch change.operation {
            case .delete:
                operation = .delete
            case .upsert:
                let key = SyncStateStore.primaryKey(fromQueueText: change.recordID)
                var json: Data
                if let key, let model = records[key] {
                    json = try recordEncoder.encode(model)
                } else if let key, let copy = parked[key] {
                    json = copy
                } else {
                    // Saved, then removed from the cache by the server's data: its parent's deletion, pulled
                    // and cascaded here. Nothing to send; reported as a conflict the server won.
                    vanished.append(change)
                    continue
                }
                if let columns = withoutReferences[change.idempotencyKey] {
                    json = try Self.nulling(primaryKey.topLevelKeys(ofColumns: columns, in: .remote), in: json)
                }
                operation = .upsert(json)
            }
            let changedKeys = change.changedColumns.map { primaryKey.topLevelKeys(ofColumns: $0, in: .remote) }
            var remoteChange = RemoteChange(
                idempotencyKey: change.idempotencyKey, id: id, operation: operation, baseCursor: change.baseCursor,
                supersedes: change.supersededKeys, isNew: change.isNew, changedKeys: changedKeys)
            remoteChange.mayHaveBeenApplied = change.mayHaveBeenApplied
            if change.operation == .delete, change.isNew, change.mayHaveBeenApplied {
                remoteChange.createdRecord = change.createdRecord
            }
            changes.append(remoteChange)
            var sending = change
            if case .upsert(let json) = operation { sending.sentRecord = json }
            sent[change.idempotencyKey] = sending
        }
        if !vanished.isEmpty {
            let settled = vanished
            try await database.write { db in for change in settled { try state.complete(change, version: nil, db) } }
        }
        return (changes, sent, try vanished.map { try Self.id(fromText: $0.recordID) })
    }

    /// A push is answered with one result per change sent, for exactly those changes: anything else
    /// would leave changes queued forever while every sync reports success.
    static func checkResults(_ results: [PushResult<Model.ID>], answer changes: [RemoteChange<Model.ID>]) throws {
        let sentKeys = Set(changes.map(\.idempotencyKey))
        let answered = Set(results.map(\.idempotencyKey))
        guard results.count == changes.count, answered == sentKeys else {
            throw SyncError.invalidResponse(
                "a push of \(changes.count) change(s) was answered with \(results.count) result(s) for "
                    + "\(answered.intersection(sentKeys).count) of them")
        }
    }

    /// Settles each pushed change in one transaction; returns whether a change stays queued for another round.
    func applyPushResults(
        _ results: [PushResult<Model.ID>], for sent: [String: PendingChange], withoutReferences: Set<String> = [],
        isLastRound: Bool, into report: inout SyncReport<Model.ID>
    ) async throws -> Bool {
        guard !results.isEmpty else { return false }
        let settled = try await settle(
            results, for: sent, withoutReferences: withoutReferences, isLastRound: isLastRound)
        return merge(settled, into: &report)
    }

    /// Adds what a transaction of push results settled to `report`; returns whether a change stays queued
    /// for another round.
    func merge(_ settled: SettledPush, into report: inout SyncReport<Model.ID>) -> Bool {
        report.pushed += settled.accepted
        report.rejected += settled.rejected
        report.conflicts += settled.conflicts
        report.skipped += settled.skipped
        broadcaster.yield(
            .pushed(accepted: settled.accepted, conflicts: settled.conflicts.count, rejected: settled.rejected.count))
        return settled.rebased
    }

    /// Settles the references of the stored row `key` to records deleted here, those deletions still to
    /// push, by each reference's delete rule, as the pushed deletion will on the server: an optional
    /// reference is emptied (the row stays, and so do its own children); a required one takes the row
    /// with it. Stored as it is, the row would fail the transaction at commit, and every push after it.
    /// Runs inside the caller's capture pause.
    ///
    /// - Returns: The dangling references, and whether the row was removed.
    static func settleDanglingReferences(
        of key: SQLValue, state: SyncStateStore, primaryKey: PrimaryKey<Model>, _ db: Database
    ) throws -> (references: [TableReference], isRemoved: Bool) {
        let dangling = try state.danglingReferences(
            of: key, primaryKeyColumn: primaryKey.quotedColumn, references: primaryKey.references, db)
        if dangling.contains(where: { $0.onDelete != .setNull }) {
            _ = try db.delete(Model.self, primaryKeys: [key])
            return (dangling, true)
        }
        if !dangling.isEmpty {
            try state.emptyReferences(dangling, of: key, primaryKeyColumn: primaryKey.quotedColumn, db)
        }
        return (dangling, false)
    }

    /// Whether the server's record `server` holds the values of `sent` (both JSON objects in remote
    /// keys) under `keys`, or under every key of `sent` when `keys` is `nil`.
    static func holds(_ server: Data?, _ sent: Data?, keys: Set<String>?) -> Bool {
        guard let server, let sent,
            let serverObject = try? JSONSerialization.jsonObject(with: server) as? [String: Any],
            let sentObject = try? JSONSerialization.jsonObject(with: sent) as? [String: Any]
        else { return false }
        let compared = keys.map { Array($0) } ?? Array(sentObject.keys)
        guard !compared.isEmpty else { return false }
        return compared.allSatisfy { key in
            let value = sentObject[key] as? NSObject ?? NSNull()
            let serverValue = serverObject[key] as? NSObject ?? NSNull()
            return value.isEqual(serverValue)
        }
    }

    /// Whether `error` is the server's answer of a failure (`5xx`), rather than no answer at all: a
    /// change the server keeps failing waits for a later sync while the others go on.
    static func isServerFailure(_ error: any Error) -> Bool {
        if case RemoteSourceError.httpStatus(let status, _) = error { return (500...599).contains(status) }
        return false
    }

    /// Settles each pushed change in one transaction, and tells what it settled.
    func settle(
        _ results: [PushResult<Model.ID>], for sent: [String: PendingChange], withoutReferences: Set<String>,
        isLastRound: Bool
    ) async throws -> SettledPush {
        let state = self.state
        let policy = configuration.conflictPolicy
        let pulledEntries = self.pulledEntries
        let primaryKey = self.primaryKey
        let recordDecoder = self.recordDecoder
        // What the server sent is stored without queueing it again.
        let settled = try await database.write { db in
            try state.withCapturePaused(db) {
                var settled = SettledPush()
                for (index, result) in results.enumerated() {
                    guard let change = sent[result.idempotencyKey] else { continue }
                    switch result.outcome {
                    case .accepted(let version):
                        var created: Model?
                        if change.isNew, change.operation == .upsert, let record = result.serverRecord {
                            guard let server = try? recordDecoder.decode(Model.self, from: record) else {
                                // Held, not dropped: pushing it again could create the record twice.
                                let reason =
                                    "the server accepted the new record, but its answer does not decode as "
                                    + "\(Model.self), so the id it assigned is unknown; retrying may create it twice"
                                try state.markFailed(change, failure: reason, db)
                                settled.rejected.append(RejectedChange(id: result.id, reason: reason))
                                continue
                            }
                            created = server
                        }
                        try state.complete(change, version: version, db)
                        var recordID = change.recordID
                        if let created {
                            recordID = try Self.adopt(
                                created, createdAs: change.recordID, state: state, primaryKey: primaryKey,
                                pulledEntries: pulledEntries, db)
                            // The server's copy may reference a record deleted here meanwhile.
                            _ = try Self.settleDanglingReferences(
                                of: try primaryKey.sqlValue(of: created.id), state: state, primaryKey: primaryKey, db)
                        }
                        // Created with references left empty: an update sends them once their records exist.
                        if withoutReferences.contains(change.idempotencyKey) { try state.requeueWhole(recordID, db) }
                        settled.accepted += 1
                    case .rejected(let reason):
                        // Never dropped: held with the server's answer until the app decides.
                        try state.markFailed(change, failure: reason, db)
                        settled.rejected.append(RejectedChange(id: result.id, reason: reason))
                    case .conflict(let serverJSON, let version)
                    where Self.holds(
                        serverJSON, change.sentRecord,
                        keys: change.changedColumns.map {
                            primaryKey.topLevelKeys(ofColumns: $0, in: .remote)
                        }):
                        // The server's copy already holds what this change sends: its own write, applied
                        // before an answer was lost (the server ignores idempotency keys), or the same
                        // values written by another client. No conflict: nothing here differs.
                        try state.complete(change, version: version, db)
                        settled.accepted += 1
                    case .conflict(let serverJSON, let version):
                        let server: Model?
                        do {
                            server = try serverJSON.map { try recordDecoder.decode(Model.self, from: $0) }
                        } catch {
                            settled.skipped.append(SkippedRecord(index: index, id: result.id, error: error))
                            settled.conflicts.append(
                                ConflictReport(id: result.id, policy: policy.name, resolution: .unresolved))
                            continue
                        }
                        let local = change.operation == .delete ? nil : try db.fetch(Model.self, id: result.id)
                        let resolution = policy.resolve(SyncConflict(id: result.id, local: local, server: server))
                        var outcome: ConflictReport<Model.ID>.Resolution
                        switch resolution {
                        case .keepServer:
                            outcome = .keptServer
                            if let server {
                                let key = try primaryKey.sqlValue(of: server.id)
                                try db.upsert([server], primaryKeys: [key], updatingEntries: pulledEntries)
                                // A record it references may be deleted here, that deletion still to push.
                                let (dangling, isRemoved) = try Self.settleDanglingReferences(
                                    of: key, state: state, primaryKey: primaryKey, db)
                                if isRemoved { outcome = .unresolved }
                                // Should that deletion lose its own conflict, the record comes back: the server's
                                // copy waits for it, and a newer copy (the deletion's effect there) replaces it.
                                if !dangling.isEmpty, let serverJSON {
                                    try state.park(
                                        [
                                            SyncStateStore.ParkedRecord(
                                                recordID: change.recordID, record: serverJSON, version: nil)
                                        ], db)
                                }
                            } else {
                                try db.delete(Model.self, id: result.id)
                            }
                            // The server's version is the base of the next edit, as a pull would leave it:
                            // based on the one the conflict replaced, it would conflict again.
                            try state.complete(change, version: version, db)
                        case .keepLocal:
                            try state.rebase(change, operation: change.operation, on: version, db)
                            outcome = isLastRound ? .unresolved : .keptLocal
                            settled.rebased = true
                        case .merged(let merged):
                            try db.upsert(merged)
                            try state.rebase(change, operation: .upsert, on: version, db)
                            outcome = isLastRound ? .unresolved : .merged
                            settled.rebased = true
                        }
                        settled.conflicts.append(
                            ConflictReport(id: result.id, policy: policy.name, resolution: outcome))
                    }
                }
                return settled
            }
        }
        return settled
    }

    /// How many times a push was tried.
    ///
    /// `@unchecked Sendable`: `count` is only touched while `lock` is held.
    final class Attempts: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0

        /// The number of the attempt starting now, from 1.
        func next() -> Int {
            lock.withLock {
                count += 1
                return count
            }
        }
    }

    /// The push results settled as their answers arrived, by idempotency key.
    ///
    /// `@unchecked Sendable`: `settled` and `keys` are only touched while `lock` is held.
    final class ArrivedResults: @unchecked Sendable {
        private let lock = NSLock()
        private var settled: [SettledPush] = []
        private var settledKeys: Set<String> = []

        func add(_ key: String, _ push: SettledPush) {
            lock.withLock {
                settled.append(push)
                settledKeys.insert(key)
            }
        }

        /// The keys settled so far.
        var keys: Set<String> { lock.withLock { settledKeys } }

        /// What was settled since the last call.
        func take() -> [SettledPush] {
            lock.withLock {
                defer { settled = [] }
                return settled
            }
        }
    }

    /// What one transaction of push results settled.
    struct SettledPush: Sendable {
        var accepted = 0
        var conflicts: [ConflictReport<Model.ID>] = []
        var rejected: [RejectedChange<Model.ID>] = []
        var skipped: [SkippedRecord<Model.ID>] = []
        /// Whether a change stays queued for another round.
        var rebased = false
    }
}
