/// What an ``HTTPRemoteSource/RequestHook`` is called for.
///
/// ```swift
/// let remote = HTTPRemoteSource<User>(baseURL: base, api: api) { request, attempt in
///     // Several requests may meet the same expired token at once: refresh it once.
///     if attempt.isRetryAfterUnauthorized { await auth.refresh(ifStill: attempt.rejectedAuthorization) }
///     request.setValue("Bearer \(await auth.token)", forHTTPHeaderField: "Authorization")
/// }
/// ```
public struct HTTPRequestAttempt: Sendable {
    /// Whether the request was just answered `401 Unauthorized`: refresh the credentials now; the
    /// request is sent once more.
    public let isRetryAfterUnauthorized: Bool
    /// The `Authorization` header that was answered `401`, on a retry. Pushes run several requests at
    /// once, so several may meet the same expired token: refresh only while this is still the current
    /// credential, and the others reuse the new one.
    public let rejectedAuthorization: String?

    /// An attempt, e.g. to call a hook in a test.
    ///
    /// ```swift
    /// try await remote.prepare?(&request, HTTPRequestAttempt(isRetryAfterUnauthorized: false))
    /// ```
    package init(isRetryAfterUnauthorized: Bool, rejectedAuthorization: String? = nil) {
        self.isRetryAfterUnauthorized = isRetryAfterUnauthorized
        self.rejectedAuthorization = rejectedAuthorization
    }
}
