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
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        urlRequest.httpBody = request.body
        let call = URLSessionCall(session: session, request: urlRequest, summary: request.summary)
        let timeout = self.timeout
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                call.start(timeout: timeout, continuation: continuation)
            }
        } onCancel: {
            call.finish(.failure(CancellationError()))
        }
        guard response.body.count <= maximumResponseSize else {
            throw RemoteSourceError.responseTooLarge(limit: maximumResponseSize)
        }
        return response
    }
}

/// One `URLSessionDataTask` raced against a deadline and the caller's cancellation: whichever comes
/// first resumes the continuation, and the task is cancelled.
///
/// `@unchecked Sendable`: `continuation` and `task` are only touched while holding `lock`; the
/// session and request are only read.
private final class URLSessionCall: @unchecked Sendable {
    typealias Response = (head: HTTPResponseParser.Head, body: Data)

    private let lock = NSLock()
    private let session: URLSession
    private let request: URLRequest
    private let summary: String
    private var continuation: CheckedContinuation<Response, any Error>?
    private var task: URLSessionDataTask?
    private var isFinished = false

    init(session: URLSession, request: URLRequest, summary: String) {
        self.session = session
        self.request = request
        self.summary = summary
    }

    func start(timeout: TimeInterval, continuation: CheckedContinuation<Response, any Error>) {
        let task = session.dataTask(with: request) { data, response, error in
            self.finish(self.outcome(data: data, response: response, error: error))
        }
        let startsTask: Bool = lock.withLock {
            guard !isFinished else { return false }
            self.continuation = continuation
            self.task = task
            return true
        }
        guard startsTask else {
            continuation.resume(throwing: CancellationError())
            return
        }
        let summary = self.summary
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
            self.finish(.failure(RemoteSourceError.transient("\(summary): no complete answer within \(timeout) s")))
        }
        task.resume()
    }

    func finish(_ outcome: Result<Response, any Error>) {
        let (continuation, task): (CheckedContinuation<Response, any Error>?, URLSessionDataTask?) = lock.withLock {
            defer { (self.continuation, self.task, isFinished) = (nil, nil, true) }
            return (self.continuation, self.task)
        }
        continuation?.resume(with: outcome)
        if case .failure = outcome { task?.cancel() }
    }

    private func outcome(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<Response, any Error> {
        if let error = error as? URLError {
            switch error.code {
            case .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet,
                .cannotFindHost, .dnsLookupFailed, .badServerResponse, .zeroByteResource:
                return .failure(RemoteSourceError.transient("\(summary): \(error)"))
            default:
                return .failure(RemoteSourceError.unavailable("\(summary): \(error)"))
            }
        } else if let error {
            return .failure(RemoteSourceError.unavailable("\(summary): \(error)"))
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(RemoteSourceError.invalidResponse("\(summary): not an HTTP response"))
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return .success((HTTPResponseParser.Head(status: http.statusCode, headers: headers), data ?? Data()))
    }
}
