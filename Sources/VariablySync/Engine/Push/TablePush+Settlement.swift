import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Push settlement

extension TablePush {
    /// Settles the server's answers to pushed changes inside one write transaction, with capture paused:
    /// an accepted change completes (a create adopts the server's id), a refused one waits for the app, a
    /// conflict is resolved by the policy.
    struct PushSettlement: Sendable {
        let state: SyncStateStore
        let policy: ConflictPolicy<Model>
        let pulledEntries: [Int]
        let primaryKey: PrimaryKey<Model>
        let recordDecoder: JSONDecoder
        /// The idempotency keys of creates sent with references left empty, to break a cycle.
        let withoutReferences: Set<String>
        /// Whether a change kept here is not sent again in this push.
        let isLastRound: Bool

        /// Settles the answer `result` (the `index`th of its push) to `change`.
        func settle(
            _ result: PushResult<Model.ID>, at index: Int, of change: PendingChange,
            into settled: inout SettledPush, _ db: Database
        ) throws {
            switch result.outcome {
            case .accepted(let version):
                try accept(result, of: change, version: version, into: &settled, db)
            case .rejected(let reason):
                // Never dropped: held with the server's answer until the app decides.
                try state.markFailed(change, failure: reason, db)
                settled.rejected.append(
                    ReportedChange(id: result.id, reason: FailedChange<Model.ID>.unpacked(reason).reason))
            case .conflict(let serverJSON, let version)
            where RemoteChange<Model.ID>.record(
                serverJSON, holds: change.sentRecord,
                paths: change.changedColumns.map { primaryKey.leafPaths(ofColumns: $0, in: .remote) }):
                // The server's copy already holds what this change sends: its own write, applied
                // before an answer was lost (the server ignores idempotency keys), or the same
                // values written by another client. No conflict: nothing here differs.
                try state.complete(change, version: version, db)
                settled.accepted += 1
            case .conflict(let serverJSON, let version):
                try resolveConflict(
                    result, at: index, of: change, serverJSON: serverJSON, version: version, into: &settled, db)
            }
        }

        /// Completes an accepted change; a create adopts the id the server assigned.
        func accept(
            _ result: PushResult<Model.ID>, of change: PendingChange, version: RecordVersion,
            into settled: inout SettledPush, _ db: Database
        ) throws {
            var created: Model?
            if change.isNew, change.operation == .upsert, let record = result.serverRecord {
                guard let server = try? recordDecoder.decode(Model.self, from: record) else {
                    // Held, not dropped: pushing it again could create the record twice.
                    let reason =
                        "the server accepted the new record, but its answer does not decode as "
                        + "\(Model.self), so the id it assigned is unknown; retrying may create it twice"
                    try state.markFailed(change, failure: reason, db)
                    settled.rejected.append(
                        ReportedChange(id: result.id, reason: FailedChange<Model.ID>.unpacked(reason).reason))
                    return
                }
                created = server
            }
            try state.complete(change, version: version, db)
            var recordID = change.recordID
            if let created {
                recordID = try SyncTable<Model>.adopt(
                    created, createdAs: change.recordID, state: state, primaryKey: primaryKey,
                    pulledEntries: pulledEntries, db)
                // The server's copy may reference a record deleted here meanwhile.
                _ = try TablePush.settleDanglingReferences(
                    of: try primaryKey.sqlValue(of: created.id), state: state, primaryKey: primaryKey, db)
            }
            // Created with references left empty: an update sends them once their records exist.
            if withoutReferences.contains(change.idempotencyKey) { try state.requeueWhole(recordID, db) }
            settled.accepted += 1
        }

        /// Resolves a conflict by the policy: the server's copy kept, the local change rebased on the
        /// server's version, or a merge.
        func resolveConflict(
            _ result: PushResult<Model.ID>, at index: Int, of change: PendingChange, serverJSON: Data?,
            version: RecordVersion, into settled: inout SettledPush, _ db: Database
        ) throws {
            let server: Model?
            do {
                server = try serverJSON.map { try recordDecoder.decode(Model.self, from: $0) }
            } catch {
                settled.skipped.append(SkippedRecord(index: index, id: result.id, error: error))
                settled.conflicts.append(ConflictReport(id: result.id, policy: policy.name, resolution: .unresolved))
                return
            }
            let local = change.operation == .delete ? nil : try db.fetch(Model.self, id: result.id)
            var outcome: ConflictReport<Model.ID>.Resolution
            switch policy.resolve(SyncConflict(id: result.id, local: local, server: server)) {
            case .keepServer:
                outcome = try keepServer(server, serverJSON: serverJSON, of: change, id: result.id, db)
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
            settled.conflicts.append(ConflictReport(id: result.id, policy: policy.name, resolution: outcome))
        }

        /// Stores the server's copy (or its deletion) in place of the local change.
        func keepServer(
            _ server: Model?, serverJSON: Data?, of change: PendingChange, id: Model.ID, _ db: Database
        ) throws -> ConflictReport<Model.ID>.Resolution {
            guard let server else {
                try db.delete(Model.self, id: id)
                return .keptServer
            }
            let key = try primaryKey.sqlValue(of: server.id)
            try db.upsert([server], primaryKeys: [key], updatingEntries: pulledEntries)
            // A record it references may be deleted here, that deletion still to push.
            let (dangling, isRemoved) = try TablePush.settleDanglingReferences(
                of: key, state: state, primaryKey: primaryKey, db)
            // Should that deletion lose its own conflict, the record comes back: the server's
            // copy waits for it, and a newer copy (the deletion's effect there) replaces it.
            if !dangling.isEmpty, let serverJSON {
                try state.parked.park(
                    [ParkedRecords.ParkedRecord(recordID: change.recordID, record: serverJSON, version: nil)], db)
            }
            return isRemoved ? .unresolved : .keptServer
        }
    }
}
