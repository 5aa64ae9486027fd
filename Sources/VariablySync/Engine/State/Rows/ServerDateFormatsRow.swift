import Foundation
import VariablyCodable
import VariablySQLite

/// A row of `variably_server_date_formats`: the form the server gives each date field of one model
/// table, as the latest page pulled showed it, so that a date pushed back is written the same way.
struct ServerDateFormatsRow: VariablyCodable, SQLiteStorable, Sendable, Equatable {
    /// The model table.
    var tableName: String
    /// The forms by the field's remote path, as JSON (`{"updated_at": {"kind": "dateTime", ...}}`).
    var formats: String

    init(tableName: String, formats: String) {
        self.tableName = tableName
        self.formats = formats
    }

    init(from container: DecodingContainer<ServerDateFormatsRow>) throws {
        tableName = try container.decode(\.tableName)
        formats = try container.decode(\.formats)
    }

    static let keySets = KeySets<ServerDateFormatsRow>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.tableName, "table_name")
            Key(\.formats, "formats")
        }
    }

    static let sqliteTable = SQLiteTable<ServerDateFormatsRow>("variably_server_date_formats", primaryKey: \.tableName)
}
