import Foundation
import VariablyCodable
import VariablySQLite

/// A row of `variably_pending_changes`: the one queued change of a record, from the local write that
/// made it to the server's acceptance. Read through the package's row coding; written by the capture
/// triggers and the store's SQL.
struct QueuedChangeRow: VariablyCodable, SQLiteStorable, Sendable, Equatable {
    /// The queue's order within a transaction group.
    var sequence: Int64
    /// The model table the record belongs to.
    var tableName: String
    /// The record's id, as the sync state keeps it.
    var recordID: StoredRecordID
    /// `upsert` or `delete`.
    var operation: String
    /// The key the server recognises the change by; a new one whenever the change is replaced.
    var idempotencyKey: String
    /// The record version (or the position) the change is based on, `nil` before the first pull; its
    /// column keeps the name caches have been written with.
    var baseVersion: String?
    /// When the change was first queued.
    var createdAt: Date
    /// Whether it was sent and its answer never arrived.
    var isSent: Bool
    /// Keys of replaced changes that had been sent.
    var supersededKeys: [String]
    /// Whether the server has never accepted the record.
    var isNew: Bool
    /// The columns an update changed, `nil` for the whole record.
    var changedColumns: [String]?
    /// The server's refusal, while the change waits for the app (a *failed* change).
    var failure: String?
    /// The local transaction that made it last, in commit order; `nil` until its transaction ends.
    var transactionGroup: Int64?
    /// When a change the server kept failing is sent again (a *retrying* change).
    var retryAt: Date?
    /// The syncs a retrying change failed in.
    var attempts: Int
    /// The last failure of a retrying change.
    var lastError: String?
    /// The JSON a create was sent with, while its answer is unknown.
    var createdRecord: Data?

    init(from container: DecodingContainer<QueuedChangeRow>) throws {
        sequence = try container.decode(\.sequence)
        tableName = try container.decode(\.tableName)
        recordID = try container.decode(\.recordID)
        operation = try container.decode(\.operation)
        idempotencyKey = try container.decode(\.idempotencyKey)
        baseVersion = try container.decode(\.baseVersion)
        createdAt = try container.decode(\.createdAt)
        isSent = try container.decode(\.isSent)
        supersededKeys = try container.decode(\.supersededKeys, default: [])
        isNew = try container.decode(\.isNew)
        changedColumns = try container.decode(\.changedColumns)
        failure = try container.decode(\.failure)
        transactionGroup = try container.decode(\.transactionGroup)
        retryAt = try container.decode(\.retryAt)
        attempts = try container.decode(\.attempts, default: 0)
        lastError = try container.decode(\.lastError)
        createdRecord = try container.decode(\.createdRecord)
    }

    static let keySets = KeySets<QueuedChangeRow>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.sequence, "sequence")
            Key(\.tableName, "table_name")
            Key(\.recordID, "record_id")
            Key(\.operation, "operation")
            Key(\.idempotencyKey, "idempotency_key")
            Key(\.baseVersion, "base_cursor")
            Key(\.createdAt, "created_at")
            Key(\.isSent, "sent")
            Key(\.supersededKeys, "superseded_keys")
            Key(\.isNew, "is_new")
            Key(\.changedColumns, "changed_columns")
            Key(\.failure, "failure")
            Key(\.transactionGroup, "transaction_group")
            Key(\.retryAt, "retry_at")
            Key(\.attempts, "attempts")
            Key(\.lastError, "last_error")
            Key(\.createdRecord, "created_record")
        }
    }

    static let sqliteTable = SQLiteTable<QueuedChangeRow>("variably_pending_changes", primaryKey: \.sequence)

    /// The columns the store reads, in a `SELECT`.
    static let selection = """
        "sequence", "table_name", "record_id", "operation", "idempotency_key", "base_cursor", "created_at", "sent",
        "superseded_keys", "is_new", "changed_columns", "failure", "transaction_group", "retry_at", "attempts",
        "last_error", "created_record"
        """

    /// The change as the push reads it, or `nil` for an operation this version does not know.
    var pendingChange: PendingChange? {
        guard let operation = PendingChange.Operation(rawValue: operation) else { return nil }
        var change = PendingChange(
            sequence: sequence, recordID: recordID, operation: operation, idempotencyKey: idempotencyKey,
            baseVersion: baseVersion.map(RecordVersion.init(rawValue:)), supersededKeys: supersededKeys, isNew: isNew,
            changedColumns: changedColumns)
        change.wasSent = isSent
        change.createdRecord = createdRecord
        return change
    }
}
