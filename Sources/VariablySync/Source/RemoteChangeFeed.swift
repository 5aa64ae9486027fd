public import Foundation
public import VariablyCodable

/// A server's changes to several tables in one feed, in the server's order: each page is the server
/// as it was at one position (its cursor), so a ``SyncStore`` that applies a page with all its tables
/// in one transaction never shows a child without its parent.
///
/// ``HTTPRemoteFeed`` speaks this over HTTP; `SimulatedChangeFeed` (VariablySyncTesting) serves
/// several simulated servers as one feed. Pushes still go to each table's own ``RemoteSource``.
///
/// ```swift
/// let store = try SyncStore(users, posts, comments, feed: HTTPRemoteFeed(baseURL: base, api: .changeFeed))
/// try await store.sync()
/// ```
public protocol RemoteChangeFeed: Sendable {
    /// Returns up to `limit` changes after `cursor` (`nil`: from the start), of every table, oldest first.
    ///
    /// ```swift
    /// let page = try await feed.pull(after: nil, limit: 1_000)
    /// print(page.tables["posts"]?.deletedIDs ?? [])
    /// ```
    ///
    /// - Throws: ``RemoteSourceError``: `.invalidCursor` for a cursor the server no longer knows,
    ///   `.transient` for failures worth retrying.
    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemoteFeedPage

    /// Names the feed a cache was synced with: a cursor of another feed means nothing to this one, and
    /// a store pointed at another feed starts over. By default, the feed's type.
    var feedIdentifier: String { get }
}

extension RemoteChangeFeed {
    /// The feed's type name.
    public var feedIdentifier: String { String(reflecting: Self.self) }
}

/// One page of a ``RemoteChangeFeed``: each table's changed records and deletions, and where to go on.
///
/// ```swift
/// let page = RemoteFeedPage(
///     tables: ["posts": RemoteFeedChanges(records: Data(#"[{"id": 1, "author_id": 7}]"#.utf8), deletedIDs: [4])],
///     nextCursor: "812", hasMore: false)
/// ```
public struct RemoteFeedPage: Sendable {
    /// The changes of each table, by table name (`SQLiteTable`'s name); a table without changes may be
    /// absent.
    public var tables: [String: RemoteFeedChanges]
    /// The position the page brings the cache to: stored with the page's rows, in the same transaction.
    public var nextCursor: SyncCursor
    /// Whether more changes follow this page.
    public var hasMore: Bool
    /// Whether the page was asked to check that a shorter one before it ended the feed (a server may
    /// cap its pages without saying so): counted in ``SyncReport/checkRequests``.
    package var isCheck = false

    /// A page of these changes.
    ///
    /// ```swift
    /// let last = RemoteFeedPage(tables: [:], nextCursor: "812", hasMore: false)
    /// ```
    ///
    /// - Parameters:
    ///   - tables: The changes of each table, by table name.
    ///   - nextCursor: Where the next page starts.
    ///   - hasMore: Whether another page follows.
    public init(tables: [String: RemoteFeedChanges], nextCursor: SyncCursor, hasMore: Bool) {
        self.tables = tables
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }
}

/// One table's part of a ``RemoteFeedPage``.
///
/// ```swift
/// let changes = RemoteFeedChanges(records: Data("[]".utf8), deletedIDs: [12, 13])
/// ```
public struct RemoteFeedChanges: Sendable {
    /// The changed records as the server's JSON: an array of objects in the model's remote keys.
    public var records: Data
    /// The ids of the table's records deleted, as JSON values (`12`, `"A1B2…"`): each table decodes its own
    /// id type from them.
    public var deletedIDs: [JSONValue]

    /// Changes of one table.
    ///
    /// ```swift
    /// let changes = RemoteFeedChanges(records: Data(#"[{"id": 3}]"#.utf8))
    /// ```
    ///
    /// - Parameters:
    ///   - records: A JSON array of record objects in the model's remote keys.
    ///   - deletedIDs: The ids of deleted records.
    public init(records: Data, deletedIDs: [JSONValue] = []) {
        self.records = records
        self.deletedIDs = deletedIDs
    }
}
