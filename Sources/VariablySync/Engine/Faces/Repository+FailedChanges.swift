import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Changes the server refused

extension Repository {
    /// The local changes the server refused, oldest first. Each stays queued with the server's
    /// answer, until the app retries, reverts or discards it; a new edit of the record retries it too.
    /// ``SyncReport/failed`` lists the ones a sync met.
    ///
    /// ```swift
    /// let refused = try await repository.failedChanges()
    /// if let first = refused.first { print(first.reason) }
    /// ```
    ///
    /// - Throws: `SQLiteError`.
    public nonisolated func failedChanges() async throws -> [FailedChange<Model.ID>] {
        let table = self.table
        return try await database.read { try table.failedChanges($0) }
    }

    /// Pushes a refused change again with the next sync, as it is now (fix the record first with
    /// `save(_:)`, which retries it by itself). A change *retrying* after repeated `5xx` answers
    /// (``UnsentChange/Status/retrying(_:after:)``) goes with the next sync too, its backoff ended;
    /// a new `save(_:)` of the record ends it as well.
    ///
    /// ```swift
    /// try await repository.retry(failedChangeOf: 42)
    /// try await repository.sync()
    /// ```
    ///
    /// - Throws: `SQLiteError`, `EncodingError` for an id with no JSON form.
    public nonisolated func retry(failedChangeOf id: Model.ID) async throws {
        let state = table.state
        let recordID = try table.primaryKey.storedID(of: id)
        try await database.write { try state.clearFailure(of: recordID, $0) }
    }

    /// Gives up a refused change and leaves the cache as the server has the record: the record is read
    /// from the server (``RemoteSource/currentRecord(id:)``) and written without being queued, or removed
    /// when the server has none, as ``revert(failedChangeOf:)`` does. A source that cannot read single
    /// records (``RemoteSourceError/unavailable(_:)``) leaves the local record as it is, until the next
    /// ``resync(allowingDeletionOf:)`` brings the server's.
    ///
    /// ```swift
    /// try await repository.discard(failedChangeOf: 42)
    /// ```
    ///
    /// - Throws: The source's error when it cannot read the record (nothing changes then), a decoding
    ///   error naming the record, `SQLiteError`, `EncodingError` for an id with no JSON form.
    public nonisolated func discard(failedChangeOf id: Model.ID) async throws {
        let state = table.state
        let recordID = try table.primaryKey.storedID(of: id)
        do {
            try await revert(failedChangeOf: id)
        } catch RemoteSourceError.unavailable {
            try await database.write { try state.discard(recordID: recordID, $0) }
        }
    }

    /// Gives up a refused change and puts the server's copy of the record back in the cache: the record
    /// is read from the server (``RemoteSource/currentRecord(id:)``), written without being queued, and
    /// removed when the server has none (a record deleted there). A refused create is looked up too: the
    /// server may hold a record under the id this device chose (another device's create, or this one's,
    /// applied before its answer was lost), and the cache then takes the server's copy rather than losing
    /// the record.
    ///
    /// ```swift
    /// try await repository.revert(failedChangeOf: 42)
    /// ```
    ///
    /// - Throws: The source's error when it cannot read the record (nothing changes then), a decoding
    ///   error naming the record, `SQLiteError`.
    public nonisolated func revert(failedChangeOf id: Model.ID) async throws {
        try await table.revertFailedChange(of: id)
    }
}
