#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// The ``HTTPTransport`` of Apple platforms (see ``HTTPTransports/platformDefault``): a `URLSession` of its own whose delegate streams each body to
/// its caller as it arrives, so that the size limit stops a transfer the moment it is
/// passed, and hands `3xx` answers back to the caller, whose redirect rules apply.
///
/// The request asks for `Accept-Encoding: gzip, deflate`. URLSession decodes such a body itself
/// (CFNetwork on Apple platforms; on Linux, libcurl through FoundationNetworking, which leaves the
/// `Content-Encoding` header in place), so once the first body bytes show a decoded body (no gzip magic
/// number, no zlib header) this transport removes `Content-Encoding` from the headers it returns, and
/// leaves it for the source's own decoder otherwise. It counts the bytes against the limit as they
/// arrive; an announced `Content-Length` past the limit stops the transfer before any body byte.
///
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.httpMaximumConnectionsPerHost = 4
/// let remote = HTTPRemoteSource<User>(
///     baseURL: URL(string: "https://api.example.com/v1/users")!,
///     transport: URLSessionTransport(configuration: configuration))
/// ```
public final class URLSessionTransport: SelfTimedHTTPTransport {
    /// One transport for every source that names none: their requests share its connections.
    ///
    /// ```swift
    /// let remote = HTTPRemoteSource<User>(baseURL: base, transport: URLSessionTransport.shared)
    /// ```
    public static let shared = URLSessionTransport(configuration: .ephemeral)

    let session: URLSession
    private let router: URLSessionTransportDelegate

    /// A transport with a session of its own, made from `configuration` (cookies, proxies, TLS
    /// settings, connection limits).
    ///
    /// ```swift
    /// let transport = URLSessionTransport(configuration: .ephemeral)
    /// ```
    ///
    /// - Parameter configuration: The session's configuration; its cache is not used (every request
    ///   reloads).
    public init(configuration: URLSessionConfiguration) {
        let router = URLSessionTransportDelegate()
        self.router = router
        session = URLSession(
            configuration: configuration, delegate: router, delegateQueue: Self.delegateQueue(over: router.queue))
    }

    /// The queue the session calls its delegate on: serial, over a dispatch queue of its own. The queue
    /// URLSession makes when given none runs on the same few threads as Swift's cooperative pool (one
    /// per core, on Linux), so a burst of work there (a sync applying pages, tests blocked in a child
    /// process) held back every answer's events until the transfers' deadlines passed; a serial
    /// dispatch queue of its own is given a thread whenever it has work.
    /// `underlying` is held by the delegate, which the session holds until it is invalidated: an operation
    /// queue does not own its underlying queue on every platform.
    private static func delegateQueue(over underlying: DispatchQueue) -> OperationQueue {
        let queue = OperationQueue()
        queue.name = "VariablyHTTP.URLSessionTransport.delegate"
        queue.maxConcurrentOperationCount = 1
        queue.underlyingQueue = underlying
        return queue
    }

    deinit {
        // The session holds its delegate until it is invalidated; invalidating waits for the session's
        // queue, so not on the releasing thread (see `URLSessionTransfer`).
        let session = self.session
        DispatchQueue(label: "VariablyHTTP.URLSessionTransport.invalidate").async { session.finishTasksAndInvalidate() }
    }

    /// Starts the request and returns once the answer's head has arrived.
    ///
    /// ```swift
    /// let response = try await URLSessionTransport.shared.send(
    ///     HTTPTransportRequest(method: "GET", url: URL(string: "https://api.example.com/v1/users/changes")!))
    /// ```
    ///
    /// - Parameter request: The request; `timeout` bounds the whole request (a timer of the transport's
    ///   own), and sets URLSession's idle timer too.
    /// - Throws: ``HTTPTransportError`` (`.cannotConnect`, `.connectionLost` or `.timedOut` for a refused,
    ///   dropped or timed-out connection, `.tooLarge` for a body past the limit), `CancellationError`.
    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let transfer = URLSessionTransfer(summary: request.summary, maximumResponseSize: request.maximumResponseSize)
        let (session, router) = (self.session, self.router)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.start(
                    urlRequest, in: session, router: router, timeout: request.timeout, continuation: continuation)
            }
        } onCancel: {
            transfer.fail(CancellationError())
        }
    }
}
