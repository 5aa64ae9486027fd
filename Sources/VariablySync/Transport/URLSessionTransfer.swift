import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One data task of a ``URLSessionTransport``: resumes the caller once the head has arrived, then
/// streams the body, counting its bytes against the limit; whichever of the answer, a failure or a
/// cancellation comes first ends it, and a failure cancels the task.
///
/// FoundationNetworking's `dataTask(with:)`, `resume()` and `cancel()` each wait for the session's
/// work queue, which a server sending as fast as loopback allows keeps busy for seconds (seen under
/// load: every cooperative thread stuck in `dataTask(with:)` behind one such transfer). So none of
/// them runs on a caller's thread: they run on a serial queue of the transfer's own, on dispatch's
/// overcommitting threads, and the caller is answered (a deadline, a cancellation, the size limit)
/// without waiting for them.
///
/// `@unchecked Sendable`: every mutable property is only touched while holding `lock` (the delegate's
/// queue, the caller's cancellation and the body's consumer are different threads); the rest is
/// immutable.
final class URLSessionTransfer: @unchecked Sendable {
    private let lock = NSLock()
    /// Where the task is made, resumed and cancelled, in that order.
    private let control = DispatchQueue(label: "VariablySync.URLSessionTransfer")
    private var task: URLSessionDataTask?
    private let summary: String
    private let maximumResponseSize: Int
    private let body: AsyncThrowingStream<Data, any Error>
    private let bodyContinuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var head: CheckedContinuation<HTTPTransportResponse, any Error>?
    private var received = 0
    private var isFinished = false

    init(summary: String, maximumResponseSize: Int) {
        self.summary = summary
        self.maximumResponseSize = maximumResponseSize
        (body, bodyContinuation) = AsyncThrowingStream.makeStream(of: Data.self)
        bodyContinuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.fail(CancellationError()) }
        }
    }

    /// Makes the task in `session` (whose delegate is `router`) and starts it, unless the transfer
    /// ended first.
    func start(
        _ request: URLRequest, in session: URLSession, router: URLSessionTransportDelegate,
        continuation: CheckedContinuation<HTTPTransportResponse, any Error>
    ) {
        let starts: Bool = lock.withLock {
            guard !isFinished else { return false }
            head = continuation
            return true
        }
        guard starts else {
            continuation.resume(throwing: CancellationError())
            return
        }
        control.async { [self] in
            let task = session.dataTask(with: request)
            router.register(self, for: task)
            let isFinished: Bool = lock.withLock {
                self.task = task
                return self.isFinished
            }
            // Ended while the task was being made: the delegate forgets it once it completes.
            if isFinished { task.cancel() } else { task.resume() }
        }
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
        if cancelsTask {
            control.async { [self] in lock.withLock { task }?.cancel() }
        }
    }

    private func remoteError(_ error: any Error) -> any Error {
        if error is RemoteSourceError || error is CancellationError { return error }
        guard let error = error as? URLError else { return RemoteSourceError.unavailable("\(summary): \(error)") }
        switch error.code {
        // `unknown` is how FoundationNetworking reports most of libcurl's failures, a body cut short
        // ("transfer closed with 35 bytes remaining to read") among them.
        case .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet,
            .cannotFindHost, .dnsLookupFailed, .badServerResponse, .zeroByteResource, .secureConnectionFailed,
            .unknown:
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
