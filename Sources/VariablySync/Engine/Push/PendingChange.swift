import Foundation
import VariablyCodable

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

    /// The records a create in doubt was sent with, oldest first (the create's own, then those of later
    /// sends made before any answer: a create sent again, an adoption's update): the server may hold any
    /// of them. `created_record` keeps one as itself, several as a JSON array.
    var createdRecords: [Data] { Self.createdRecords(in: createdRecord) }

    /// The most records kept for one create in doubt: its first and the latest sends.
    static let maximumCreatedRecords = 8

    /// The records `stored` (a `created_record` value) holds, oldest first.
    static func createdRecords(in stored: Data?) -> [Data] {
        guard let stored else { return [] }
        guard stored.first(where: { $0 > 0x20 }) == UInt8(ascii: "["), let body = try? JSONBody(stored),
            let elements = try? body.elements(of: body.root)
        else { return [stored] }
        return elements.map { body.data($0) }
    }

    /// The `created_record` value that keeps `record` beside the records `stored` holds: `record` alone
    /// at first, a JSON array once there are several (the first and the latest, at most
    /// ``maximumCreatedRecords``).
    static func storing(_ record: Data, besides stored: Data?) -> Data {
        var records = createdRecords(in: stored)
        guard !records.contains(record) else { return stored ?? record }
        records.append(record)
        if records.count > maximumCreatedRecords { records.remove(at: 1) }
        guard records.count > 1 else { return record }
        var joined = Data("[".utf8)
        for (index, element) in records.enumerated() {
            if index > 0 { joined.append(UInt8(ascii: ",")) }
            joined.append(element)
        }
        joined.append(UInt8(ascii: "]"))
        return joined
    }
}
