import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Retries

extension SyncTable {
    /// Runs `operation` per `policy` (see ``RetryPolicy/retrying(random:retries:onRetry:_:)``),
    /// announcing each retry on the repository's progress stream.
    static func retrying<T: Sendable>(
        policy: RetryPolicy, random: inout SplitMix64, retries: inout Int,
        broadcaster: ProgressBroadcaster<SyncProgress<Model.ID>>, _ operation: @Sendable () async throws -> T
    ) async throws -> T {
        try await policy.retrying(
            random: &random, retries: &retries,
            onRetry: { attempt, delay, error in
                broadcaster.yield(.retrying(attempt: attempt, delay: delay, error: "\(error)"))
            }, operation)
    }
}

extension RetryPolicy {
    /// Runs `operation`, retrying transient failures with exponential backoff and seeded jitter, and
    /// never sooner than a ``RemoteSourceError/retryAfter`` the server asked for.
    ///
    /// - Parameter onRetry: Told of each retry before its wait: the attempt coming, the wait, the error.
    func retrying<T: Sendable>(
        random: inout SplitMix64, retries: inout Int, onRetry: (Int, Duration, any Error) -> Void,
        _ operation: @Sendable () async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                guard isTransient(error) else { throw error }
                guard attempt < maxAttempts else {
                    throw SyncError.retriesExhausted(attempts: attempt, lastError: error)
                }
                attempt += 1
                var wait = delay(beforeAttempt: attempt, random: Double.random(in: 0..<1, using: &random))
                // A server that said when to come back (`Retry-After`) is not asked sooner.
                if let asked = (error as? RemoteSourceError)?.retryAfter { wait = max(wait, asked) }
                retries += 1
                onRetry(attempt, wait, error)
                try await Task.sleep(for: wait)
            }
        }
    }
}
