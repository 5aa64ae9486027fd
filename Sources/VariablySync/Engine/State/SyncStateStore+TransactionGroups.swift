import Foundation
import VariablySQLite

// MARK: - Transaction groups

/// Each queued change belongs to the local transaction that made it last, numbered in commit order
/// (`transaction_group`). A push follows that order: a store pushes group by group (creates and updates
/// parents first, then deletions children first), and merges consecutive groups into one round as
/// long as that moves no save before an earlier transaction's deletion. A transaction that deletes
/// `bob`, then one that creates another `bob`, reach a server with a unique name in that order.
extension SyncStateStore {
    /// Gives the changes queued since the last boundary (`NULL`) a group of their own, after every
    /// queued group: run first and last in each write transaction, it makes one group of each
    /// transaction's changes, and one of the changes other connections queued between two of them
    /// (raw SQL, another process), ordered before the transaction that finds them. A change queued
    /// again takes its new transaction's group: its content is that transaction's.
    ///
    /// - Complexity: O(log q + k) in the queue, for the `k` changes stamped: an index lookup when
    ///   there are none.
    static let stampTransactionGroupSQL = #"""
        UPDATE "variably_pending_changes"
        SET "transaction_group" = (SELECT coalesce(max("transaction_group"), 0) + 1 FROM "variably_pending_changes")
        WHERE "transaction_group" IS NULL
        """#

    /// The rounds of a push of `tables`' queued changes, as the last transaction group each one reaches
    /// (`nil`: all of them). A round ends before a group that saves something after a group of the
    /// round deleted something: saves go before deletions within a round, and that save must not go
    /// before the earlier deletion. Changes refused by the server wait for the app, and take no part.
    ///
    /// Run it in a write: changes that other connections queued since the last write get their group first.
    ///
    /// - Complexity: O(q) in the queued changes of `tables`.
    static func pushRounds(of tables: [String], _ db: Database) throws -> [Int64?] {
        let placeholders = Array(repeating: "?", count: tables.count).joined(separator: ", ")
        let groups = try db.fetch(
            sql: #"""
                SELECT "transaction_group", max("operation" = 'delete') AS "deletes",
                    max("operation" = 'upsert') AS "saves"
                FROM "variably_pending_changes"
                WHERE "failure" IS NULL AND "table_name" IN (\#(placeholders))
                GROUP BY "transaction_group" ORDER BY coalesce("transaction_group", 9223372036854775807)
                """#,
            arguments: StatementArguments(tables))
        var rounds: [Int64?] = []
        var previous: Int64?
        var roundDeletes = false
        for row in groups {
            let group = row.integer("transaction_group")
            let deletes = row.integer("deletes") == 1
            let saves = row.integer("saves") == 1
            if saves, roundDeletes, let previous {
                rounds.append(previous)
                roundDeletes = false
            }
            roundDeletes = roundDeletes || deletes
            previous = group
        }
        rounds.append(nil)
        return rounds
    }
}
