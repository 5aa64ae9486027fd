import Foundation

/// The one sync a face runs at a time: a call that comes while it runs joins it or waits for it.
struct RunningSync<Report: Sendable>: Sendable {
    let task: Task<Report, any Error>
    /// Whether it pulls from the start (a resync), which a later resync joins rather than repeats.
    let isResync: Bool

    init(_ task: Task<Report, any Error>, isResync: Bool) {
        self.task = task
        self.isResync = isResync
    }

    /// Waits for the sync's report; cancelling the caller cancels the sync (and so every caller that
    /// joined it).
    func join() async throws -> Report {
        let task = self.task
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
