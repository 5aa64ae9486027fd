import VariablyCodable

/// How a ``Repository`` retries a request that failed with a transient error: exponential backoff with
/// jitter, bounded in attempts and delay. Jitter is random per repository, so that clients that failed
/// together do not retry in lock step; set ``seed`` to make every delay reproducible (tests, demos).
/// A server that said when to come back (``RemoteSourceError/retryAfter``, from `Retry-After`) is
/// never retried sooner, whatever the computed delay.
///
/// ```swift
/// // Waits about 0.2 s, 0.4 s, 0.8 s, 1.6 s and 3.2 s (each ± the jitter) between six attempts.
/// let retry = RetryPolicy(maxAttempts: 6, initialDelay: .milliseconds(200), maxDelay: .seconds(10))
/// ```
public struct RetryPolicy: Sendable {
    /// The most attempts of one request, the first included; `1` disables retries.
    public var maxAttempts: Int
    /// The delay before the second attempt.
    public var initialDelay: Duration
    /// The factor each further delay grows by.
    public var multiplier: Double
    /// The longest delay between two attempts.
    public var maxDelay: Duration
    /// The fraction of the delay that is random: `0.5` spreads a 1 s delay over 0.5 s ... 1.5 s.
    public var jitter: Double
    /// Seeds the jitter, so that retries are reproducible; `nil` (the default) draws a new seed from the
    /// system's generator for every repository.
    public var seed: UInt64?
    /// Decides which errors are worth retrying; by default transient ``RemoteSourceError``s.
    public var isTransient: @Sendable (any Error) -> Bool

    /// A single attempt: failures are thrown at once.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// Describes a retry policy.
    ///
    /// - Parameters:
    ///   - maxAttempts: The most attempts of one request (at least 1; fewer makes the repository or store
    ///     given the policy throw a `DeclarationError` when it opens).
    ///   - initialDelay: The delay before the second attempt.
    ///   - multiplier: The growth factor of the delay.
    ///   - maxDelay: The cap of any delay.
    ///   - jitter: The random fraction of each delay, in `0...1`.
    ///   - seed: Seeds the jitter for reproducible delays; `nil` for random jitter per repository.
    ///   - isTransient: Which errors to retry.
    public init(
        maxAttempts: Int = 5, initialDelay: Duration = .milliseconds(100), multiplier: Double = 2,
        maxDelay: Duration = .seconds(5), jitter: Double = 0.5, seed: UInt64? = nil,
        isTransient: @escaping @Sendable (any Error) -> Bool = RetryPolicy.isTransientRemoteError
    ) {
        self.maxAttempts = maxAttempts
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = min(max(jitter, 0), 1)
        self.seed = seed
        self.isTransient = isTransient
    }

    /// Throws when ``maxAttempts`` is below 1; `model` and `setting` say whose policy it is.
    func checkDeclaration(of model: String, in setting: String) throws(DeclarationError) {
        guard maxAttempts < 1 else { return }
        throw DeclarationError(
            .invalidSetting("\(setting).maxAttempts", requirement: "at least 1"), modelType: model,
            fix: "set maxAttempts to 1 or more (1 disables retries; it is \(maxAttempts))")
    }

    /// Whether `error` is a ``RemoteSourceError`` that ``RemoteSourceError/isTransient``.
    public static func isTransientRemoteError(_ error: any Error) -> Bool {
        (error as? RemoteSourceError)?.isTransient ?? false
    }

    /// The delay before attempt `attempt` (2 for the first retry), for a random draw in `0..<1`.
    ///
    /// ```swift
    /// RetryPolicy().delay(beforeAttempt: 2, random: 0.5)   // 100 ms
    /// ```
    package func delay(beforeAttempt attempt: Int, random: Double) -> Duration {
        let base = initialDelay * pow(multiplier, Double(max(attempt - 2, 0)))
        let capped = min(base, maxDelay)
        let factor = 1 + jitter * (random * 2 - 1)
        return capped * factor
    }

    private func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(exponent) { result *= base }
        return result
    }
}
