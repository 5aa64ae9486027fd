/// A sync that could not complete. Pages applied before the failure stay applied, with their cursor:
/// the next ``Repository/sync()`` resumes after them.
///
/// ```swift
/// do {
///     try await repository.sync()
/// } catch SyncError.retriesExhausted(let attempts, let error) {
///     print("gave up after \(attempts) attempts: \(error)")
/// }
/// ```
public enum SyncError: Error, CustomStringConvertible {
    /// A request kept failing with transient errors until ``RetryPolicy/maxAttempts``.
    case retriesExhausted(attempts: Int, lastError: any Error)
    /// A page held records that do not decode and the policy is ``MalformedRecordPolicy/failPage``.
    case malformedRecords([SkippedRecord])

    /// What failed, e.g. `the request failed 5 times; last error: ...`.
    public var description: String {
        switch self {
        case .retriesExhausted(let attempts, let error):
            return "the request failed \(attempts) times; last error: \(error)"
        case .malformedRecords(let records):
            return "a page held \(records.count) malformed record(s); first: \(records.first.map { "\($0)" } ?? "-")"
        }
    }
}
