import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One data task of a ``URLSessionTransport``: resumes the caller once the head has arrived, then
/// streams the body, counting its bytes against the limit; whichever of the answer, a failure or a
/// cancellation comes first ends it, and a failure cancels the task.
///
/// `@unchecked Sendable`: every mutable property is only touched while holding `lock` (the delegate's
/// queue, the caller's cancellation and the body's consumer are different threads); the rest is
/// immutable.
final class URLSessionTransfer: @unchecked Sendable {
    private let lock = NSLock()
    private let task: URLSessionDataTask
    private let summary: String
    private let maximumResponseSize: Int
    private let body: AsyncThrowingStream<Data, any Error>
    private let bodyContinuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var head: CheckedContinuation<HTTPTransportResponse, any Error>?
    private var received = 0
    private var isFinished = false

    init(task: URLSessionDataTask, summary: String, maximumResponseSize: Int) {
        self.task = task
        self.summary = summary
        self.maximumResponseSize = maximumResponseSize
        (body, bodyContinuation) = AsyncThrowingStream.makeStream(of: Data.self)
        bodyContinuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.fail(CancellationError()) }
        }
    }

    func start(_ continuation: CheckedContinuation<HTTPTransportResponse, any Error>) {
        let starts: Bool = lock.withLock {
            guard !isFinished else { return false }
            head = continuation
            return true
        }
        guard starts else {
            continuation.resume(throwing: CancellationError())
            return
        }
        task.resume()
    }

    // MARK: - Delegate events

    /// Hands the head to the caller; `false` when the transfer is over (cancelled, or an announced
    /// length past the limit).
    func receive(_ response: URLResponse) -> Bool {
        guard let http = response as? HTTPURLResponse else {
            fail(RemoteSourceError.invalidResponse("\(summary): not an HTTP response"))
            return false
        }
        if http.expectedContentLength > Int64(maximumResponseSize) {
            fail(RemoteSourceError.responseTooLarge(limit: maximumResponseSize))
            return false
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        var answer = HTTPTransportResponse(status: http.statusCode, headers: headers, body: body)
        // URLSession has decoded the body already (libcurl leaves the header in place).
        answer.headers["content-encoding"] = nil
        let continuation: CheckedContinuation<HTTPTransportResponse, any Error>? = lock.withLock {
            defer { head = nil }
            return isFinished ? nil : head
        }
        guard let continuation else { return false }
        continuation.resume(returning: answer)
        return true
    }

    func receive(_ data: Data) {
        let isTooLarge: Bool = lock.withLock {
            received += data.count
            return received > maximumResponseSize
        }
        guard !isTooLarge else {
            fail(RemoteSourceError.responseTooLarge(limit: maximumResponseSize))
            return
        }
        bodyContinuation.yield(data)
    }

    func complete(error: (any Error)?) {
        guard let error else {
            let continuation: CheckedContinuation<HTTPTransportResponse, any Error>? = lock.withLock {
                defer { (head, isFinished) = (nil, true) }
                return head
            }
            // Completed without a head: FoundationNetworking would have trapped before; say so anyway.
            continuation?.resume(throwing: RemoteSourceError.transient("\(summary): no answer"))
            bodyContinuation.finish()
            return
        }
        fail(remoteError(error), cancelsTask: false)
    }

    // MARK: - Ending

    /// Ends the transfer with `error` once: the caller waiting for the head, or the body's consumer,
    /// gets it; the task is cancelled.
    func fail(_ error: any Error, cancelsTask: Bool = true) {
        let (continuation, wasFinished): (CheckedContinuation<HTTPTransportResponse, any Error>?, Bool) =
            lock.withLock {
                defer { (head, isFinished) = (nil, true) }
                return (head, isFinished)
            }
        guard !wasFinished else { return }
        continuation?.resume(throwing: error)
        bodyContinuation.finish(throwing: error)
        // From another queue: `fail` may run on a caller's thread (a cooperative one, for a cancelled
        // task), and FoundationNetworking's `cancel()` waits for the session's own queue. A task never
        // resumed is cancelled too, so that the delegate forgets it.
        if cancelsTask {
            let task = self.task
            DispatchQueue.global().async { task.cancel() }
        }
    }

    private func remoteError(_ error: any Error) -> any Error {
        if error is RemoteSourceError || error is CancellationError { return error }
        guard let error = error as? URLError else { return RemoteSourceError.unavailable("\(summary): \(error)") }
        switch error.code {
        case .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet,
            .cannotFindHost, .dnsLookupFailed, .badServerResponse, .zeroByteResource, .secureConnectionFailed:
            return RemoteSourceError.transient("\(summary): \(error)")
        case .cannotDecodeContentData, .cannotDecodeRawData, .cannotParseResponse:
            return RemoteSourceError.invalidResponse("\(summary): \(error)")
        case .cancelled:
            return CancellationError()
        default:
            return RemoteSourceError.unavailable("\(summary): \(error)")
        }
    }
}
