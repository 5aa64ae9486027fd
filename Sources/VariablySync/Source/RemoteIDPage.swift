/// A page of the ids a server holds now, read by ``Repository/removeDeletedRecords(allowingDeletionOf:)``
/// to find the cached records the server no longer has, where the server lists no deletions.
///
/// ```swift
/// var cursor: SyncCursor? = nil
/// repeat {
///     let page = try await remote.serverIDs(after: cursor, limit: 1_000)
///     print(page.ids.count)
///     cursor = page.nextCursor
/// } while page.hasMore
/// ```
public struct RemoteIDPage<ID: Hashable & Sendable>: Sendable {
    /// The ids of the page's records, in the server's order.
    public var ids: [ID]
    /// Where the next page starts.
    public var nextCursor: SyncCursor
    /// Whether more ids follow.
    public var hasMore: Bool

    /// A page of `ids`.
    ///
    /// ```swift
    /// RemoteIDPage(ids: [1, 2, 3], nextCursor: SyncCursor(rawValue: "3"), hasMore: false)
    /// ```
    ///
    /// - Parameters:
    ///   - ids: The ids of the page's records.
    ///   - nextCursor: Where the next page starts.
    ///   - hasMore: Whether more ids follow.
    public init(ids: [ID], nextCursor: SyncCursor, hasMore: Bool) {
        self.ids = ids
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }
}
