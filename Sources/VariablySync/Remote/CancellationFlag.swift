import Foundation

/// Set when the task that sent a request is cancelled; the exchange checks it between waits (tests use
/// it to see that a transport was told to stop).
///
/// `@unchecked Sendable`: `isCancelled` is only touched while holding `lock`.
package final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    package init() {}

    package var isCancelled: Bool { lock.withLock { cancelled } }

    package func cancel() {
        lock.withLock { cancelled = true }
    }
}
