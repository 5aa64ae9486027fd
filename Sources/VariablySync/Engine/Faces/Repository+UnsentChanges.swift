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
        let table = self.table
        return try await database.read { try table.unsentChanges($0) }
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
        let table = self.table
        return database.observe(tables: ["variably_pending_changes"]) { try table.unsentChanges($0) }
    }
}
