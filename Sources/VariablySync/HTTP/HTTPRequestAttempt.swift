/// What an ``HTTPRemoteSource/RequestHook`` is called for.
public struct HTTPRequestAttempt: Sendable {
    /// Whether the request was just answered `401 Unauthorized`: refresh the credentials now; the
    /// request is sent once more.
    public let isRetryAfterUnauthorized: Bool

    /// An attempt, e.g. to call a hook in a test.
    ///
    /// ```swift
    /// try await remote.prepare?(&request, HTTPRequestAttempt(isRetryAfterUnauthorized: false))
    /// ```
    package init(isRetryAfterUnauthorized: Bool) {
        self.isRetryAfterUnauthorized = isRetryAfterUnauthorized
    }
}
