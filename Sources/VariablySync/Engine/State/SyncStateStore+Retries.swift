import Foundation
import VariablySQLite

// MARK: - Changes a failing server keeps refusing for now

extension SyncStateStore {
    /// Sets changes aside until their retry time: the server answered them with a failure after every
    /// retry (`5xx`). They stay queued, with `error`, and are sent again by the first sync after a wait
    /// of 15 s after their first failing sync, doubling with each one after, at most 15 minutes; the
    /// other changes and the pull go on meanwhile.
    func deferRetry(of keys: [String], error: String, _ db: Database) throws {
        for key in keys {
            try db.execute(
                sql: #"""
                    UPDATE "variably_pending_changes" SET "attempts" = "attempts" + 1, "last_error" = ?,
                        "retry_at" = (julianday('now') - 2440587.5) * 86400.0
                            + min(15.0 * (1 << min("attempts", 10)), 900.0)
                    WHERE "idempotency_key" = ?
                    """#,
                arguments: [error, key])
        }
    }
}
