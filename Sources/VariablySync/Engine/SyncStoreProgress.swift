/// An event of a ``SyncStore``'s sync, streamed by ``SyncStore/progressUpdates()``: one `.started` and
/// one `.finished` or `.failed` per sync, whatever the number of tables, with what each table pushed
/// and each batch applied between them. Each repository's own stream (``Repository/progressUpdates()``)
/// tells its table's part as well.
///
/// ```swift
/// Task {
///     for await event in store.progressUpdates() {
///         if case .applied(_, let records, let total) = event { print("\(records) records, \(total) in all") }
///     }
/// }
/// ```
public enum SyncStoreProgress: Sendable {
    /// A sync started, with this many local changes of the store's tables queued.
    case started(pendingChanges: Int)
    /// A table's push ended: changes the server accepted, and changes still waiting for a parent.
    case pushed(table: String, accepted: Int, waitingForParent: Int)
    /// A batch was applied: a page of one table's source (`table` names it), or a batch of the store's
    /// feed (`table` is `nil`); `totalRecords` counts the records of every batch of the sync so far.
    case applied(table: String?, records: Int, totalRecords: Int)
    /// The sync finished.
    case finished(SyncStoreReport)
    /// The sync failed; the report tells what each table did before it.
    case failed(String, partialReport: SyncStoreReport)
}
