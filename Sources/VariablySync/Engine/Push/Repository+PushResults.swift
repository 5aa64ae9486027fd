import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Push results

extension Repository {
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
