import Foundation
import VariablySQLite

// MARK: - Ids as the sync state keeps them

extension PrimaryKey where Model: Identifiable, Model.ID: Codable {
    /// `id` as the sync state keeps it: the JSON text of the key as the model's table stores it,
    /// converted through the column's coding (text in NFC, a raw value as its raw value).
    ///
    /// - Throws: `EncodingError` when `id` does not fit the column, or is stored as neither an integer
    ///   nor text (which ``SyncTable`` refuses when it opens).
    func storedID(of id: Model.ID) throws -> StoredRecordID {
        let key = try sqlValue(of: id)
        guard let stored = StoredRecordID(key: key) else {
            throw EncodingError.invalidValue(
                id, .init(codingPath: [], debugDescription: "\(table)'s key \(key) is neither an integer nor text"))
        }
        return stored
    }

    /// The id the sync state keeps as `stored`, read as the model's table reads its key column.
    ///
    /// - Throws: `DecodingError` when `stored` is not an id of this table.
    func id(of stored: StoredRecordID) throws -> Model.ID {
        guard let key = stored.key else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "\(table) record id \(stored) is not a stored key's JSON text"))
        }
        return try id(stored: key, as: Model.ID.self)
    }
}
