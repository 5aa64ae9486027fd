import Foundation

/// A step of a running sync, delivered through ``Repository/progressUpdates()``.
///
/// ```swift
/// Task {
///     for await event in repository.progressUpdates() {
///         if case .pageApplied(let page, _, _, let total) = event { print("page \(page): \(total) records") }
///     }
/// }
/// try await repository.sync()
/// ```
public enum SyncProgress<ID: Hashable & Sendable>: Sendable {
    /// A sync began with this many local changes waiting.
    case started(pendingChanges: Int)
    /// A push came back.
    case pushed(accepted: Int, conflicts: Int, rejected: Int)
    /// A page was committed to the cache with its cursor; `totalRecords` counts the sync's records so far.
    case pageApplied(page: Int, records: Int, deletions: Int, totalRecords: Int)
    /// A request failed transiently and is retried after `delay`.
    case retrying(attempt: Int, delay: Duration, error: String)
    /// The sync completed.
    case finished(SyncReport<ID>)
    /// The sync stopped with an error; `partialReport` says what it did before, which stays done
    /// (pages applied, changes pushed, conflicts settled).
    case failed(String, partialReport: SyncReport<ID>)
}
