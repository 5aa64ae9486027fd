public import Foundation
package import VariablyCodable
public import VariablyHTTP

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A ``RemoteChangeFeed`` over HTTP: one request answers the changes of every table, up to one
/// position of the server, as an ``HTTPAPI`` declares them. Its pull shape names each table's records
/// (and deletions) with a `{table}` placeholder in their paths; the tables are the keys of the object
/// the placeholder stands in.
///
/// ```swift
/// // GET /v1/changes?after=812&limit=1000 →
/// // {"tables": {"users": {"records": [...], "deleted": [3]}, "posts": {"records": [...], "deleted": []}},
/// //  "next_cursor": "1204", "has_more": false}
/// let feed = HTTPRemoteFeed(baseURL: URL(string: "https://api.example.com/v1")!, api: .changeFeed)
/// let store = try SyncStore(users, posts, feed: feed)
/// ```
///
/// Requests go through the same exchange as an ``HTTPRemoteSource``'s, over the same transport: the
/// deadline, the response size limit, compression, redirects, the request hook and its `401` retry. A table the store does not
/// have is ignored. Cursors are the paging's own (a token, a page number, an offset or a next URL),
/// counted over the whole answer: an offset moves by every table's records, and a page is shorter
/// than asked, or past declared totals, by all of them together. A declared field (a deletion marker)
/// is verified table by table. ``HTTPPullShape/ChangedSince`` filters are per table and do not apply
/// to a feed.
public struct HTTPRemoteFeed: RemoteChangeFeed, DeclaredRemote {
    /// The URL the pull path is appended to.
    let baseURL: URL
    /// The feed's shape: its pull names each table's records with ``placeholder``.
    let api: HTTPAPI
    /// What sends each request: the headers, the hook, the deadline, redirects, the size limit.
    let exchange: HTTPExchange
    /// The states of its running pulls, by the cursors made from them.
    let pullStates = HTTPPullStates()
    /// The path of the object whose keys are the tables, and the key paths after the placeholder.
    let tablesPath: DataPath

    /// A feed at `baseURL`, read as `api` declares.
    ///
    /// ```swift
    /// let feed = HTTPRemoteFeed(
    ///     baseURL: URL(string: "https://api.example.com/v1")!, api: .changeFeed,
    ///     headers: ["Authorization": "Bearer …"])
    /// ```
    ///
    /// - Parameters:
    ///   - baseURL: The API's URL; the pull path of `api` is appended.
    ///   - api: The feed's shape: its records path (and its deletions path, for ``HTTPPullShape/Deletions/ids(at:)``)
    ///     hold `{table}` once, after the path of an object keyed by table, and it declares no
    ///     `changedSince` filter; otherwise the ``SyncStore`` given the feed throws a `DeclarationError`.
    ///   - headers: Headers for every request.
    ///   - timeout: Seconds one request may take as a whole.
    ///   - transport: What sends the requests (see `HTTPTransport`); `HTTPTransports.platformDefault` by
    ///     default, as for an ``HTTPRemoteSource``.
    ///   - maximumResponseSize: The largest answer accepted, in bytes (64 MiB by default).
    ///   - prepare: Called before every request is sent (a fresh token).
    public init(
        baseURL: URL, api: HTTPAPI = .changeFeed, headers: [String: String] = [:], timeout: TimeInterval = 30,
        transport: any HTTPTransport = HTTPTransports.platformDefault, maximumResponseSize: Int = 64 << 20,
        prepare: (@Sendable (_ request: inout URLRequest, _ attempt: HTTPRequestAttempt) async throws -> Void)? = nil
    ) {
        let keys = api.pull.records.keys
        let placeholder = keys.firstIndex(of: Self.placeholder)
        tablesPath = DataPath(Array(keys[..<(placeholder ?? keys.startIndex)]))
        self.baseURL = baseURL
        self.api = api
        var exchange = HTTPExchange(
            baseURL: baseURL, api: api, headers: headers, timeout: timeout, transport: transport,
            maximumResponseSize: maximumResponseSize, prepare: prepare)
        exchange.declarationError = Self.declarationError(of: exchange, api: api)
        self.exchange = exchange
    }

    /// The placeholder of a table's name in the pull shape's paths.
    static var placeholder: String { "{table}" }

    /// The first mistake in the feed's shape or settings, or `nil`.
    package var declarationError: DeclarationError? { exchange.declarationError }

