/// Failures a ``SimulatedServer`` injects, so that a sync can be tested against a server that
/// misbehaves the way real ones do. Every random choice comes from the server's seed.
///
/// ```swift
/// let faults = SimulatedFaults(latency: .milliseconds(2), transientErrorRate: 0.1, malformedRecordRate: 0.001)
/// let server = try SimulatedServer(records: users, seed: 7, faults: faults)
/// ```
public struct SimulatedFaults: Sendable, Equatable {
    /// Time every request takes before it is answered.
    public var latency: Duration
    /// The probability that a request fails with ``RemoteSourceError/transient(_:)``. For a push,
    /// half of these failures happen after the changes were applied (the response is "lost"), which
    /// is what idempotency keys are for.
    public var transientErrorRate: Double
    /// The probability that a record in a served page is malformed: every value except the id is
    /// replaced by an empty array, as a buggy serializer might.
    public var malformedRecordRate: Double
    /// The probability that a pull answers with the previous page again instead of the next one.
    public var duplicatePageRate: Double
    /// After this many successful pulls, the next pull fails once with
    /// ``RemoteSourceError/unavailable(_:)``: an interrupted sync.
    public var interruptAfterPulls: Int?
    /// Whether the server ignores idempotency keys, as most web frameworks do (Django REST Framework,
    /// Rails): a change pushed again after its answer was lost is applied again, and meets its own
    /// first write as a conflict; a change that supersedes an earlier one is not recognised either.
    public var ignoresIdempotencyKeys: Bool

    /// Describes the faults to inject.
    ///
    /// - Parameters:
    ///   - latency: Time each request takes.
    ///   - transientErrorRate: Probability of a transient failure per request, in `0...1`.
    ///   - malformedRecordRate: Probability of a malformed record per served record, in `0...1`.
    ///   - duplicatePageRate: Probability of a pull answering the previous page again, in `0...1`.
    ///   - interruptAfterPulls: Fail the pull after this many successful ones, once.
    ///   - ignoresIdempotencyKeys: Apply a change pushed again as a new one.
    public init(
        latency: Duration = .zero, transientErrorRate: Double = 0, malformedRecordRate: Double = 0,
        duplicatePageRate: Double = 0, interruptAfterPulls: Int? = nil, ignoresIdempotencyKeys: Bool = false
    ) {
        self.ignoresIdempotencyKeys = ignoresIdempotencyKeys
        self.latency = latency
        self.transientErrorRate = transientErrorRate
        self.malformedRecordRate = malformedRecordRate
        self.duplicatePageRate = duplicatePageRate
        self.interruptAfterPulls = interruptAfterPulls
    }
}
