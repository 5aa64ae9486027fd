import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - The request hook

extension HTTPExchange {
    /// Sends `request` once through the hook, and once more, prepared again, when the answer refuses the
    /// credentials (`401`, or a status the API declares so) and there is a hook to refresh them.
    func authorizedSend(_ request: HTTPRequestHead) async throws -> Response {
        guard prepare != nil else { return try await transmit(request) }
        let first = try await prepared(request, retrying: nil)
        let response = try await transmit(first)
        guard refusesCredentials(response.head.status) else { return response }
        return try await transmit(prepared(request, retrying: first))
    }

    /// `request` as the hook leaves it for a first attempt (`retrying` `nil`), or for the attempt after
    /// a refusal of `retrying`'s credentials; as it is without a hook.
    func prepared(_ request: HTTPRequestHead, retrying rejected: HTTPRequestHead?) async throws -> HTTPRequestHead {
        guard let prepare else { return request }
        let attempt =
            rejected.map { rejected in
                HTTPRequestAttempt(
                    isRetryAfterUnauthorized: true,
                    rejectedAuthorization: rejected.headers.first { $0.name.lowercased() == "authorization" }?.value)
            } ?? HTTPRequestAttempt(isRetryAfterUnauthorized: false)
        return try await Self.prepared(request, by: prepare, attempt: attempt)
    }

    /// `request` as the hook leaves it, through a `URLRequest`.
    private static func prepared(
        _ request: HTTPRequestHead, by hook: Hook, attempt: HTTPRequestAttempt
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
