import Foundation
import VariablySQLite

// MARK: - One sync of a table

extension SyncTable {
    /// Runs `step` over this table alone, once no other run holds it: the push, the removal of what the
    /// server no longer lists, the pull, with their progress events from `.started` on; the caller
    /// announces the end (`.finished`, or `.failed` with what was done before), once it has kept the
    /// report.
    ///
    /// - Returns: What the run did, and the error that stopped it, if one did: what was done before
    ///   stays done.
    func run(_ step: RunStep) async
        -> (report: SyncReport<Model.ID>, error: (any Error)?)
    {
        let clock = ContinuousClock()
        let start = clock.now
        let table = self
        do {
            return try await database.tableRegistry.withRun(of: [name]) {
                var error: (any Error)?
                do {
                    _ = try await table.beginRun()
                    try await table.runSteps(of: step)
                } catch let failure {
                    error = failure
                }
                var report = table.tally.value
                report.duration = start.duration(to: clock.now)
                report.isComplete = error == nil
                return (report, error)
            }
        } catch {
            // Only a failure to wait for the run: nothing was done.
            return (SyncReport(), error)
        }
    }

    /// The push, the listing and the pull of `step`, their reports in the tally.
    private func runSteps(of step: RunStep) async throws {
        if step.pushes {
            _ = try await push([.upsert, .delete], throughGroup: nil)
        }
        switch step {
        case .removeDeleted(let deletions):
            try await removeRecordsNotListed(allowing: deletions)
        case .pull, .pullFromStart:
            try await pull(fromStart: step.isResync, deletions: step.deletions) { _ in }
        }
    }
}
