import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Changes the server refused, given up

extension SyncTable {
    /// The table's failed changes, oldest first (see ``Repository/failedChanges()``), inside a read
    /// transaction.
    func failedChanges(_ db: Database) throws -> [FailedChange<Model.ID>] {
        let remoteKeys = Model.keySets[.remote]
        return try state.failed(db).map { change, stored in
            let (reason, fields) = FailedChange<Model.ID>.unpacked(stored)
            let keyPaths = fields.compactMap { field in
                remoteKeys?.entries.first { $0.key.alternatives.contains(field) }?.keyPath
            }
            return FailedChange(
                id: try primaryKey.id(of: change.recordID), operation: change.operation == .delete ? .delete : .save,
                isNew: change.isNew, reason: reason, fields: fields, keyPaths: keyPaths)
        }
    }

    /// Puts the server's copy of the record with `id` back in the cache and forgets its queued change
    /// (see ``Repository/revert(failedChangeOf:)``).
    func revertFailedChange(of id: Model.ID) async throws {
        let state = self.state
        let recordID = try primaryKey.storedID(of: id)
        guard let change = try await database.read({ try state.change(of: recordID, $0) }) else { return }
        let json = change.isNew ? try await serverCopyOfCreate(id: id) : try await remote.currentRecord(id: id)
        let server = try json.map { try KeySetJSONDecoder(source: .remote).decode(Model.self, from: $0) }
        let primaryKey = self.primaryKey
        let pulledEntries = self.pulledEntries
        let key = try primaryKey.sqlValue(of: id)
        try await database.write { db in
            try state.withCapturePaused(db) {
                if let server {
                    try db.upsert([server], primaryKeys: [key], updatingEntries: pulledEntries)
                } else {
                    _ = try db.delete(Model.self, primaryKeys: [key])
                }
            }
            try state.discard(recordID: recordID, db)
        }
    }

    /// The server's record with the id of a create made here, or `nil` when it has none: a source that
    /// cannot read single records, and an id the server would never assign (answered `400`, such as a
    /// provisional one), mean none.
    private func serverCopyOfCreate(id: Model.ID) async throws -> Data? {
        do {
            return try await remote.currentRecord(id: id)
        } catch RemoteSourceError.unavailable {
            return nil
        } catch RemoteSourceError.httpStatus(400, _) {
            return nil
        }
    }
}
