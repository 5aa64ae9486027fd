import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - What a push knows of a record without a version

extension TablePush {
    /// `changes` with the pre-edit records of those whose records have no version kept (see
    /// `SyncStateStore+PreEditRows`): each compares the server's current record with the row as it was
    /// pulled, over the columns a pull writes, as a pull would store it.
    ///
    /// - Parameter sent: The queued changes by idempotency key, whose record ids (JSON text) name the rows.
    func withPreEditRecords(
        _ changes: [RemoteChange<Model.ID>], sent: [String: PendingChange]
    ) async throws -> [RemoteChange<Model.ID>] {
        guard table.recordVersions != nil, !changes.isEmpty else { return changes }
        let state = table.state
        let ids = changes.filter { !$0.isNew }.compactMap { sent[$0.idempotencyKey]?.recordID }
        guard !ids.isEmpty else { return changes }
        let rows = try await table.database.read { try state.preEditRows.preEditRows(of: ids, $0) }
        guard !rows.isEmpty else { return changes }
        let primaryKey = table.primaryKey
        let entries = table.pulledEntries
        let decoder = table.recordDecoder
        return changes.map { change in
            guard !change.isNew, let recordID = sent[change.idempotencyKey]?.recordID, let row = rows[recordID]
            else { return change }
            var change = change
            change.preEditRecord = PreEditRecord { json in
                let server = try decoder.decode(Model.self, from: json)
                let stored = try primaryKey.storedValues(of: server, entries: entries)
                return stored.allSatisfy { column, value in row[column].map { Self.isSame($0, value) } ?? true }
            }
            return change
        }
    }

    /// Whether two stored values are the same: equal, or the same number as an integer and a real.
    static func isSame(_ kept: SQLValue, _ server: SQLValue) -> Bool {
        switch (kept, server) {
        case (.integer(let integer), .real(let real)), (.real(let real), .integer(let integer)):
            return Double(integer) == real
        default:
            return kept == server
        }
    }

    /// A create's JSON with its empty client reference (`null`, absent or `""`) filled with a new UUID,
    /// written to the cached row first (capture paused), so that a create sent again after a kill carries
    /// the same reference and its look-up finds the first one. The JSON as it is when the source declares
    /// no client reference, the record has one, or the model cannot take one from its remote JSON.
    func fillingClientReference(of json: Data, recordID: StoredRecordID, encoder: KeySetJSONEncoder) async throws
        -> Data
    {
        guard let field = (table.remote as? any ClientReferencingSource)?.clientReferenceField,
            var object = try? JSONSerialization.jsonObject(with: json) as? [String: Any]
        else { return json }
        let current = object[field]
        guard current == nil || current is NSNull || (current as? String)?.isEmpty == true,
            let key = recordID.key,
            let column = table.primaryKey.quotedColumn(forTopLevelKey: field, in: .remote)
        else { return json }
        object[field] = UUID().uuidString
        guard let filledJSON = try? JSONSerialization.data(withJSONObject: object),
            let filled = try? table.recordDecoder.decode(Model.self, from: filledJSON),
            let value = try table.primaryKey.storedValues(of: filled, entries: nil)
                .first(where: { SQL.quote($0.key) == column })?.value
        else { return json }
        let state = table.state
        let sql = "UPDATE \(table.primaryKey.quotedTable) SET \(column) = ? WHERE \(table.primaryKey.quotedColumn) = ?"
        try await table.database.write { db in
            try state.withCapturePaused(db) { try db.execute(sql: sql, arguments: [value, key]) }
        }
        return try encoder.encode(filled)
    }
}
