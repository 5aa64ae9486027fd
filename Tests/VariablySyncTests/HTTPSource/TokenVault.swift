import Foundation
import UserSyncModels
import VariablySync

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An access token that a request hook adds to every request, and refreshes (to `refreshed`) when the
/// server has just answered 401, as an OAuth client would.
final class TokenVault: @unchecked Sendable {
    // `@unchecked Sendable`: `token` and `count` are only touched while `lock` is held.
    private let lock = NSLock()
    private var token: String
    private let refreshed: String
    private var count = 0

    init(token: String, refreshed: String) {
        self.token = token
        self.refreshed = refreshed
    }

    /// How many times the hook refreshed the token.
    var refreshes: Int { lock.withLock { count } }

    /// The hook for `HTTPRemoteSource(prepare:)`.
    var hook: HTTPRemoteSource<User>.RequestHook {
        { request, attempt in
            // Refreshed once for all the requests that met the same expired token.
            let token = self.current(
                refreshing: attempt.isRetryAfterUnauthorized, rejected: attempt.rejectedAuthorization)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
    }

    private func current(refreshing: Bool, rejected: String?) -> String {
        lock.withLock {
            if refreshing, rejected == "Bearer \(token)" {
                count += 1
                token = refreshed
            }
            return token
        }
    }
}
