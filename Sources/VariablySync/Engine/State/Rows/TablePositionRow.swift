import Foundation
import VariablyCodable
import VariablySQLite

/// A row of `variably_sync_state`: where one model table's pull stands.
struct TablePositionRow: VariablyCodable, SQLiteStorable, Sendable, Equatable {
    /// The model table.
    var tableName: String
    /// The cursor of the last page applied, `nil` before the first.
    var cursor: String?
    /// When the cursor was last written.
    var syncedAt: Date?
    /// The ``RemoteSource/feedIdentifier`` of the source the table was last caught up with.
    var feed: String?

    init(from container: DecodingContainer<TablePositionRow>) throws {
        tableName = try container.decode(\.tableName)
        cursor = try container.decode(\.cursor)
        syncedAt = try container.decode(\.syncedAt)
        feed = try container.decode(\.feed)
    }

    static let keySets = KeySets<TablePositionRow>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.tableName, "table_name")
            Key(\.cursor, "cursor")
            Key(\.syncedAt, "synced_at")
            Key(\.feed, "feed")
        }
    }

    static let sqliteTable = SQLiteTable<TablePositionRow>("variably_sync_state", primaryKey: \.tableName)
}

/// A row of `variably_feed_positions`: where the pull of one change feed of several tables stands
/// (``SyncStore``'s feed). Its key is the feed's tables, sorted and joined with commas.
struct FeedPositionRow: VariablyCodable, SQLiteStorable, Sendable, Equatable {
    /// The member tables, sorted and joined with commas (`comments,posts,users`).
    var tables: String
    /// The cursor of the last batch applied, `nil` before the first.
    var cursor: String?
    /// When the cursor was last written.
    var syncedAt: Date?
    /// The ``RemoteChangeFeed/feedIdentifier`` of the feed the cursor belongs to.
    var feed: String?

    init(tables: String, cursor: String?, syncedAt: Date?, feed: String?) {
        (self.tables, self.cursor, self.syncedAt, self.feed) = (tables, cursor, syncedAt, feed)
    }

    init(from container: DecodingContainer<FeedPositionRow>) throws {
        tables = try container.decode(\.tables)
        cursor = try container.decode(\.cursor)
        syncedAt = try container.decode(\.syncedAt)
        feed = try container.decode(\.feed)
    }

    static let keySets = KeySets<FeedPositionRow>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.tables, "tables")
            Key(\.cursor, "cursor")
            Key(\.syncedAt, "synced_at")
            Key(\.feed, "feed")
        }
    }

    static let sqliteTable = SQLiteTable<FeedPositionRow>("variably_feed_positions", primaryKey: \.tables)
}
