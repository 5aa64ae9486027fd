import Foundation
import VariablySQLite

/// Where the pull of one change feed of several tables stands: its row of `variably_feed_positions`
/// (``FeedPositionRow``), apart from each table's own position in `variably_sync_state`.
struct FeedPosition: Sendable {
    /// The row's key: the feed's tables, sorted and joined with commas.
    let tables: String

    /// The position of the feed of `tables`, in any order.
    init(tables: [String]) {
        self.tables = tables.sorted().joined(separator: ",")
    }

    /// The feed's row, if a batch was applied from it.
    func row(_ db: Database) throws -> FeedPositionRow? {
        try db.fetch(
            FeedPositionRow.self,
            sql: #"SELECT "tables", "cursor", "synced_at", "feed" FROM "variably_feed_positions" WHERE "tables" = ?"#,
            arguments: [tables]
        ).first
    }

    /// The cursor of the last batch applied, or `nil` before the first.
    func cursor(_ db: Database) throws -> SyncCursor? {
        try row(db)?.cursor.map(SyncCursor.init(rawValue:))
    }

    /// Keeps `cursor` as the position of the feed whose ``RemoteChangeFeed/feedIdentifier`` is `feed`.
    func save(cursor: SyncCursor, feed: String, _ db: Database) throws {
        try db.upsert(FeedPositionRow(tables: tables, cursor: cursor.rawValue, syncedAt: Date(), feed: feed))
    }
}
