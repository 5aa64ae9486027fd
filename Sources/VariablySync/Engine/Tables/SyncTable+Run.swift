import Foundation
import VariablySQLite

// MARK: - One sync of a table

extension SyncTable {
    /// Runs `phase` of a sync: the push, the removal of what the server no longer lists, the pull, with
    /// their progress events from `.started` on; the caller announces the end (`.finished`, or `.failed`
    /// with what was done before), once it has kept the report.
    ///
    /// - Parameters:
    ///   - fromStart: Whether the pull starts from the beginning (a resync).
    ///   - deletions: How much of the cache a resync or a listing may remove.
    ///   - report: Filled with what the run did, also when it fails: what was done stays done.
    func run(
        _ phase: SyncPhase, fromStart: Bool, deletions: ResyncDeletions, into report: inout SyncReport<Model.ID>
    ) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let state = self.state
            let feed = remote.feedIdentifier
            let (pendingCount, lastFeed) = try await database.read { try (state.pendingCount($0), state.feed($0)) }
            broadcaster.yield(.started(pendingChanges: pendingCount))
            if !phase.pushes.isEmpty {
                try await TablePush(table: self).pushPendingChanges(
                    into: &report, operations: phase.pushes, throughGroup: phase.throughGroup)
            }
            if case .removeDeleted = phase {
                try await removeRecordsNotListed(into: &report, allowing: deletions)
            }
            if phase.pulls {
                // A cursor of another feed means nothing to this one: start over, as a resync does.
                let feedChanged = lastFeed != nil && lastFeed != feed
                if feedChanged && !fromStart { report.resyncReason = .feedChanged }
                do {
                    try await pullChanges(
                        into: &report, fromStart: fromStart || feedChanged, deletions: deletions)
                } catch RemoteSourceError.invalidCursor
                    where !(fromStart || feedChanged) && configuration.resyncsOnUnknownCursor
                {
                    report.resyncReason = .unknownCursor
                    try await pullChanges(into: &report, fromStart: true, deletions: deletions)
                }
                if lastFeed != feed { try await database.write { try state.setFeed(feed, $0) } }
            }
        } catch {
            // What happened before the failure (pages applied, conflicts settled) stays true: keep it.
            report.duration = start.duration(to: clock.now)
            throw error
        }
        report.duration = start.duration(to: clock.now)
        report.isComplete = true
    }
}
