import Foundation
import VariablySQLite

/// One table's pulled rows as they were before their first queued edit. A record cached before its source declared record versions (a `versionField` with a concurrency
/// check) has no version kept: its edit cannot say which version of the server's record it was made
/// on. Rather than inventing one (the server's current version would overwrite an edit another client
/// made since; the local column's value may have lost digits), the capture keeps the row as it was
/// before the record's first queued edit, one value per column in `variably_pre_edit_rows`. At push
/// time the server's current record is compared with it: the same record means the server's version
/// is the edit's base; another one is a conflict, settled by the conflict policy.
///
/// The row is kept only when the record has no version (neither pulled nor acknowledged) and no
/// change queued yet; a change completed, discarded or rebased on a version leaves it stale, and the
/// next first edit replaces it.
struct PreEditRows: Sendable {
    /// The table whose rows are kept.
    let table: String

    /// The statements (for a trigger) that keep `row` (`OLD`) of the record with id `recordID` (an SQL
    /// expression giving the id's JSON text), when it has no version kept and no change queued.
    ///
    /// - Parameter columns: The table's column names, unquoted.
    func keepPreEditRowSQL(recordID: String, row: String, columns: [String]) -> String {
        let table = SQL.literal(.text(self.table))
        let queued = """
            EXISTS (SELECT 1 FROM "variably_pending_changes" WHERE "table_name" = \(table) AND "record_id" = \(recordID))
            """
        let values = columns.map { "SELECT \(SQL.literal(.text($0))) AS \"c\", \(row).\(SQL.quote($0)) AS \"v\"" }
            .joined(separator: " UNION ALL ")
        return """
            DELETE FROM "variably_pre_edit_rows" WHERE "table_name" = \(table) AND "record_id" = \(recordID)
                AND NOT \(queued);
            INSERT OR REPLACE INTO "variably_pre_edit_rows" ("table_name", "record_id", "column_name", "value")
            SELECT \(table), \(recordID), "c", "v" FROM (\(values))
            WHERE NOT \(queued)
                AND NOT EXISTS (SELECT 1 FROM "variably_record_versions" WHERE "table_name" = \(table) AND "record_id" = \(recordID))
                AND NOT EXISTS (SELECT 1 FROM "variably_acknowledged_changes" WHERE "table_name" = \(table) AND "record_id" = \(recordID))
            """
    }

    /// The kept pre-edit rows of the records with ids `recordIDs`, by id: each a row's values
    /// by column name. Records with none are absent.
    ///
    /// - Complexity: One indexed query per 500 ids.
    func preEditRows(of recordIDs: [StoredRecordID], _ db: Database) throws -> [StoredRecordID: [String: SQLValue]] {
        var rows: [StoredRecordID: [String: SQLValue]] = [:]
        var start = 0
        while start < recordIDs.count {
            let chunk = Array(recordIDs[start..<min(start + 500, recordIDs.count)])
            start += chunk.count
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let found = try db.fetch(
                sql: #"""
                    SELECT "record_id", "column_name", "value" FROM "variably_pre_edit_rows"
                    WHERE "table_name" = ? AND "record_id" IN (\#(placeholders))
                    """#,
                arguments: StatementArguments(
                    [table as any SQLValueConvertible] + chunk.map { $0 as any SQLValueConvertible }))
            for row in found {
                guard let id = row.text("record_id"), let column = row.text("column_name") else { continue }
                rows[StoredRecordID(rawValue: id), default: [:]][column] = row["value"]
            }
        }
        return rows
    }

    /// Forgets the pre-edit row of the record with id `recordID`: its change completed, discarded, or
    /// based on a version now.
    func dropPreEditRow(of recordID: StoredRecordID, _ db: Database) throws {
        try db.execute(
            sql: #"DELETE FROM "variably_pre_edit_rows" WHERE "table_name" = ? AND "record_id" = ?"#,
            arguments: [table, recordID])
    }
}
