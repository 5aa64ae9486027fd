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
    /// A page held records that do not decode and the policy is ``MalformedRecordPolicy/failPage``:
    /// the ``SkippedRecord``s, with the model's id type (`record as? SkippedRecord<User.ID>`).
    case malformedRecords([any Error])
    /// The server answered "more to come" with a cursor it had already given: pulling on would loop
    /// forever. Nothing of the repeated page was applied twice; the cache stays at `cursor`.
    case cursorDidNotAdvance(SyncCursor)
    /// The server's answer breaks the sync contract, e.g. a push answered with results for other
    /// changes than those sent. Nothing of it was applied.
    case invalidResponse(String)
    /// A row of the cache still references a record that is not there after the pull parked every
    /// orphan it knows of: a table no repository of the database declares. Nothing of the batch was
    /// applied; `table`, `recordID` (the row's primary key) and `reference` (the parent table) say which.
    case foreignKeyViolation(table: String, recordID: String, reference: String)
    /// A resync would have removed `rows` of the `cached` rows of `table` (the server did not send
    /// them) beyond what ``ResyncDeletions`` allows: nothing was removed. An empty answer is often a
    /// refusal in disguise (credentials that no longer pass a rule); check the server, then resync with
    /// ``Repository/resync(allowingDeletionOf:)`` if it really holds that little.
    case resyncWouldDelete(table: String, rows: Int, of: Int)

    /// What failed, e.g. `the request failed 5 times; last error: ...`.
    public var description: String {
        switch self {
        case .retriesExhausted(let attempts, let error):
            return "the request failed \(attempts) times; last error: \(error)"
        case .malformedRecords(let records):
            return "a page held \(records.count) malformed record(s); first: \(records.first.map { "\($0)" } ?? "-")"
        case .cursorDidNotAdvance(let cursor):
            return "the server answered \"more to come\" with the cursor \(cursor) again; stopped instead of looping"
        case .invalidResponse(let reason):
            return "the server's answer breaks the sync contract: \(reason)"
        case .foreignKeyViolation("?", _, _):
            return "a pulled batch leaves a reference broken that SQLite's foreign key check does not name; nothing "
                + "of the batch was applied"
        case .foreignKeyViolation(let table, let recordID, let reference):
            return "\(table) record \(recordID) references a \(reference) record that is not in the cache, and no "
                + "repository on this database pulls \(table): open one for it, or declare the reference"
        case .resyncWouldDelete(let table, let rows, let cached):
            return
                "a resync would remove \(rows) of the \(cached) cached \(table) rows, which the server did not send; "
                + "nothing was removed. Check that the server answers with every record (an empty list can be a "
                + "refusal of the credentials), then resync(allowingDeletionOf:) if it really holds that few"
        }
    }
}
