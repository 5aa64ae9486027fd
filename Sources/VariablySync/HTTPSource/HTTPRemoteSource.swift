public import Foundation
public import VariablyCodable
public import VariablyHTTP

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A ``RemoteSource`` that speaks JSON over HTTP, through an `HTTPTransport` of the `VariablyHTTP`
/// module: by default the platform's (`URLSession` on Apple platforms, the system's libcurl on Linux).
///
/// Its `api` declares where the server keeps records, pages and changes (see ``HTTPAPI``). With the
/// default, ``HTTPAPI/changesEnvelope``, it expects two endpoints under `baseURL`:
///
/// **Pull** — `GET {baseURL}/changes?after={cursor}&limit={n}` (no `after` for the first page) answers
/// `200` with
/// ```json
/// {"records": [{"id": 1, "user_name": "ada", ...}], "deleted": [7, 9], "next_cursor": "1042", "has_more": true}
/// ```
/// where `records` are objects in the model's remote keys and `deleted` are ids.
///
/// **Push** — `POST {baseURL}/changes` with
/// ```json
/// {"changes": [{"idempotency_key": "4F1C...", "id": 1, "operation": "upsert", "base_cursor": "1042",
///               "supersedes": ["0B7E..."], "record": {"id": 1, "user_name": "ada", ...}},
///              {"idempotency_key": "9A0B...", "id": 7, "operation": "delete", "base_cursor": null}]}
/// ```
/// answers `200` with one result per change, matched by idempotency key:
/// ```json
/// {"results": [{"idempotency_key": "4F1C...", "status": "accepted", "version": "1043"},
///              {"idempotency_key": "9A0B...", "status": "conflict", "version": "1040", "record": {...}},
///              {"idempotency_key": "...", "status": "rejected", "reason": "email is required"}]}
/// ```
/// A conflict's `record` is `null` when the server deleted the record. `supersedes` lists keys of earlier
/// changes to the same record whose outcome the client never received: a record last written by one of
/// them is the client's own write and must not be reported as a conflict.
///
/// **Failures.** Statuses 408, 429 and 5xx, refused, dropped and timed-out connections and truncated
/// bodies are thrown as transient errors (the repository retries them: a pull is idempotent, a push
/// carries idempotency keys); the transport's errors (`HTTPTransportError`) are read with the same
/// rules, a refused certificate or proxy being ``RemoteSourceError/unavailable(_:)``. A 429 or 503 with
/// `Retry-After` is ``RemoteSourceError/rateLimited(status:retryAfter:body:)``, and the repository
/// waits at least that long (at most 5 minutes) before retrying. A pull answered 410, or 400, 404 or
/// 422 with a body that mentions the cursor (e.g. `{"error": "invalid_cursor"}`), is
/// ``RemoteSourceError/invalidCursor(_:)``, which makes the repository resync. Other statuses are
/// ``RemoteSourceError/httpStatus(_:body:)``; an answer larger than `maximumResponseSize` is
/// ``RemoteSourceError/responseTooLarge(limit:)``.
///
/// **Transport.** `timeout` bounds each request as a whole (connecting, sending, every byte of the
/// answer), however slowly the server trickles. Cursors go in the query percent-encoded, RFC 3986
/// unreserved characters only, so `ab+c/d==` arrives intact. The body is limited to
/// `maximumResponseSize` while it arrives, decoded (the transport asks for `gzip` and `deflate` and
/// decodes them as they stream), so a gzip bomb stops at the limit. Requests go through an
/// `HTTPTransport`: `HTTPTransports.platformDefault` unless the app passes its own (`transport:`).
/// Redirects follow the same rules on every transport (see docs/http.md, "Redirects").
///
/// ```swift
/// let remote = HTTPRemoteSource<User>(baseURL: URL(string: "https://api.example.com/v1/users")!)
/// let repository = try Repository(database: database, remote: remote)
/// ```
public struct HTTPRemoteSource<Model: VariablyCodable & Identifiable & Sendable>: RemoteSource
where Model.ID: Codable & Sendable {
    /// Runs before each request is sent, to add what changes over time (an access token that
    /// refreshes, a signature). After a `401` answer it runs once more, with
    /// ``HTTPRequestAttempt/isRetryAfterUnauthorized`` set, and the request is sent again once.
    public typealias RequestHook =
        @Sendable (_ request: inout URLRequest, _ attempt: HTTPRequestAttempt) async throws -> Void

    /// The URL the endpoint paths are appended to.
    package let baseURL: URL
    /// The API's shape: where pulls find records and cursors, how pushes are sent.
    package let api: HTTPAPI
    /// What sends each request: the headers, the hook, the deadline, redirects, the size limit.
    let exchange: HTTPExchange
    /// The states of its running pulls, by the cursors made from them.
    let pullStates = HTTPPullStates()

    /// The per-request hook, if any.
    package var prepare: RequestHook? { exchange.prepare }
    /// How long one request may take, from connecting to the last byte of the answer.
    package var timeout: TimeInterval { exchange.timeout }
    /// The largest answer accepted, in bytes; a larger one throws ``RemoteSourceError/responseTooLarge(limit:)``.
    package var maximumResponseSize: Int { exchange.maximumResponseSize }
    /// What sends the requests.
    package var transport: any HTTPTransport { exchange.transport }

    /// Creates a source for the endpoints under `baseURL`.
    ///
    /// ```swift
    /// let remote = HTTPRemoteSource<User>(
    ///     baseURL: URL(string: "http://127.0.0.1:8080/users")!, headers: ["Authorization": "Bearer ..."])
    /// ```
    ///
    /// The settings and `api` are checked when a ``Repository`` opens with the source: a mistake (a
    /// timeout of zero, an unsafe header) makes it throw a `DeclarationError`, as does every request of
    /// a source used on its own.
    ///
    /// - Parameters:
    ///   - baseURL: The collection's URL; the paths of `api` are appended (`/changes` for the default).
    ///   - api: The shape of the server's API: how pages are asked for and read, and how changes are
    ///     pushed; ``HTTPAPI/changesEnvelope`` by default.
    ///   - headers: Headers for every request; a name or value with a line break or a NUL (which could
    ///     smuggle further headers), an empty name or a name with a colon is a `DeclarationError`.
    ///   - timeout: Seconds one request may take as a whole (more than zero).
    ///   - transport: What sends the requests: `HTTPTransports.platformDefault` by default (URLSession
    ///     on Apple platforms, the system's libcurl on Linux), a transport configured by the app
    ///     (`CurlTransport(configuration:)` with a proxy), or an app's own HTTP client (see `HTTPTransport`).
    ///   - maximumResponseSize: The largest answer accepted, in bytes (64 MiB by default).
    ///   - prepare: Called before every request is sent, to add what changes per request (a fresh
    ///     token); after a `401` the request is prepared again once, with
    ///     ``HTTPRequestAttempt/isRetryAfterUnauthorized`` set.
    public init(
        baseURL: URL, api: HTTPAPI = .changesEnvelope, headers: [String: String] = [:], timeout: TimeInterval = 30,
        transport: any HTTPTransport = HTTPTransports.platformDefault, maximumResponseSize: Int = 64 << 20,
        prepare: RequestHook? = nil
    ) {
        self.baseURL = baseURL
        self.api = api
        var exchange = HTTPExchange(
            baseURL: baseURL, api: api, headers: headers, timeout: timeout, transport: transport,
            maximumResponseSize: maximumResponseSize, prepare: prepare)
        exchange.declarationError = Self.declarationError(of: exchange, api: api)
        self.exchange = exchange
    }

    // MARK: - RemoteSource

    /// Asks for the page after `cursor` as the source's `api` describes (`GET {baseURL}/changes?after={cursor}&limit={limit}`
    /// for the package's envelope).
    ///
    /// ```swift
    /// let page = try await remote.pull(after: nil, limit: 500)
    /// ```
    ///
    /// - Throws: ``RemoteSourceError`` for failures, bad statuses and answers that are not the declared
    ///   shape; `DeclarationError`, before anything is sent, for a mistake in the source's declaration.
    public func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Model.ID> {
        let page = try await page(of: api.pull, after: cursor, limit: limit)
        // A pull that brought nothing at all may be a refusal of the credentials in disguise (a server
        // that lists nothing to a token it no longer accepts): a first sync would end empty, a later one
        // "complete" without the server's changes.
        if !page.hasMore, page.deletedIDs.isEmpty, page.records.count <= 2, exchange.credentials?.path != nil,
            (try HTTPPullState(cursor: cursor, shape: api.pull, remembered: pullStates).pulled ?? 0) == 0
        {
            try await exchange.verifyCredentials(before: "an empty list")
        }
        return page
    }

    /// The page after `cursor` of the list `shape` describes: the pull's, or the id listing's.
    func page(of shape: HTTPPullShape, after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Model.ID> {
        let state = try HTTPPullState(cursor: cursor, shape: shape, remembered: pullStates)
        let url = try shape.url(base: baseURL, state: state, limit: limit)
        let response = try await exchange.send(exchange.request(url: url, method: "GET"))
        let reader = HTTPPullReader(shape: shape, states: pullStates)
        if response.head.status == 404, let end = try reader.endOfPull(after: state, idType: Model.ID.self) {
            return end
        }
        if let cursor, HTTPExchange.isUnknownCursor(status: response.head.status, body: response.body) {
            throw RemoteSourceError.invalidCursor(cursor)
        }
        if response.head.status != 401, exchange.refusesCredentials(response.head.status) {
            throw RemoteSourceError.httpStatus(
                response.head.status, body: String(decoding: response.body.prefix(200), as: UTF8.self))
        }
        let body = try HTTPExchange.successBody(response)
        return try reader.page(
            body: body, link: response.head.headers["link"], from: url, state: state, limit: limit,
            idType: Model.ID.self, decodeID: RecordIDDecoder<Model>().id(from:))
    }

    /// Sends the changes as the source's `api` describes: one `POST {baseURL}/changes` with every change for the
    /// package's envelope (results matched back by idempotency key), one request per change for
    /// ``HTTPPushShape/perRecord(_:)``.
    ///
    /// ```swift
    /// let results = try await remote.push(changes)
    /// ```
    ///
    /// - Throws: ``RemoteSourceError`` for failures, bad statuses and answers missing a change;
    ///   ``RemoteSourceError/unavailable(_:)`` for a pull-only API; `DeclarationError`, before anything
    ///   is sent, for a mistake in the source's declaration.
    public func push(_ changes: [RemoteChange<Model.ID>]) async throws -> [PushResult<Model.ID>] {
        try checkDeclaration()
        switch api.push {
        case .none:
            throw RemoteSourceError.unavailable("this API is pull-only: \(changes.count) change(s) stay queued")
        case .perRecord(let endpoints):
            return try await recordPusher.pushRecords(changes, to: endpoints)
        case .changesEnvelope(let path):
            let url = path.isEmpty ? baseURL : baseURL.appendingPathComponent(path)
            return try await HTTPChangesEnvelope<Model.ID>(url: url, exchange: exchange).push(changes)
        }
    }

    /// `false` for a pull-only `api` (``HTTPPushShape/none``).
    public var acceptsPushes: Bool {
        if case .none = api.push { return false }
        return true
    }

    /// The record endpoints' ``HTTPRecordEndpoints`` `newIDs`; ``NewRecordIDs/uuid`` for a pull-only `api`.
    public var newRecordIDs: NewRecordIDs {
        if case .perRecord(let endpoints) = api.push { return endpoints.newIDs }
        return .uuid
    }

    /// The base URL and the pull path (`https://api.example.com/v1 notes`): a cache synced with one
    /// server starts over when it is pointed at another.
    public var feedIdentifier: String {
        api.pull.path.isEmpty ? baseURL.absoluteString : baseURL.absoluteString + " " + api.pull.path
    }
}
