import Foundation

/// Set when the task that sent a request is cancelled; the exchange checks it between waits.
///
/// `@unchecked Sendable`: `isCancelled` is only touched while holding `lock`.
final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    var isCancelled: Bool { lock.withLock { cancelled } }

    func cancel() {
        lock.withLock { cancelled = true }
    }
}
