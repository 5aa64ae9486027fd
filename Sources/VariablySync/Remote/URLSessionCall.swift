import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `URLSessionDataTask` of ``HTTPRemoteSource``, raced against a deadline and the caller's
/// cancellation: whichever comes first resumes the continuation, and the task is cancelled.
///
/// The size limit is checked once the body has arrived: FoundationNetworking on Linux does not call a
/// task's own delegate (`URLSessionTask.delegate`; tried: an endless body was never reported), and
/// the session's delegate belongs to the caller, so the body cannot be watched while it arrives.
/// The request asks for `Accept-Encoding: identity`; a server that compresses anyway gets its body
/// inflated by URLSession (libcurl in FoundationNetworking, CFNetwork on Apple platforms) before it
/// reaches this object, so the limit applies to the inflated bytes, after they are all in memory.
///
/// `@unchecked Sendable`: every mutable property is only touched while holding `lock` (the completion
/// handler, the timer and the cancellation arrive on different threads); the rest is immutable.
final class URLSessionCall: @unchecked Sendable {
    typealias Response = (head: HTTPResponseParser.Head, body: Data)

    private let lock = NSLock()
    private let session: URLSession
    private let request: URLRequest
    private let summary: String
    private let maximumResponseSize: Int
    private var continuation: CheckedContinuation<Response, any Error>?
    private var task: URLSessionDataTask?
    private var isFinished = false

    init(session: URLSession, request: URLRequest, summary: String, maximumResponseSize: Int) {
        self.session = session
        self.request = request
        self.summary = summary
        self.maximumResponseSize = maximumResponseSize
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
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
            self?.finish(.failure(RemoteSourceError.transient("\(summary): no complete answer within \(timeout) s")))
        }
        task.resume()
    }

    /// Resumes the caller once; a failure also cancels the task.
    func finish(_ outcome: Result<Response, any Error>) {
        let (continuation, task): (CheckedContinuation<Response, any Error>?, URLSessionDataTask?) = lock.withLock {
            defer { (self.continuation, self.task, isFinished) = (nil, nil, true) }
            return (self.continuation, self.task)
        }
        continuation?.resume(with: outcome)
        // Cancelled from another queue: `finish` may run on a caller's thread (a cooperative one, for a
        // cancelled task), and FoundationNetworking's `cancel()` waits for the session's own queue.
        if case .failure = outcome, let task { DispatchQueue.global().async { task.cancel() } }
    }

    // MARK: - Outcome

    private func outcome(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<Response, any Error> {
        if let error { return .failure(remoteError(error)) }
        guard let http = response as? HTTPURLResponse else {
            return .failure(RemoteSourceError.invalidResponse("\(summary): not an HTTP response"))
        }
        let body = data ?? Data()
        guard body.count <= maximumResponseSize else {
            return .failure(RemoteSourceError.responseTooLarge(limit: maximumResponseSize))
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return .success((HTTPResponseParser.Head(status: http.statusCode, headers: headers), body))
    }

    private func remoteError(_ error: any Error) -> RemoteSourceError {
        guard let error = error as? URLError else { return .unavailable("\(summary): \(error)") }
        switch error.code {
        case .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet,
            .cannotFindHost, .dnsLookupFailed, .badServerResponse, .zeroByteResource:
            return .transient("\(summary): \(error)")
        default:
            return .unavailable("\(summary): \(error)")
        }
    }
}
