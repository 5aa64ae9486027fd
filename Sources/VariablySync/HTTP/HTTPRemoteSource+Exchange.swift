import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - The request hook

extension HTTPRemoteSource {
    /// Sends `request` after the ``prepare`` hook, and once more after a `401` when there is a hook.
    func exchange(_ request: HTTPRequestHead) async throws -> Response {
        guard let prepare else { return try await send(request) }
        let response = try await send(Self.prepared(request, by: prepare, retry: false))
        guard response.head.status == 401 else { return response }
        return try await send(Self.prepared(request, by: prepare, retry: true))
    }

    /// `request` as the hook leaves it, through a `URLRequest`.
    private static func prepared(_ request: HTTPRequestHead, by hook: RequestHook, retry: Bool) async throws -> HTTPRequestHead {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        try await hook(&urlRequest, HTTPRequestAttempt(isRetryAfterUnauthorized: retry))
        guard let url = urlRequest.url else { throw RemoteSourceError.invalidResponse("the request hook removed the URL") }
        let headers = (urlRequest.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        for (name, value) in headers where !HTTPRequestHead.isSafeHeaderText(name) || !HTTPRequestHead.isSafeHeaderText(value) {
            throw RemoteSourceError.invalidResponse("the request hook set header \"\(name.prefix(40))\" with a line break or NUL")
        }
        return HTTPRequestHead(
            method: urlRequest.httpMethod ?? request.method, url: url, headers: headers, body: urlRequest.httpBody ?? request.body)
    }
}
