package import Foundation

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
package final class URLSessionTransfer: @unchecked Sendable {
    private let lock = NSLock()
    /// Where the task is made, resumed and cancelled, in that order.
    private let control = DispatchQueue(label: "VariablyHTTP.URLSessionTransfer")
    private var task: URLSessionDataTask?
    private let summary: String
    private let maximumResponseSize: Int
    private let body: AsyncThrowingStream<Data, any Error>
    private let bodyContinuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var head: CheckedContinuation<HTTPTransportResponse, any Error>?
    /// An answer labelled with a `Content-Encoding`, held back until its first body bytes show whether
    /// URLSession decoded them (see ``isStillEncoded(_:coding:)``).
    private var pendingAnswer: HTTPTransportResponse?
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
    /// ended first; fails it `timeout` seconds later if it has not ended by then.
    ///
    /// The deadline is a dispatch timer, not a task of Swift's cooperative pool: a body that arrived in
    /// time is read whole even when the pool is slow to run its reader (see `HTTPRemoteSource.send`).
    func start(
        _ request: URLRequest, in session: URLSession, router: URLSessionTransportDelegate, timeout: Double,
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
        let summary = self.summary
        control.asyncAfter(deadline: .now() + min(timeout, 1e9)) { [weak self] in
            self?.fail(HTTPTransportError.timedOut(request: summary, seconds: timeout))
        }
    }

    // MARK: - Delegate events

    /// Hands the head to the caller; `false` when the transfer is over (cancelled, or an announced
    /// length past the limit).
    func receive(_ response: URLResponse) -> Bool {
        guard let http = response as? HTTPURLResponse else {
            fail(HTTPTransportError.invalidResponse(request: summary, reason: "not an HTTP response"))
            return false
        }
        if http.expectedContentLength > Int64(maximumResponseSize) {
            fail(HTTPTransportError.tooLarge(limit: maximumResponseSize))
            return false
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        let answer = HTTPTransportResponse(status: http.statusCode, headers: headers, body: body)
        guard answer.headers["content-encoding"] != nil else { return deliver(answer) }
        return lock.withLock {
            pendingAnswer = answer
            return !isFinished
        }
    }

    func receive(_ data: Data) {
        let (isTooLarge, pending): (Bool, HTTPTransportResponse?) = lock.withLock {
            received += data.count
            defer { pendingAnswer = nil }
            return (received > maximumResponseSize, pendingAnswer)
        }
        guard !isTooLarge else {
            fail(HTTPTransportError.tooLarge(limit: maximumResponseSize))
            return
        }
        if var answer = pending {
            if !Self.isStillEncoded(data, coding: answer.headers["content-encoding"]) {
                answer.headers["content-encoding"] = nil
            }
            guard deliver(answer) else { return }
        }
        bodyContinuation.yield(data)
    }

    func complete(error: (any Error)?) {
        if error == nil,
            var answer = lock.withLock({
                defer { pendingAnswer = nil }; return pendingAnswer
            })
        {
            // An empty body: nothing to decode.
            answer.headers["content-encoding"] = nil
            _ = deliver(answer)
        }
        guard let error else {
            let continuation: CheckedContinuation<HTTPTransportResponse, any Error>? = lock.withLock {
                defer { (head, isFinished) = (nil, true) }
                return head
            }
            // Completed without a head: FoundationNetworking would have trapped before; say so anyway.
            continuation?.resume(throwing: HTTPTransportError.connectionLost(request: summary, reason: "no answer"))
            bodyContinuation.finish()
            return
        }
        fail(transportError(error), cancelsTask: false)
    }

    /// Resumes the caller with `answer`; `false` when the transfer had ended.
    private func deliver(_ answer: HTTPTransportResponse) -> Bool {
        let continuation: CheckedContinuation<HTTPTransportResponse, any Error>? = lock.withLock {
            defer { head = nil }
            return isFinished ? nil : head
        }
        guard let continuation else { return false }
        continuation.resume(returning: answer)
        return true
    }

    /// Whether `prefix`, the first body bytes of an answer labelled `coding`, are still in that coding:
    /// a gzip member's magic number (RFC 1952 §2.3.1), or a zlib header (RFC 1950 §2.2: method 8, a
    /// window of at most 32 KiB, a check that divides by 31). URLSession decodes gzip and deflate
    /// itself, and FoundationNetworking leaves the header in place, so decoded is the usual answer;
    /// where a platform hands the bytes over as they came, the header stays and the source decodes
    /// them. A raw DEFLATE stream has no header and reads as decoded. JSON never starts like either.
    package static func isStillEncoded(_ prefix: Data, coding: String?) -> Bool {
        guard prefix.count >= 2, let coding = coding?.lowercased().trimmingCharacters(in: .whitespaces) else {
            return false
        }
        let (first, second) = (prefix[prefix.startIndex], prefix[prefix.startIndex + 1])
        switch coding {
        case "gzip", "x-gzip": return first == 0x1F && second == 0x8B
        case "deflate": return first & 0x0F == 8 && first >> 4 <= 7 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
        default: return false
        }
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

    /// `error` of URLSession as an ``HTTPTransportError``, classified as the sync layer retries it.
    private func transportError(_ error: any Error) -> any Error {
        if error is HTTPTransportError || error is CancellationError { return error }
        guard let error = error as? URLError else {
            return HTTPTransportError.failed(request: summary, reason: "\(error)")
        }
        switch error.code {
        case .timedOut:
            return HTTPTransportError.connectionLost(request: summary, reason: "\(error)")
        case .cannotConnectToHost, .notConnectedToInternet, .cannotFindHost, .dnsLookupFailed:
            return HTTPTransportError.cannotConnect(request: summary, reason: "\(error)")
        // `unknown` is how FoundationNetworking reports most of libcurl's failures, a body cut short
        // ("transfer closed with 35 bytes remaining to read") among them.
        case .networkConnectionLost, .badServerResponse, .zeroByteResource, .secureConnectionFailed, .unknown:
            return HTTPTransportError.connectionLost(request: summary, reason: "\(error)")
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired:
            return HTTPTransportError.tlsFailure(
                request: summary, reason: "the server's certificate was refused: \(error)")
        case .cannotDecodeContentData, .cannotDecodeRawData, .cannotParseResponse:
            return HTTPTransportError.invalidResponse(request: summary, reason: "\(error)")
        case .cancelled:
            return CancellationError()
        default:
            return HTTPTransportError.failed(request: summary, reason: "\(error)")
        }
    }
}
