/// Sends one HTTP request and hands back the answer as it arrives: the status and headers first, then
/// the body in chunks.
///
/// Each platform has one default, chosen in ``HTTPTransports/platformDefault``: ``URLSessionTransport``
/// on Apple platforms, `CurlTransport` (the system's libcurl) on Linux. An app plugs its own HTTP
/// client by conforming to this protocol and passing it to a source, e.g.
/// `HTTPRemoteSource(baseURL:transport:)`:
///
/// ```swift
/// struct RecordingTransport: HTTPTransport {
///     let base: any HTTPTransport
///     func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
///         print(request.method, request.url.path)
///         return try await base.send(request)
///     }
/// }
/// let remote = HTTPRemoteSource<User>(
///     baseURL: URL(string: "https://api.example.com/v1/users")!,
///     transport: RecordingTransport(base: HTTPTransports.platformDefault))
/// ```
///
/// What callers expect of a transport:
/// - **No redirects.** Return a `3xx` answer as it is: the sync layer follows redirects by its own
///   rules, the same on every transport (same origin only; writes only for `307` and `308`).
/// - **Content codings.** A transport asks for the codings it decodes (or those of the request's own
///   `Accept-Encoding` header) and hands over the body decoded, without `Content-Encoding` in the
///   headers it returns. A body still encoded is refused by the sync layer: it has no decoder of its own.
/// - **Limits.** Stop reading once the body passes ``HTTPTransportRequest/maximumResponseSize``
///   (``HTTPTransportError/tooLarge(limit:)``); callers count the bytes too.
/// - **Cancellation.** A caller stops a request by cancelling the task that awaits `send` or iterates
///   the body, or by dropping the body stream (its `onTermination` handler): the transport then ends the
///   request at once. Callers bound every request by its ``HTTPTransportRequest/timeout``, whatever the
///   transport does with it.
/// - **Errors.** Throw ``HTTPTransportError`` where the failure is known (`.cannotConnect` for a
///   refused connection, `.connectionLost` for a dropped one); the sync layer reports any other error
///   as a remote that is unavailable.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns as soon as the answer's status and headers have arrived; the body
    /// follows in ``HTTPTransportResponse/body``.
    ///
    /// ```swift
    /// let response = try await transport.send(
    ///     HTTPTransportRequest(method: "GET", url: URL(string: "https://api.example.com/v1/users/changes")!))
    /// for try await chunk in response.body { print(chunk.count) }
    /// ```
    ///
    /// - Parameter request: The method, URL, headers and body, with the deadline and size limit to apply.
    /// - Throws: ``HTTPTransportError`` for a failure the transport recognises; `CancellationError` when
    ///   the task is cancelled.
    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse
}
