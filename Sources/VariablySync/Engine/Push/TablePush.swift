import Foundation
import VariablyCodable
import VariablySQLite

/// One table's push: its queue read in rounds, sent in batches with retries, each answer settled in
/// the writer's transaction as it arrives (see `PushSettlement`).
struct TablePush<Model: SQLiteStorable & Identifiable & Sendable>: Sendable where Model.ID: Codable & Sendable {
    /// The table whose queue is pushed.
    let table: SyncTable<Model>

    /// Pushes the queue in batches. The queue is read in one statement per round, and the records of a
    /// batch in one indexed query per 500 changes.
    ///
    /// A change of a record that references a record the server does not have yet (created here, its
    /// create not accepted) is held: it goes once that create is accepted, in the same sync when it
    /// comes first (a self-reference, or a parent table pushed before), and is reported in
    /// ``SyncReport/waitingForParent`` otherwise, with the parent's refusal when there is one.
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
        guard table.remote.acceptsPushes else { return }
        var round = 0
        var hasResolvedDoubt = false
        while round <= max(table.configuration.maxConflictRounds, 0) {
            let plan = try await planPushRound(
                operations: operations, throughGroup: throughGroup, resolvingDoubt: !hasResolvedDoubt)
            hasResolvedDoubt = true
            report.waitingForParent = plan.held
            guard !plan.queue.isEmpty else { return }
            let pushedBefore = report.pushed
            var rebased = false
            var start = 0
            while start < plan.queue.count {
                try Task.checkCancellation()
                let batch = Array(plan.queue[start..<min(start + table.configuration.pushBatchSize, plan.queue.count)])
                start += batch.count
                rebased =
                    try await pushBatch(
                        batch, withoutReferences: plan.withoutReferences,
                        isLastRound: round == table.configuration.maxConflictRounds, into: &report) || rebased
            }
            if plan.isResolvingDoubt {
                continue
            } else if rebased {
                round += 1
            } else if !plan.hasHeldChanges || report.pushed == pushedBefore {
                // Nothing held, or nothing accepted that could free what is.
                return
            }
        }
    }

    /// What one round of a push sends: the queue read once, less the changes waiting for a parent.
    struct PushRound {
        /// The changes sent this round, in the order of the transactions that made them.
        var queue: [PendingChange]
        /// By idempotency key, the reference columns sent empty to break a cycle of new records.
        var withoutReferences: [String: Set<String>] = [:]
        /// Whether this round sends only the creates in doubt, the rest read again after them.
        var isResolvingDoubt = false
        /// Whether any queued change waits for its parent.
        var hasHeldChanges: Bool
        /// The changes waiting for their parents that this round does not send, for the report.
        var held: [ReportedChange<Model.ID>]
    }

    /// Reads the queue for one round and picks what it sends.
    ///
    /// - Parameter resolvingDoubt: Whether creates in doubt may go first, alone: adopting the server's copy
    ///   of one takes the place of a copy pulled meanwhile, whose edit here is carried over (and based on
    ///   the create) only while it is still queued. The rest is read again after them.
    func planPushRound(
        operations: Set<PendingChange.Operation>, throughGroup: Int64?, resolvingDoubt: Bool
    ) async throws -> PushRound {
        let state = table.state
        let primaryKey = table.primaryKey
        let (pending, held) = try await table.database.read { db in
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
        var isResolvingDoubt = false
        if resolvingDoubt {
            let inDoubt = queue.filter { $0.isNew && $0.mayHaveBeenApplied && $0.operation == .upsert }
            if !inDoubt.isEmpty, inDoubt.count < queue.count {
                queue = inDoubt
                isResolvingDoubt = true
            }
        }
        let sending = Set(queue.map(\.recordID))
        let waiting = try held.filter { !sending.contains($0.key) }
            .sorted { $0.key.rawValue < $1.key.rawValue }.map {
                ReportedChange(id: try primaryKey.id(of: $0.key), reason: $0.value.reason)
            }
        return PushRound(
            queue: queue, withoutReferences: withoutReferences, isResolvingDoubt: isResolvingDoubt,
            hasHeldChanges: !held.isEmpty, held: waiting)
    }

    /// Sends one batch and settles its answers, each committed as it arrives; returns whether a change
    /// stays queued for another round.
    func pushBatch(
        _ batch: [PendingChange], withoutReferences: [String: Set<String>], isLastRound: Bool,
        into report: inout SyncReport<Model.ID>
    ) async throws -> Bool {
        let (changes, sent, vanished) = try await makeChanges(batch, withoutReferences: withoutReferences)
        report.conflicts += vanished.map {
            ConflictReport(id: $0, policy: "deleted on the server with its parent", resolution: .keptServer)
        }
        guard !changes.isEmpty else { return false }
        let state = table.state
        // A source that streams its results says which changes it is about to send, a window at a
        // time (see `send`): only those are in flight. Any other source gets the batch at once.
        if !(table.remote is any ResultStreamingSource<Model>) {
            try await table.database.write { try state.markSent(changes, $0) }
        }
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
        var rebased = false
        var unanswered = changes
        do {
            while !unanswered.isEmpty {
                let results: [PushResult<Model.ID>]
                (results, unanswered) = try await send(
                    unanswered, settlingOnArrival: settleOnArrival, arrived: arrived, into: &report)
                let settledOnArrival = arrived.keys
                rebased =
                    try await applyPushResults(
                        results.filter { !settledOnArrival.contains($0.idempotencyKey) }, for: sent,
                        withoutReferences: emptied, isLastRound: isLastRound, into: &report) || rebased
            }
        } catch {
            // A push cut short (cancelled, failed) still reports what its committed answers settled: a
            // conflict the server won is the app's to hear, whatever stopped the rest.
            for settled in arrived.take() { _ = merge(settled, into: &report) }
            throw error
        }
        for settled in arrived.take() { rebased = merge(settled, into: &report) || rebased }
        return rebased
    }

    /// Sends `asked` with the retry policy; returns the answers and the changes still unanswered.
    func send(
        _ asked: [RemoteChange<Model.ID>],
        settlingOnArrival settleOnArrival: @escaping @Sendable (PushResult<Model.ID>) async -> Void,
        arrived: ArrivedResults, into report: inout SyncReport<Model.ID>
    ) async throws -> (results: [PushResult<Model.ID>], unanswered: [RemoteChange<Model.ID>]) {
        var generator = SplitMix64(seed: table.jitter.next())
        let remote = table.remote
        // A retry sends changes whose answers a failure may have swallowed after the server
        // applied them (a timeout, a lost connection): said so, a create is looked up by its
        // client reference before it is sent again.
        let resent = asked.map { change in
            var change = change
            change.mayHaveBeenApplied = true
            return change
        }
        let attempts = Attempts()
        let state = table.state
        let database = table.database
        // A change is marked in flight (it may be applied without an answer) in the transaction before
        // its request starts, one commit per window of requests.
        let markInFlight: @Sendable ([RemoteChange<Model.ID>]) async throws -> Void = { window in
            try await database.write { try state.markSent(window, $0) }
        }
        do {
            let answered = try await SyncTable<Model>.retrying(
                policy: table.configuration.retryPolicy, random: &generator, retries: &report.retries,
                broadcaster: table.broadcaster
            ) {
                let sending = attempts.next() == 1 ? asked : resent
                if let streaming = remote as? any ResultStreamingSource<Model> {
                    return try await streaming.push(sending, willSend: markInFlight, onResult: settleOnArrival)
                }
                return try await remote.push(sending)
            }
            try Self.checkResults(answered, answer: asked)
            return (answered, [])
        } catch let partial as PartialPush<Model.ID> {
            // Settle what the server answered; retry only the rest.
            let answered = Set(partial.results.map(\.idempotencyKey))
            let remaining = resent.filter { !answered.contains($0.idempotencyKey) }
            guard remaining.count < asked.count else { throw partial.error }
            try Self.checkResults(partial.results, answer: asked.filter { answered.contains($0.idempotencyKey) })
            report.retries += 1
            return (partial.results, remaining)
        } catch SyncError.retriesExhausted(let attempts, let error) where Self.isServerFailure(error) {
            // The server answered these with a failure after every retry: they wait, with
            // the error, for a later sync; the other changes and the pull go on.
            let waiting = asked.filter { !arrived.keys.contains($0.idempotencyKey) }
            let reason = "failed \(attempts) times: \(error)"
            try await database.write {
                try state.deferRetry(of: waiting.map(\.idempotencyKey), error: reason, $0)
            }
            report.retrying += waiting.map { ReportedChange(id: $0.id, reason: reason) }
            return ([], [])
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
        let primaryKey = table.primaryKey
        let upsertKeys = batch.compactMap {
            $0.operation == .upsert ? $0.recordID.key : nil
        }
        let state = table.state
        let observesDates = !table.dateObserver.isEmpty
        let (cached, parked, serverDates) = try await table.database.read { db in
            let cached = try db.fetch(Model.self, primaryKeys: upsertKeys)
            // Dates go in the form the server writes them in, as its latest page showed.
            let serverDates =
                observesDates && !upsertKeys.isEmpty ? try state.serverDates.serverDateFormats(db) : ServerDateFormats()
            guard cached.count < upsertKeys.count else { return (cached, [SQLValue: Data](), serverDates) }
            // A row out of the cache may be parked with the values it had here (its parent deleted on
            // the server, which keeps it): its edit still goes, from that copy.
            let missing = Set(upsertKeys).subtracting(try cached.map { try primaryKey.sqlValue(of: $0.id) })
            return (cached, try state.parked.parkedRecords(withKeys: Array(missing), db), serverDates)
        }
        let recordEncoder = KeySetJSONEncoder(source: .remote, userInfo: [.serverDateFormats: serverDates])
        var records: [SQLValue: Model] = [:]
        for model in cached { records[try primaryKey.sqlValue(of: model.id)] = model }

        var changes: [RemoteChange<Model.ID>] = []
        var sent: [String: PendingChange] = [:]
        var vanished: [PendingChange] = []
        for change in batch {
            let id = try primaryKey.id(of: change.recordID)
            let operation: RemoteChange<Model.ID>.Operation
            switch change.operation {
            case .delete:
                operation = .delete
            case .upsert:
                let key = change.recordID.key
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
                if change.isNew, !change.mayHaveBeenApplied {
                    json = try await fillingClientReference(
                        of: json, recordID: change.recordID, encoder: recordEncoder)
                }
                if let columns = withoutReferences[change.idempotencyKey] {
                    json = try SyncTable<Model>.nulling(
                        primaryKey.topLevelKeys(ofColumns: columns, in: .remote), in: json)
                }
                operation = .upsert(json)
            }
            let changedKeys = change.changedColumns.map { primaryKey.topLevelKeys(ofColumns: $0, in: .remote) }
            var remoteChange = RemoteChange(
                idempotencyKey: change.idempotencyKey, id: id, operation: operation, baseVersion: change.baseVersion,
                supersedes: change.supersededKeys, isNew: change.isNew, changedKeys: changedKeys)
            remoteChange.changedPaths = change.changedColumns.map { primaryKey.leafPaths(ofColumns: $0, in: .remote) }
            remoteChange.mayHaveBeenApplied = change.mayHaveBeenApplied
            if change.isNew, change.mayHaveBeenApplied {
                remoteChange.createdRecords = change.createdRecords
                remoteChange.createdRecord = remoteChange.createdRecords.first
            }
            changes.append(remoteChange)
            var sending = change
            if case .upsert(let json) = operation { sending.sentRecord = json }
            sent[change.idempotencyKey] = sending
        }
        if !vanished.isEmpty {
            let settled = vanished
            try await table.database.write { db in
                for change in settled { try state.complete(change, version: nil, db) }
            }
        }
        let compared = try await withPreEditRecords(changes, sent: sent)
        return (compared, sent, try vanished.map { try primaryKey.id(of: $0.recordID) })
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
}
