/// A REST collection written one record at a time: `PUT` or `PATCH {base}/{path}/{id}` for a record the
/// server has, `POST {base}/{path}` (or `PUT` with `If-None-Match: *`) for a new one, and
/// `DELETE {base}/{path}/{id}`.
///
/// Optimistic concurrency uses the record's version as the client last saw it: the value of
/// `versionField` in the record's JSON (a record without one is new), or, after a push of the same
/// record was accepted and before a pull brought it back, the version that push was answered with.
/// It is sent as `If-Match` (``Concurrency/ifMatch``) or left in the body for the server to compare
/// (``Concurrency/versionInBody``). A `409` or `412` answer is a conflict: the server's record is read
/// from the answer's body when it holds one (a JSON object that decodes as the model, not an error
/// object), else with `GET {base}/{path}/{id}` (`404`: deleted). An update answered `404` or `410` is a
/// conflict with the server's deletion; a policy that keeps the local record creates it again. A create
/// answered `404` or `410` throws ``RemoteSourceError/httpStatus(_:body:)`` (no such collection): the
/// new record stays, queued.
/// Every request carries the change's `Idempotency-Key` header, so that a server can recognize a
/// retried `POST`.
///
/// ```swift
/// let endpoints = HTTPRecordEndpoints(path: "users", update: .put, versionField: "version", concurrency: .ifMatch)
/// ```
public struct HTTPRecordEndpoints: Sendable {
    /// The method that replaces or amends a record.
    public enum UpdateMethod: String, Sendable {
        /// `PUT`: the whole record.
        case put = "PUT"
        /// `PATCH`: the record's JSON, as a merge patch.
        case patch = "PATCH"
    }

    /// How a change says which version it was based on.
    public enum Concurrency: Sendable {
        /// No check: the last write wins.
        case none
        /// `If-Match: "<version>"`; the server answers `412` when the record changed.
        case ifMatch
        /// The version stays in the record's JSON; the server answers `409` when it is not current.
        case versionInBody
    }

    /// The collection's path under the base URL; `""` for the base URL itself.
    package var path: String
    /// `PUT` or `PATCH` for records the server has.
    package var update: UpdateMethod
    /// Whether new records are created with `POST {path}` (`true`) or `PUT {path}/{id}` with
    /// `If-None-Match: *` (`false`).
    package var createsWithPost: Bool
    /// The key of the record's version in its JSON (e.g. `"version"`, `"etag"`); `nil` when records
    /// carry none (then every upsert is a `PUT`/`PATCH` without a condition).
    package var versionField: String?
    /// How the version is checked.
    package var concurrency: Concurrency

    /// Endpoints for the collection at `path`.
    ///
    /// ```swift
    /// HTTPRecordEndpoints(path: "users", update: .patch, versionField: "version", concurrency: .versionInBody)
    /// ```
    ///
    /// - Parameters:
    ///   - path: The collection's path under the base URL; `""` for the base URL itself.
    ///   - update: `PUT` or `PATCH` for records the server has.
    ///   - createsWithPost: Whether new records are created with `POST {path}` (`true`) or `PUT {path}/{id}` with `If-
    ///     None-Match: *` (`false`).
    ///   - versionField: The key of the record's version in its JSON (e.g. `"version"`, `"etag"`); `nil` when records
    ///     carry none (then every upsert is a `PUT`/`PATCH` without a condition).
    ///   - concurrency: How the version is checked.
    public init(
        path: String = "", update: UpdateMethod = .put, createsWithPost: Bool = true, versionField: String? = nil,
        concurrency: Concurrency = .none
    ) {
        self.path = path
        self.update = update
        self.createsWithPost = createsWithPost
        self.versionField = versionField
        self.concurrency = concurrency
    }
}
