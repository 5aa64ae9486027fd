import Foundation
import Synchronization
import VariablySync

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ManyDevices {
    /// A device's token, and the one its auth server would issue now: refreshed on a `401`, once
    /// however many requests meet the expired one.
    final class Credentials: Sendable {
        private let tokens: Mutex<(inUse: String, issued: String, refreshes: Int)>

        init(token: String) { tokens = Mutex((token, token, 0)) }

        var authorization: String { "Token \(tokens.withLock { $0.inUse })" }
        var refreshes: Int { tokens.withLock { $0.refreshes } }

        /// The server's token changed (it expired and a new one was issued).
        func issue(_ token: String) { tokens.withLock { $0.issued = token } }

        func refresh(ifStill rejected: String?) {
            tokens.withLock { tokens in
                guard rejected == nil || rejected == "Token \(tokens.inUse)" else { return }
                tokens.inUse = tokens.issued
                tokens.refreshes += 1
            }
        }

        /// The hook of a device's sources: the token in use as `Authorization`, refreshed first on a
        /// retry after a `401` that named it.
        var requestHook: @Sendable (_ request: inout URLRequest, _ attempt: HTTPRequestAttempt) async throws -> Void {
            { [self] request, attempt in
                if attempt.isRetryAfterUnauthorized { refresh(ifStill: attempt.rejectedAuthorization) }
                request.setValue(authorization, forHTTPHeaderField: "Authorization")
            }
        }
    }
}
