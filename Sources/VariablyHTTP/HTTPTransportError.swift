/// Why an ``HTTPTransport`` could not bring back an answer.
///
/// Each case names the request (`GET /users/changes`, never the query: it may hold a cursor) and says
/// what failed in the words of the library that failed, so that the message alone is enough to fix the
/// problem. ``isTransient`` tells a failure that may go away on retry from one that will not.
///
/// ```swift
/// do {
///     let response = try await HTTPTransports.platformDefault.send(
///         HTTPTransportRequest(method: "GET", url: URL(string: "https://api.example.com/v1/users/changes")!))
///     for try await chunk in response.body { print(chunk.count) }
/// } catch let error as HTTPTransportError where error.isTransient {
///     // try again later
/// }
/// ```
public enum HTTPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The whole request took longer than its ``HTTPTransportRequest/timeout``, however slowly the
    /// server sent its bytes.
    case timedOut(request: String, seconds: Double)
    /// No connection could be made: refused, unreachable, or a host name that does not resolve.
    case cannotConnect(request: String, reason: String)
    /// The connection broke before the answer was complete (closed inside the head or the body).
    case connectionLost(request: String, reason: String)
    /// TLS failed: the server's certificate was refused (untrusted, expired, issued for another host)
    /// or the handshake did not complete.
    case tlsFailure(request: String, reason: String)
    /// The proxy refused to carry the request (its answer to `CONNECT` was not a success).
    case proxyRefused(request: String, reason: String)
    /// The server's answer broke HTTP (a head past the limit, a body that does not decode).
    case invalidResponse(request: String, reason: String)
    /// The body was larger than the request's ``HTTPTransportRequest/maximumResponseSize``: the
    /// transfer stopped as soon as the limit was passed.
    case tooLarge(limit: Int)
    /// The HTTP library cannot be used here; `install` names what to install.
    case libraryUnavailable(reason: String, install: String)
    /// Any other failure of the library, in its own words.
    case failed(request: String, reason: String)

    /// Whether sending the same request again may succeed: a timeout, a connection that could not be
    /// made or that broke.
    ///
    /// ```swift
    /// HTTPTransportError.timedOut(request: "GET /users/changes", seconds: 30).isTransient   // true
    /// ```
    public var isTransient: Bool {
        switch self {
        case .timedOut, .cannotConnect, .connectionLost: return true
        case .tlsFailure, .proxyRefused, .invalidResponse, .tooLarge, .libraryUnavailable, .failed: return false
        }
    }

    /// What failed, e.g. `GET /users/changes: no complete answer within 30.0 s`.
    public var description: String {
        switch self {
        case .timedOut(let request, let seconds): return "\(request): no complete answer within \(seconds) s"
        case .cannotConnect(let request, let reason): return "\(request): cannot connect: \(reason)"
        case .connectionLost(let request, let reason): return "\(request): the connection was lost: \(reason)"
        case .tlsFailure(let request, let reason): return "\(request): TLS failed: \(reason)"
        case .proxyRefused(let request, let reason): return "\(request): the proxy refused the request: \(reason)"
        case .invalidResponse(let request, let reason): return "\(request): invalid answer: \(reason)"
        case .tooLarge(let limit): return "the server's answer is larger than the limit of \(limit) bytes"
        case .libraryUnavailable(let reason, let install): return "\(reason); install \(install)"
        case .failed(let request, let reason): return "\(request): \(reason)"
        }
    }
}
