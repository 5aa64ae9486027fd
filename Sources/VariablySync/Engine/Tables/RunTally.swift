import Foundation

/// What the current run of one table did so far: its pushes, and every batch the engine applied to it,
/// from its own pulls, a store's feed, or another table's pull that brought its parked records'
/// parents. A table runs once at a time (see `TableRegistry`), so the tally is the run's report.
///
/// `@unchecked Sendable`: `report` is only touched while `lock` is held.
final class RunTally<ID: Hashable & Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var report = SyncReport<ID>()

    /// The report so far.
    var value: SyncReport<ID> { lock.withLock { report } }

    /// Starts a run: the last one's report is forgotten.
    func reset() {
        lock.withLock { report = SyncReport<ID>() }
    }

    /// Adds what a push or a batch did; `replacingWaiting` for a push of saves, whose changes still
    /// waiting for a parent are the run's now.
    func add(_ later: SyncReport<ID>, replacingWaiting: Bool = false) {
        lock.withLock { report.add(later, replacingWaiting: replacingWaiting) }
    }

    /// Changes the report in place.
    func update(_ change: (inout SyncReport<ID>) -> Void) {
        lock.withLock { change(&report) }
    }
}