    /// The first mistake in `api` as a feed's shape, in the settings of `exchange`, or in `api` as any
    /// source's shape, named after the feed. A feed decodes no model: the fields its API names are
    /// checked as those of records keyed by their id alone.
    static func declarationError(of exchange: HTTPExchange, api: HTTPAPI) -> DeclarationError? {
        let pull = api.pull
        guard pull.records.keys.filter({ $0 == Self.placeholder }).count == 1 else {
            return DeclarationError(
                .feedRecordsPathWithoutTable("\(pull.records)"), modelType: "HTTPRemoteFeed",
                fix: "name the table once in the records path, as `{table}`: \"tables.{table}.records\"")
        }
        guard pull.changedSince == nil else {
            return DeclarationError(
                .feedWithChangedSince, modelType: "HTTPRemoteFeed", fix: "declare no changedSince filter")
        }
        return exchange.settingsError(modelType: "HTTPRemoteFeed")
            ?? api.declarationError(modelType: "HTTPRemoteFeed", remoteKeys: [DataPath(["id"])])
    }

    /// Asks for the page after `cursor` and reads each table's records and deletions.
    ///
    /// ```swift
    /// let page = try await feed.pull(after: nil, limit: 1_000)
    /// ```
    ///
    /// - Throws: ``RemoteSourceError`` for failures, bad statuses and answers that are not the declared
    ///   shape; `DeclarationError` for a mistake in the feed's declaration.
    public func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemoteFeedPage {
        try checkDeclaration()
        let shape = api.pull
        let state = try HTTPPullState(cursor: cursor, shape: shape, remembered: pullStates)
        let url = try shape.url(base: baseURL, state: state, limit: limit)
        let response = try await exchange.send(exchange.request(url: url, method: "GET"))
        if let cursor, HTTPExchange.isUnknownCursor(status: response.head.status, body: response.body) {
            throw RemoteSourceError.invalidCursor(cursor)
        }
        let reader = HTTPPullReader(shape: shape, states: pullStates)
        if response.head.status == 404, let end = try reader.endOfPull(after: state, idType: JSONValue.self) {
            // The check of a shorter page, or a page after the last, answered "no such page": the feed ended.
            return RemoteFeedPage(tables: [:], nextCursor: end.nextCursor, hasMore: false)
        }
        let body = try HTTPExchange.successBody(response)
        let page = try feedPage(
            of: body, reader: reader, link: response.head.headers["link"], url: url, state: state, limit: limit)
        // A pull that brought nothing at all may be a refusal of the credentials in disguise, as for a
        // table's own source (see `HTTPRemoteSource.pull(after:limit:)`).
        if !page.hasMore, (state.pulled ?? 0) == 0, exchange.credentials?.path != nil,
            page.tables.values.allSatisfy({ $0.deletedIDs.isEmpty && $0.records.count <= 2 })
        {
            try await exchange.verifyCredentials(before: "an empty feed")
        }
        return page
    }

    /// The tables of the feed's answer `body`, each read by `reader`.
    private func feedPage(
        of body: Data, reader: HTTPPullReader, link: String?, url: URL, state: HTTPPullState, limit: Int
    ) throws -> RemoteFeedPage {
        do {
            let parsed = try JSONBody(body)
            guard let range = try parsed.range(at: tablesPath), let members = try parsed.members(of: range) else {
                throw RemoteSourceError.invalidResponse("the feed's answer has no object of tables at \(tablesPath)")
            }
            let tables = try members.map { member in
                guard case .string(let name) = try parsed.value(member.key) else {
                    throw RemoteSourceError.invalidResponse("a table name at \(tablesPath) is not text")
                }
                return name
            }
            return try reader.feedPage(
                parsed: parsed, tables: tables, link: link, from: url, state: state, limit: limit)
        } catch let error as JSONBodyError {
            throw RemoteSourceError.invalidResponse("the feed's answer is not JSON: \(error)")
        }
    }

    /// The base URL and the pull path, as an ``HTTPRemoteSource`` names its feed.
    public var feedIdentifier: String {
        api.pull.path.isEmpty ? baseURL.absoluteString : baseURL.absoluteString + " " + api.pull.path
    }

    /// `shape` with `{table}` in its records and deletions paths replaced by `table`.
    static func shape(_ shape: HTTPPullShape, naming table: String) -> HTTPPullShape {
        var named = shape
        func replaced(_ path: DataPath) -> DataPath {
            DataPath(path.keys.map { $0 == placeholder ? table : $0 })
        }
        named.records = replaced(shape.records)
        named.recordsMayBeAbsent = true
        if case .ids(let path) = shape.deletions { named.deletions = .ids(at: replaced(path)) }
        return named
    }
}
