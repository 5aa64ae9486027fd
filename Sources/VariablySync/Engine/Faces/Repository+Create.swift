import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Records the server numbers

extension Repository where Model.ID: FixedWidthInteger & SignedInteger {
    /// Creates a record whose id the server assigns: `make` gets a provisional local id (negative, below
    /// every id in the cache and in the queue), and the record is written and queued in one
    /// transaction. When the server accepts it and answers with the id it assigned, that id replaces
    /// the provisional one in the row and in every queued change of the record, in one transaction.
    ///
    /// ```swift
    /// let draft = try await posts.create { Post(id: $0, authorID: me.id, title: "Offline draft") }
    /// try await posts.sync()
    /// let stored = try await posts.fetch(where: #Predicate { $0.title == "Offline draft" }).first
    /// print(stored?.id)   // the server's id, e.g. 42
    /// ```
    ///
    /// The collection must be declared as one that creates with `POST` and answers with the record,
    /// its id among the ``HTTPRecordEndpoints`` read-only fields (see `docs/http.md`).
    ///
    /// - Parameter make: Builds the record from its provisional id; the record's `id` must be that id.
    /// - Returns: The record as written, with its provisional id.
    /// - Throws: `SQLiteError`, an encoding error, or what `make` throws; then nothing is written.
    public nonisolated func create(_ make: @escaping @Sendable (Model.ID) throws -> Model) async throws -> Model {
        let table = self.table
        return try await database.write { db in
            let id = try table.provisionalID(db)
            return try SyncTable<Model>.insertCreated(make(id), id: id, db)
        }
    }
}

// MARK: - Records the device names

extension Repository where Model.ID == String {
    /// Creates a record whose id this device makes, in the form the source declares
    /// (``RemoteSource/newRecordIDs``: a UUID, or the server's own form such as PocketBase's 15
    /// characters of `[a-z0-9]`): `make` gets a new id, unused in the cache and the queue, and the
    /// record is written and queued in one transaction. The server keeps the id, so a create whose
    /// answer is lost is found again by it.
    ///
    /// ```swift
    /// let user = try await users.create { User(id: $0, userName: "offline") }
    /// try await users.sync()   // POST …/records with "id": "k3v9x0q2m7c1z5a"
    /// ```
    ///
    /// - Parameter make: Builds the record from its new id; the record's `id` must be that id.
    /// - Returns: The record as written.
    /// - Throws: `DeclarationError` when the source's ``NewRecordIDs`` cannot make an id, `SQLiteError`, an encoding error, or what `make` throws; then nothing is written.
    public nonisolated func create(_ make: @escaping @Sendable (String) throws -> Model) async throws -> Model {
        let table = self.table
        let form = try table.newRecordIDs()
        return try await database.write { db in
            let id = try table.newID(in: form, db)
            return try SyncTable<Model>.insertCreated(make(id), id: id, db)
        }
    }
}
