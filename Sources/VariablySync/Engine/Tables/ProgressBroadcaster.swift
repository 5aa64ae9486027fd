import Foundation

/// Fans progress events out to every stream handed out by ``Repository/progressUpdates()`` or
/// ``SyncStore/progressUpdates()``.
///
/// `@unchecked Sendable`: `continuations` is only touched while holding `lock`.
final class ProgressBroadcaster<Event: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [UUID: AsyncStream<Event>.Continuation] = [:]

    func makeStream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Event.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        lock.withLock { continuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.lock.withLock { _ = self?.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ event: Event) {
        let targets = lock.withLock { Array(continuations.values) }
        for continuation in targets { continuation.yield(event) }
    }

    deinit {
        for continuation in continuations.values { continuation.finish() }
    }
}
