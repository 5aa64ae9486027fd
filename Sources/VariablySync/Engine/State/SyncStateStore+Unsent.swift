import Foundation
import VariablySQLite

// MARK: - What has not reached the server

extension SyncStateStore {
    /// This table's queued changes as ``UnsentChange``s, `held` telling those waiting for a parent.
    func unsent(held: [StoredRecordID: Hold], _ db: Database) throws -> [UnsentChange] {
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
                table: table, recordID: row.recordID.rawValue, isDeletion: row.operation == "delete", isNew: row.isNew,
                status: status)
        }
    }
}
