/// What an ``HTTPRemoteSource/RequestHook`` is called for.
public struct HTTPRequestAttempt: Sendable {
    /// Whether the request was just answered `401 Unauthorized`: refresh the credentials now; the
    /// request is sent once more.
    public let isRetryAfterUnauthorized: Bool
}
