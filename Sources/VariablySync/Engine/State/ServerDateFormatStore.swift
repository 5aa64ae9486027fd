import Foundation
import VariablyCodable
import VariablySQLite

/// The forms one table's dates take on the server, as its pages showed them
/// (`variably_server_date_formats`): pushes write the table's dates the same way.
struct ServerDateFormatStore: Sendable {
    /// The table whose dates are kept.
    let table: String

    /// The form the server writes each date field of the table in, by the field's remote path: empty
    /// before the first page that carried one.
    func serverDateFormats(_ db: Database) throws -> ServerDateFormats {
        guard
            let row = try db.fetch(
                ServerDateFormatsRow.self,
                sql: #"SELECT "table_name", "formats" FROM "variably_server_date_formats" WHERE "table_name" = ?"#,
                arguments: [table]
            ).first
        else { return ServerDateFormats() }
        // A row this version cannot read (written by a later one) is as if none were kept: dates go in the
        // default form until the next page shows the server's.
        let byPath = try? JSONDecoder().decode([String: ServerDateFormat].self, from: Data(row.formats.utf8))
        return ServerDateFormats(byPath ?? [:])
    }

    /// Keeps the forms `observed` in the latest page over the ones kept; writes only when one changed.
    func noteServerDateFormats(_ observed: [String: ServerDateFormat], _ db: Database) throws {
        guard !observed.isEmpty else { return }
        let kept = try serverDateFormats(db).byPath
        let merged = kept.merging(observed) { _, new in new }
        guard merged != kept else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(merged), as: UTF8.self)
        try db.upsert(ServerDateFormatsRow(tableName: table, formats: text))
    }
}
