/// How an ``HTTPRemoteSource`` tells an answer that refuses its credentials from one about the data.
///
/// Some servers answer credentials that no longer pass a rule without a `401`: PocketBase lists nothing
/// (`200` with no items), answers an update or delete `404` and a create `400`, exactly as for a record
/// that is not there. Read as such, an edit would be settled as a server deletion. With a check
/// declared, before a `404` or `410` is settled as a deletion, a create's `400` or `404` as a failed
/// change, or a pull that brought nothing is believed, the source sends the check request: anything but a
/// success stops the push or pull with the credentials error, and nothing is settled. Statuses listed
/// in `refusedStatuses` (`401` always) stop a push the same way, and run the request hook's refresh.
///
/// ```swift
/// // PocketBase: the token's own record answers 401 once the token is bad or expired.
/// HTTPCredentialsCheck(method: "POST", path: "api/collections/members/auth-refresh")
/// // An API that answers 403 for an expired token.
/// HTTPCredentialsCheck(refusedStatuses: [401, 403])
/// ```
public struct HTTPCredentialsCheck: Sendable {
    /// The method of the check request.
    package let method: String
    /// The path of the check request under the base URL; `nil` for statuses alone.
    package let path: String?
    /// The statuses that mean the credentials were refused.
    package let refusedStatuses: Set<Int>

    /// A check of the credentials.
    ///
    /// ```swift
    /// HTTPCredentialsCheck(method: "POST", path: "api/collections/members/auth-refresh")
    /// ```
    ///
    /// - Parameters:
    ///   - method: The method of the check request.
    ///   - path: The path under the base URL of a request answered with a success only while the
    ///     credentials pass; `nil` to rely on `refusedStatuses` alone.
    ///   - refusedStatuses: The statuses that mean the credentials were refused; `401` is always one.
    public init(method: String = "GET", path: String? = nil, refusedStatuses: Set<Int> = [401]) {
        self.method = method
        self.path = path
        self.refusedStatuses = refusedStatuses.union([401])
    }
}
