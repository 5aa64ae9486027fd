/// The shape of a backend's HTTP API, declared as values: where a pull finds records, deletions, the
/// next page and "has more", how a cursor is sent, and how local changes are pushed. An
/// ``HTTPRemoteSource`` speaks any API so declared.
///
/// ```swift
/// let api = HTTPAPI(
///     pull: HTTPPullShape(
///         path: "items", records: "data", paging: .token(parameter: "cursor", next: "meta.next_cursor"),
///         hasMore: "meta.has_more", deletions: .tombstones(flag: "deleted")),
///     push: .none)
/// let remote = HTTPRemoteSource<User>(baseURL: URL(string: "https://api.example.com/v2")!, api: api)
/// ```
public struct HTTPAPI: Sendable {
    /// How pages are asked for and read.
    package var pull: HTTPPullShape
    /// How local changes are sent; ``HTTPPushShape/none`` for a read-only API.
    package var push: HTTPPushShape
    /// How answers that refuse the credentials are told apart; `nil`: a `401` alone.
    package var credentials: HTTPCredentialsCheck?
    /// Where the server lists the ids it holds; `nil`: it does not.
    package var idListing: HTTPPullShape?

    /// An API of this pull and push shape.
    ///
    /// ```swift
    /// HTTPAPI(pull: HTTPPullShape(records: "data", paging: .page(parameter: "page")), push: .none)
    /// ```
    ///
    /// - Parameters:
    ///   - pull: How pages are asked for and read.
    ///   - push: How local changes are sent; ``HTTPPushShape/none`` for a read-only API.
    ///   - credentials: How an answer that refuses the credentials is told from one about the data, for
    ///     servers that answer them with `404`, `400`, `403` or an empty list; `nil`: a `401` alone.
    ///   - idListing: Where the server lists the ids of every record it holds, read in pages by
    ///     ``Repository/removeDeletedRecords(allowingDeletionOf:)``: the collection with a field
    ///     selection (`?fields=id`, PostgREST's `?select=id`) or a light endpoint, answering objects with
    ///     the listing shape's `idKey`. Declared without `changedSince`, whose listing would
    ///     leave out what did not change. `nil`: the server lists none.
    public init(
        pull: HTTPPullShape, push: HTTPPushShape, credentials: HTTPCredentialsCheck? = nil,
        idListing: HTTPPullShape? = nil
    ) {
        self.pull = pull
        self.push = push
        self.credentials = credentials
        self.idListing = idListing
    }

    /// The package's own envelope: `GET {base}/changes?after=&limit=` answering
    /// `{"records": [...], "deleted": [...], "next_cursor": "...", "has_more": true}`, and
    /// `POST {base}/changes` with a batch of changes (see ``HTTPRemoteSource``).
    ///
    /// ```swift
    /// HTTPRemoteSource<User>(baseURL: base, api: .changesEnvelope)
    /// ```
    public static let changesEnvelope = HTTPAPI(
        pull: HTTPPullShape(
            path: "changes", records: "records", paging: .token(parameter: "after", next: "next_cursor"),
            hasMore: "has_more", deletions: .ids(at: "deleted")),
        push: .changesEnvelope(path: "changes"))

    /// The package's feed of several tables, for a ``SyncStore`` (``HTTPRemoteFeed``):
    /// `GET {base}/changes?after=&limit=` answering
    /// `{"tables": {"users": {"records": [...], "deleted": [...]}, ...}, "next_cursor": "...", "has_more": true}`,
    /// each page the changes of every table up to one position of the server, in its order. Pushes go
    /// to each table's own ``HTTPRemoteSource``.
    ///
    /// ```swift
    /// HTTPRemoteFeed(baseURL: base, api: .changeFeed)
    /// ```
    public static let changeFeed = HTTPAPI(
        pull: HTTPPullShape(
            path: "changes", records: "tables.{table}.records", paging: .token(parameter: "after", next: "next_cursor"),
            hasMore: "has_more", deletions: .ids(at: "tables.{table}.deleted")),
        push: .none)
}
