import Foundation
import VariablySQLite

// MARK: - What has not reached the server

extension Repository {
    /// Every local change of this table not yet accepted by the server, oldest first, with where it
    /// stands: queued, sent and awaiting an answer, waiting for a parent's create, refused and waiting
    /// for the app, or retried later after the server kept failing.
    ///
    /// ```swift
    /// let unsent = try await repository.unsentChanges()
    /// badge.count = unsent.count
    /// ```
    ///
    /// - Throws: `SQLiteError`.
    /// - Complexity: O(q) in the queued changes of the table, plus two indexed look-ups per change and
    ///   reference for the waiting ones.
    public nonisolated func unsentChanges() async throws -> [UnsentChange] {
        let read = unsentChangesReader
        return try await database.read { try read($0) }
    }

    /// ``unsentChanges()`` now and after every change to the queue: for a badge that counts what has
    /// not reached the server.
    ///
    /// ```swift
    /// for try await unsent in repository.observeUnsentChanges() { badge.count = unsent.count }
    /// ```
    ///
    /// - Returns: An asynchronous sequence of lists; it ends when the consuming task is cancelled.
    public nonisolated func observeUnsentChanges() -> AsyncThrowingStream<[UnsentChange], any Error> {
        database.observe(tables: ["variably_pending_changes"], unsentChangesReader)
    }

    /// Reads ``unsentChanges()`` inside a read transaction.
    nonisolated var unsentChangesReader: @Sendable (Database) throws -> [UnsentChange] {
        let state = self.state
        let primaryKey = self.primaryKey
        return { db in
            let held = try state.heldChanges(
                primaryKeyColumn: primaryKey.quotedColumn, references: primaryKey.references, db)
            return try state.unsent(held: held, db)
        }
    }
}

extension SyncStateStore {
    /// This table's queued changes as ``UnsentChange``s, `held` telling those waiting for a parent.
    func unsent(held: [String: Hold], _ db: Database) throws -> [UnsentChange] {
        let now = Date()
        return try queuedRows(where: "1", db).map { row in
            let status: UnsentChange.Status
            if let failure = row.failure {
                status = .refused(failure)
            } else if let retryAt = row.retryAt, retryAt > now {
                status = .retrying(row.lastError ?? "", after: retryAt)
            } else if let hold = held[row.recordID] {
                status = .waitingForParent(hold.reason)
            } else if row.isSent {
                status = .awaitingAnswer
            } else {
                status = .queued
            }
            return UnsentChange(
                table: table, recordID: row.recordID, isDeletion: row.operation == "delete", isNew: row.isNew,
                status: status)
        }
    }
}
