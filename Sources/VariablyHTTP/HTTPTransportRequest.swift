public import Foundation

/// One request for an ``HTTPTransport``: what the sync layer's sources send.
///
/// ```swift
/// let request = HTTPTransportRequest(
///     method: "POST", url: URL(string: "https://api.example.com/v1/users/changes")!,
///     headers: [("Content-Type", "application/json")], body: Data("{}".utf8))
/// ```
public struct HTTPTransportRequest: Sendable {
    /// `GET`, `POST`, `PUT`, `PATCH` or `DELETE`.
    public var method: String
    /// The absolute URL, query included.
    public var url: URL
    /// The headers to send, in order; names as the app wrote them. The source has checked that no
    /// name or value holds a line break or a NUL.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: Data?
    /// Seconds the whole request may take: the source gives up at that point whatever the transport
    /// does, and a transport may use it for its own timers.
    public var timeout: Double
    /// The most body bytes the source accepts: it stops reading past them, and a transport may stop
    /// earlier (``URLSessionTransport`` cancels its task the moment the limit is passed).
    public var maximumResponseSize: Int

    /// A request; the source fills `timeout` and `maximumResponseSize` from its own settings.
    ///
    /// ```swift
    /// let request = HTTPTransportRequest(method: "GET", url: URL(string: "https://api.example.com/v1/users/changes")!)
    /// ```
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: The absolute URL.
    ///   - headers: The headers, in order.
    ///   - body: The body, if any.
    ///   - timeout: Seconds the whole request may take (30 by default).
    ///   - maximumResponseSize: The most body bytes accepted (64 MiB by default).
    public init(
        method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil,
        timeout: Double = 30, maximumResponseSize: Int = 64 << 20
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
    }

    /// `GET /users/changes`: what error messages name (never the query: it may hold a cursor).
    package var summary: String { "\(method) \(url.path)" }
}
