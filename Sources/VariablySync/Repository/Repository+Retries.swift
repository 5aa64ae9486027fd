import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Retries

extension Repository {
    /// Counts the retries of fetch tasks running off the actor.
    ///
    /// `@unchecked Sendable`: `count` is only touched while holding `lock`.
    final class RetryCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0

        var value: Int { lock.withLock { count } }

        func add(_ retries: Int) {
            lock.withLock { count += retries }
        }
    }

    /// Runs `operation`, retrying transient failures with exponential backoff and seeded jitter, and
    /// never sooner than a ``RemoteSourceError/retryAfter`` the server asked for.
    static func retrying<T: Sendable>(
        policy: RetryPolicy, random: inout SplitMix64, retries: inout Int,
        broadcaster: ProgressBroadcaster<Model.ID>, _ operation: @Sendable () async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                guard policy.isTransient(error) else { throw error }
                guard attempt < policy.maxAttempts else {
                    throw SyncError.retriesExhausted(attempts: attempt, lastError: error)
                }
                attempt += 1
                var delay = policy.delay(beforeAttempt: attempt, random: Double.random(in: 0..<1, using: &random))
                // A server that said when to come back (`Retry-After`) is not asked sooner.
                if let asked = (error as? RemoteSourceError)?.retryAfter { delay = max(delay, asked) }
                retries += 1
                broadcaster.yield(.retrying(attempt: attempt, delay: delay, error: "\(error)"))
                try await Task.sleep(for: delay)
            }
        }
    }
}
