import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Push results

extension TablePush {
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
        report.failed += settled.rejected
        report.conflicts += settled.conflicts
        report.skipped += settled.skipped
        table.broadcaster.yield(
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
        let settlement = PushSettlement(
            state: table.state, policy: table.configuration.conflictPolicy, pulledEntries: table.pulledEntries,
            primaryKey: table.primaryKey, recordDecoder: table.recordDecoder, withoutReferences: withoutReferences,
            isLastRound: isLastRound)
        // What the server sent is stored without queueing it again.
        return try await table.database.write { db in
            try settlement.state.withCapturePaused(db) {
                var settled = SettledPush()
                for (index, result) in results.enumerated() {
                    guard let change = sent[result.idempotencyKey] else { continue }
                    try settlement.settle(result, at: index, of: change, into: &settled, db)
                }
                return settled
            }
        }
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
        var rejected: [ReportedChange<Model.ID>] = []
        var skipped: [SkippedRecord<Model.ID>] = []
        /// Whether a change stays queued for another round.
        var rebased = false
    }
}
