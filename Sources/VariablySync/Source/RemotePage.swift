public import Foundation

/// One page of a server's change feed: records changed after a cursor, records deleted after it,
/// and where to continue.
///
/// ```swift
/// let page = try await remote.pull(after: cursor, limit: 1_000)
/// let users = try JSONDecoder(source: .remote).decode([User].self, from: page.records)
/// ```
public struct RemotePage<ID: Hashable & Sendable>: Sendable {
    /// The changed records as the server's JSON: a JSON array of objects in the model's remote keys.
    public var records: Data
    /// The ids of records deleted after the cursor (tombstones).
    public var deletedIDs: [ID]
    /// The cursor to pull after next time; stored together with the page when it is applied.
    public var nextCursor: SyncCursor
    /// Whether more changes follow this page.
    public var hasMore: Bool
    /// Whether the page was asked to check that a shorter one before it ended the list (a server may
    /// cap its pages without saying so): counted in ``SyncReport/checkRequests``.
    package var isCheck = false

    /// Creates a page.
    ///
    /// ```swift
    /// let page = RemotePage(records: Data("[]".utf8), deletedIDs: [7], nextCursor: "12", hasMore: false)
    /// ```
    ///
    /// - Parameters:
    ///   - records: A JSON array of record objects in the model's remote keys.
    ///   - deletedIDs: Ids deleted after the cursor.
    ///   - nextCursor: Where the next page starts.
    ///   - hasMore: Whether another page follows.
    public init(records: Data, deletedIDs: [ID], nextCursor: SyncCursor, hasMore: Bool) {
        self.records = records
        self.deletedIDs = deletedIDs
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }
}
