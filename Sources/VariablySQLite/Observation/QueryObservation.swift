import Foundation

/// One running observation: fetches on a reader when its tables change, one fetch at a time, and
/// yields the new value when it differs from the last one.
///
/// Fetches are coalesced: a commit during a fetch marks the observation dirty, and one more fetch
/// runs after the current one, whatever the number of commits meanwhile. The observer is registered
/// before the first fetch, so no commit falls between the first value and the notifications.
///
/// `@unchecked Sendable`: `state` is only touched while holding `lock`; the rest is immutable.
final class QueryObservation<Fingerprint: Equatable & Sendable, Value: Sendable>: @unchecked Sendable {
    /// Reads the current result; returns `nil` when its fingerprint equals `previous` (the result did
    /// not change), so that it is not decoded again.
    typealias Fetch = @Sendable (Database, _ previous: Fingerprint?) throws -> (Fingerprint, Value)?

    private struct State {
        var isFetching = false
        var isDirty = false
        var isFinished = false
        var previous: Fingerprint?
        var token: Int?
    }

    /// What a finished fetch leads to.
    private enum NextStep { case idle, fetchAgain, fail(any Error) }

    private let database: SQLiteDatabase
    private let fetch: Fetch
    private let continuation: AsyncThrowingStream<Value, any Error>.Continuation
    private let lock = NSLock()
    private var state = State()

    private init(database: SQLiteDatabase, fetch: @escaping Fetch, continuation: AsyncThrowingStream<Value, any Error>.Continuation) {
        self.database = database
        self.fetch = fetch
        self.continuation = continuation
    }

    /// Starts observing `tables`: the stream yields the current value at once, then each changed value.
    static func stream(database: SQLiteDatabase, tables: Set<String>, fetch: @escaping Fetch) -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let observation = QueryObservation(database: database, fetch: fetch, continuation: continuation)
        let token = database.changes.addObserver(tables: tables) { [weak observation] in observation?.tablesChanged() }
        observation.lock.withLock {
            observation.state.token = token
            observation.state.isFetching = true
        }
        continuation.onTermination = { _ in observation.finish() }
        observation.scheduleFetch()
        return stream
    }

    private func tablesChanged() {
        let start: Bool = lock.withLock {
            guard !state.isFinished else { return false }
            if state.isFetching {
                state.isDirty = true
                return false
            }
            state.isFetching = true
            return true
        }
        if start { scheduleFetch() }
    }

    private func scheduleFetch() {
        database.readerQueue.async { self.runFetch() }
    }

    private func runFetch() {
        let previous = lock.withLock { state.isFinished ? nil : state.previous }
        let outcome = Result { try database.read { db in try fetch(db, previous) } }
        let next: NextStep = lock.withLock {
            guard !state.isFinished else { return .idle }
            switch outcome {
            case .success(let fetched?):
                state.previous = fetched.0
                // Yielding under the lock keeps values in commit order; it never calls back into us.
                continuation.yield(fetched.1)
            case .success(nil):
                break
            case .failure(let error):
                return .fail(error)
            }
            if state.isDirty {
                state.isDirty = false
                return .fetchAgain
            }
            state.isFetching = false
            return .idle
        }
        switch next {
        case .idle: break
        case .fetchAgain: scheduleFetch()
        // Outside the lock: finishing runs `onTermination`, which takes the lock to stop observing.
        case .fail(let error): continuation.finish(throwing: error)
        }
    }

    /// Stops observing: the stream ended or its consumer went away.
    private func finish() {
        let token: Int? = lock.withLock {
            state.isFinished = true
            defer { state.token = nil }
            return state.token
        }
        if let token { database.changes.removeObserver(token) }
    }
}
