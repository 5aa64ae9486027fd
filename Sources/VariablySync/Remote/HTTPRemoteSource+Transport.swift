import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - Transport

extension HTTPRemoteSource {
    /// A status with the headers (names in lower case), and the body.
    typealias Response = (head: HTTPResponseParser.Head, body: Data)

    /// Sends `request` through the socket client (`http://` on Linux) or `session`, within `timeout`.
    func send(_ request: HTTPRequestHead) async throws -> Response {
        #if canImport(Glibc)
            if request.url.scheme?.lowercased() == "http", !prefersURLSession {
                let client = HTTPSocketClient(timeout: timeout, maximumResponseSize: maximumResponseSize)
                return try await client.send(request)
            }
        #endif
        return try await sendWithURLSession(request)
    }

    /// The body of a 2xx answer; any other status as a ``RemoteSourceError``.
    static func successBody(_ response: Response) throws -> Data {
        let status = response.head.status
        guard (200...299).contains(status) else {
            let body = String(decoding: response.body.prefix(4096), as: UTF8.self)
            if status == 429 || status == 503,
                let delay = response.head.headers["retry-after"].flatMap({ HTTPRetryAfter.delay($0) })
            {
                throw RemoteSourceError.rateLimited(status: status, retryAfter: delay, body: body)
            }
            throw RemoteSourceError.httpStatus(status, body: body)
        }
        return response.body
    }

    /// Whether a pull's answer says the server does not know the cursor: 410 Gone, or 400, 404 or 422
    /// with a body that mentions the cursor (`{"error": "invalid_cursor"}`, `unknown cursor`, ...).
    static func isUnknownCursor(status: Int, body: Data) -> Bool {
        if status == 410 { return true }
        guard [400, 404, 422].contains(status) else { return false }
        return String(decoding: body.prefix(4096), as: UTF8.self).lowercased().contains("cursor")
    }

    // MARK: - URLSession

    /// Sends through `session` with one deadline for the whole request: `URLRequest.timeoutInterval` is
    /// an idle timer only, which a server sending a byte now and then never trips.
    private func sendWithURLSession(_ request: HTTPRequestHead) async throws -> Response {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        // URLSession would inflate a compressed body whole before the size check below can see it:
        // asking for identity keeps a well-behaved server from compressing (see `URLSessionCall`).
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        urlRequest.httpBody = request.body
        let call = URLSessionCall(
            session: session, request: urlRequest, summary: request.summary, maximumResponseSize: maximumResponseSize)
        let timeout = self.timeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                call.start(timeout: timeout, continuation: continuation)
            }
        } onCancel: {
            call.finish(.failure(CancellationError()))
        }
    }
}
