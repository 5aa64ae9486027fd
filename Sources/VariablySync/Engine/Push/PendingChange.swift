import Foundation

/// A local change waiting to be pushed, as stored in `variably_pending_changes`.
struct PendingChange: Sendable {
    enum Operation: String, Sendable {
        case upsert
        case delete
    }

    let sequence: Int64
    /// The record's id, as the sync state keeps it for every model in one column.
    let recordID: StoredRecordID
    let operation: Operation
    let idempotencyKey: String
    /// The version the change is based on: the record's, or the cursor of the pull it was queued after.
    let baseVersion: RecordVersion?
    /// Keys this change replaced after they had been sent: their outcome may never have arrived.
    let supersededKeys: [String]
    /// Whether the server has never accepted the record: it was inserted locally and not pushed yet
    /// (or pushed without an answer). A per-record API creates it (`POST` to the collection).
    let isNew: Bool
    /// The columns an update changed since the record's last accepted push; `nil` when the whole record
    /// is the change (an insert, or an update older than this column).
    let changedColumns: [String]?
    /// Whether it was sent and its answer never arrived (a kill, a timeout): the server may have it.
    var wasSent = false
    /// The record as the push sends it (remote keys), set when the change is sent: a conflict whose
    /// server copy already holds these values is the change's own write, met again.
    var sentRecord: Data?
    /// The JSON a create of the record was sent with, while its answer is unknown.
    var createdRecord: Data?

    /// Whether the server may have applied this change, or one it replaced, already.
    var mayHaveBeenApplied: Bool { wasSent || !supersededKeys.isEmpty }
}
