/// Sends one HTTP request for ``HTTPRemoteSource`` and hands back the answer as it arrives: the
/// status and headers first, then the body in chunks.
///
/// The default is ``URLSessionTransport`` (on Linux, URLs go through the package's own HTTP/1.1
/// client, over the system's OpenSSL for `https://`, unless a transport is passed). A server-side app plugs its own HTTP client by
/// conforming to this protocol and passing it as `HTTPRemoteSource(baseURL:transport:)`:
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
///     transport: RecordingTransport(base: URLSessionTransport.shared))
/// ```
///
/// What the source expects of a transport:
/// - **No redirects.** Return a `3xx` answer as it is: the source follows redirects by its own rules,
///   the same on every transport (same origin only; writes only for `307` and `308`).
/// - **Content codings.** Send the request's headers as they are (the source asks for
///   `Accept-Encoding: gzip, deflate`). A transport that decodes the body itself removes
///   `Content-Encoding` from the headers it returns; otherwise the source decodes `gzip` and
///   `deflate` with its own decoder, within `maximumResponseSize`.
/// - **Cancellation.** The source stops a request by cancelling the task that awaits `send` or
///   iterates the body, or by dropping the body stream (its `onTermination` handler): the transport
///   then ends the request at once. The source bounds every request by its own deadline, whatever the
///   transport does with ``HTTPTransportRequest/timeout``.
/// - **Errors.** Throw ``RemoteSourceError`` where the failure is known (`.transient` for a refused or
///   dropped connection); any other error is reported as ``RemoteSourceError/unavailable(_:)``.
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
    /// - Parameter request: The method, URL, headers and body, with the deadline and size limit that
    ///   the source applies.
    /// - Throws: ``RemoteSourceError`` for a failure the transport recognises (`.transient` for a
    ///   connection refused, dropped or timed out); `CancellationError` when the task is cancelled.
    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse
}
