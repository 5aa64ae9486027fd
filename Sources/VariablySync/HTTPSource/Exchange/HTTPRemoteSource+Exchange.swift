import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - The request hook

extension HTTPRemoteSource {
    /// The most redirects one request follows (URLSession's bound is of the same order).
    static var maximumRedirects: Int { 10 }

    /// Sends `request` after the ``prepare`` hook, once more after a `401` when there is a hook, and
    /// follows redirects on the request's own origin: every one for `GET` and `HEAD`, and for writes
    /// only `307` and `308`, which keep the method and the body (RFC 9110 §15.4). A `301`, `302` or `303`
    /// answer to a write is returned as it is: following it would turn the write into a `GET`, which
    /// reads as success while nothing was written. A redirect to another origin is returned too: the
    /// hook's credentials go only to the origin the app named.
    /// A source whose declaration has a mistake (see ``declarationError``) sends nothing and throws it.
    func exchange(_ request: HTTPRequestHead) async throws -> Response {
        try checkDeclaration()
        var current = request
        for _ in 0...Self.maximumRedirects {
            let response = try await authorizedExchange(current)
            guard let next = Self.redirect(of: current, by: response) else { return response }
            current = next
        }
        throw RemoteSourceError.invalidResponse(
            "\(request.summary): more than \(Self.maximumRedirects) redirects")
    }

    /// The request a redirect asks for, or `nil` when `response` is no redirect this source follows.
    static func redirect(of request: HTTPRequestHead, by response: Response) -> HTTPRequestHead? {
        let status = response.head.status
        guard [301, 302, 303, 307, 308].contains(status), let location = response.head.headers["location"],
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            HTTPPullShape.origin(of: target) == HTTPPullShape.origin(of: request.url)
        else { return nil }
        let isRead = request.method == "GET" || request.method == "HEAD"
        guard isRead || status == 307 || status == 308 else { return nil }
        var next = request
        next.url = target
        return next
    }

    private func authorizedExchange(_ request: HTTPRequestHead) async throws -> Response {
        guard let prepare else { return try await send(request) }
        let first = try await Self.prepared(
            request, by: prepare, attempt: HTTPRequestAttempt(isRetryAfterUnauthorized: false))
        let response = try await send(first)
        guard refusesCredentials(response.head.status) else { return response }
        let rejected = first.headers.first { $0.name.lowercased() == "authorization" }?.value
        return try await send(
            Self.prepared(
                request, by: prepare,
                attempt: HTTPRequestAttempt(isRetryAfterUnauthorized: true, rejectedAuthorization: rejected)))
    }

    /// `request` as the hook leaves it, through a `URLRequest`.
    private static func prepared(
        _ request: HTTPRequestHead, by hook: RequestHook, attempt: HTTPRequestAttempt
    ) async throws -> HTTPRequestHead {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        try await hook(&urlRequest, attempt)
        guard let url = urlRequest.url else {
            throw RemoteSourceError.invalidResponse("the request hook removed the URL")
        }
        let headers = (urlRequest.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
            (name: $0.key, value: $0.value)
        }
        for (name, value) in headers
        where !HTTPRequestHead.isSafeHeaderText(name) || !HTTPRequestHead.isSafeHeaderText(value) {
            throw RemoteSourceError.invalidResponse(
                "the request hook set header \"\(name.prefix(40))\" with a line break or NUL")
        }
        return HTTPRequestHead(
            method: urlRequest.httpMethod ?? request.method, url: url, headers: headers,
            body: urlRequest.httpBody ?? request.body)
    }
}
