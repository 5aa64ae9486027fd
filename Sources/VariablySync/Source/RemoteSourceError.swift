/// A failure reported by a ``RemoteSource``.
///
/// ```swift
/// do {
///     _ = try await remote.pull(after: nil, limit: 100)
/// } catch let error as RemoteSourceError where error.isTransient {
///     // try again later
/// }
/// ```
public enum RemoteSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A failure that may go away on retry (timeout, overload, a dropped connection).
    case transient(String)
    /// The server is unreachable or stopped answering; the sync stops and resumes next time.
    case unavailable(String)
    /// The server did not understand the cursor.
    case invalidCursor(SyncCursor)
    /// The server answered with an HTTP status that is not a success.
    case httpStatus(Int, body: String)
    /// The server's answer was not in the expected shape.
    case invalidResponse(String)
    /// The server answered 429 or 503 with a `Retry-After` header: retry, but not before `retryAfter`.
    case rateLimited(status: Int, retryAfter: Duration, body: String)
    /// The answer was larger than the source accepts (`HTTPRemoteSource`'s `maximumResponseSize`).
    case responseTooLarge(limit: Int)
    /// No record of a whole pull carried a field the API's declaration relies on (the changed-since
    /// field, a deletion marker): read as declared, deletions would stay as live rows, or every sync
    /// would pull everything again. `field` is the declared name, `endpoint` the path pulled, `record`
    /// the id of a record without it.
    case declaredFieldMissing(field: String, role: String, endpoint: String, record: String?, fix: String)

    /// Whether retrying the same request may succeed: ``transient(_:)``, ``rateLimited(status:retryAfter:body:)``,
    /// HTTP 408, 429 and 5xx.
    public var isTransient: Bool {
        switch self {
        case .transient, .rateLimited: return true
        case .httpStatus(let status, _): return status == 408 || status == 429 || (500...599).contains(status)
        case .unavailable, .invalidCursor, .invalidResponse, .responseTooLarge, .declaredFieldMissing: return false
        }
    }

    /// How long the server asked the client to wait before retrying (`Retry-After`), if it did.
    ///
    /// ```swift
    /// RemoteSourceError.rateLimited(status: 429, retryAfter: .seconds(2), body: "").retryAfter   // 2 seconds
    /// ```
    public var retryAfter: Duration? {
        if case .rateLimited(_, let delay, _) = self { return delay }
        return nil
    }

    /// What failed, e.g. `HTTP 503: try again`.
    public var description: String {
        switch self {
        case .transient(let reason): return "transient remote failure: \(reason)"
        case .unavailable(let reason): return "remote unavailable: \(reason)"
        case .invalidCursor(let cursor): return "the server does not know cursor \"\(cursor)\""
        case .httpStatus(let status, let body): return "HTTP \(status): \(body.prefix(200))"
        case .invalidResponse(let reason): return "invalid response from the server: \(reason)"
        case .rateLimited(let status, let delay, let body):
            return "HTTP \(status), retry after \(delay): \(body.prefix(200))"
        case .responseTooLarge(let limit): return "the server's answer is larger than the limit of \(limit) bytes"
        case .declaredFieldMissing(let field, let role, let endpoint, let record, let fix):
            return "no record pulled from \(endpoint) carries the declared \(role) \"\(field)\" (record "
                + "\(record ?? "?") has none): \(fix)"
        }
    }
}
