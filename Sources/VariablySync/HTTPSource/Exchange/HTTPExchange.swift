import Foundation
import VariablyCodable
import VariablyHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request from a source to its transport, and its answer: the source's headers and `Accept`, the
/// request hook and its one retry after a refusal of the credentials, redirects on the request's own
/// origin, one deadline for the whole request, the response size limit.
///
/// Every request of an ``HTTPRemoteSource`` goes through its exchange (record pulls and pushes, id
/// listings, credentials checks), and every request of an ``HTTPRemoteFeed`` through the feed's. It
/// knows requests and answers, never a model.
struct HTTPExchange: Sendable {
    /// Runs before each request is sent (see ``HTTPRemoteSource/RequestHook``).
    typealias Hook = @Sendable (_ request: inout URLRequest, _ attempt: HTTPRequestAttempt) async throws -> Void

    /// A status with the headers (names in lower case), and the body.
    typealias Response = (head: HTTPResponseHead, body: Data)

    /// The URL the endpoint paths are appended to: the credentials check's path among them.
    let baseURL: URL
    /// Headers sent with every request, e.g. `Authorization`.
    let headers: [String: String]
    /// How long one request may take, from connecting to the last byte of the answer.
    let timeout: TimeInterval
    /// The largest answer accepted, in bytes; a larger one throws ``RemoteSourceError/responseTooLarge(limit:)``.
    let maximumResponseSize: Int
    /// What sends the requests.
    let transport: any HTTPTransport
    /// The per-request hook, if any.
    let prepare: Hook?
    /// The API's credentials check: the statuses that refuse the credentials besides `401`, and the
    /// request that tells a refusal in disguise.
    let credentials: HTTPCredentialsCheck?
    /// The `Accept` of a request that names none.
    let accept: String
    /// The first mistake in the declaration of the source or feed this exchange sends for: when there
    /// is one, every request throws it and nothing is sent. Set by the owner once it is built.
    var declarationError: DeclarationError?

    /// An exchange for `api` under `baseURL`: its credentials check, and by default the `Accept` its
    /// per-record endpoints declare for `GET` (`application/json` unless their write shape names another).
    init(
        baseURL: URL, api: HTTPAPI, headers: [String: String], timeout: TimeInterval, transport: any HTTPTransport,
        maximumResponseSize: Int, prepare: Hook?
    ) {
        self.baseURL = baseURL
        self.headers = headers
        self.timeout = timeout
        self.transport = transport
        self.maximumResponseSize = maximumResponseSize
        self.prepare = prepare
        credentials = api.credentials
        accept = api.push.perRecordEndpoints?.writes.mediaType.get ?? "application/json"
    }

    /// The most redirects one request follows (URLSession's bound is of the same order).
    static var maximumRedirects: Int { 10 }

    /// A request with the exchange's headers; `Accept: accept` unless they set an `Accept` of their own
    /// (``accept`` by default).
    func request(url: URL, method: String, accept: String? = nil) -> HTTPRequestHead {
        let accept = accept ?? self.accept
        var fields = headers.keys.contains { $0.lowercased() == "accept" } ? [:] : ["Accept": accept]
        fields.merge(headers) { _, user in user }
        return HTTPRequestHead(
            method: method, url: url, headers: fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, body: nil)
    }

    /// Sends `request` after the ``prepare`` hook, once more after a refusal of the credentials when
    /// there is a hook, and follows redirects on the request's own origin: every one for `GET` and
    /// `HEAD`, and for writes only `307` and `308`, which keep the method and the body (RFC 9110 §15.4).
    /// A `301`, `302` or `303` answer to a write is returned as it is: following it would turn the write
    /// into a `GET`, which reads as success while nothing was written. A redirect to another origin is
    /// returned too: the hook's credentials go only to the origin the app named.
    ///
    /// - Throws: ``declarationError``, before anything is sent; ``RemoteSourceError`` for a failed
    ///   exchange (see ``transmit(_:)``) or too many redirects.
    func send(_ request: HTTPRequestHead) async throws -> Response {
        if let declarationError { throw declarationError }
        var current = request
        for _ in 0...Self.maximumRedirects {
            let response = try await authorizedSend(current)
            guard let next = Self.redirect(of: current, by: response) else { return response }
            current = next
        }
        throw RemoteSourceError.invalidResponse(
            "\(request.summary): more than \(Self.maximumRedirects) redirects")
    }

    /// The request a redirect asks for, or `nil` when `response` is no redirect an exchange follows.
    static func redirect(of request: HTTPRequestHead, by response: Response) -> HTTPRequestHead? {
        let status = response.head.status
        guard [301, 302, 303, 307, 308].contains(status), let location = response.head.headers["location"],
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            HTTPRequestHead.origin(of: target) == HTTPRequestHead.origin(of: request.url)
        else { return nil }
        let isRead = request.method == "GET" || request.method == "HEAD"
        guard isRead || status == 307 || status == 308 else { return nil }
        var next = request
        next.url = target
        return next
    }

    /// The first mistake in the exchange's settings, named after `modelType`: a timeout or size limit
    /// out of range, a header that could smuggle further headers.
    func settingsError(modelType: String) -> DeclarationError? {
        func invalid(_ setting: String, _ requirement: String, fix: String) -> DeclarationError {
            DeclarationError(.invalidSetting(setting, requirement: requirement), modelType: modelType, fix: fix)
        }
        if !(timeout > 0) {
            return invalid("HTTPRemoteSource.timeout", "more than 0 seconds", fix: "pass a timeout such as 30")
        }
        if maximumResponseSize < 1 {
            return invalid(
                "HTTPRemoteSource.maximumResponseSize", "at least 1 byte", fix: "pass a size such as 64 << 20")
        }
        // A line break or NUL in a header could smuggle further headers.
        for (name, value) in headers.sorted(by: { $0.key < $1.key })
        where name.isEmpty || name.contains(":") || !HTTPRequestHead.isSafeHeaderText(name)
            || !HTTPRequestHead.isSafeHeaderText(value)
        {
            return DeclarationError(
                .unsafeHeader(name), modelType: modelType,
                fix: "remove the line break or NUL, or give the header a name without a colon, in `headers`")
        }
        return nil
    }
}
