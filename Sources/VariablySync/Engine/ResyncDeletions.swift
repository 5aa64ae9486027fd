/// How much of a table's cache a ``Repository/resync(allowingDeletionOf:)`` may remove as records the
/// server no longer has. A server that answers an empty list where the credentials stopped passing a
/// rule (PocketBase answers `200` with no items) would otherwise empty the cache with a "complete".
///
/// ```swift
/// try await repository.resync()                                   // stops before emptying the table
/// try await repository.resync(allowingDeletionOf: .atMost(0.1))    // stops above a tenth of the rows
/// try await repository.resync(allowingDeletionOf: .everyRow)       // the app knows the server is empty
/// ```
public enum ResyncDeletions: Sendable, Equatable {
    /// Any number of rows short of every one (the default): a resync that would remove every row of a
    /// non-empty table stops with ``SyncError/resyncWouldDelete(table:rows:of:)`` instead.
    case allButEveryRow
    /// Every row, the server's empty answer included.
    case everyRow
    /// At most this share of the cached rows (`0.1`: a tenth); more stops the resync.
    case atMost(Double)

    /// Whether removing `stale` of `cached` rows is allowed.
    func allows(_ stale: Int, of cached: Int) -> Bool {
        guard stale > 0 else { return true }
        switch self {
        case .allButEveryRow: return stale < cached
        case .everyRow: return true
        case .atMost(let share): return Double(stale) <= share * Double(cached)
        }
    }
}
