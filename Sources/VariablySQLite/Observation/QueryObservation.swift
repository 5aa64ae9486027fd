import Foundation

/// One running observation: fetches on a reader when its tables change, one fetch at a time, and
/// yields the new value when it differs from the last one.
///
/// Fetches are coalesced: a commit during a fetch marks the observation dirty, and one more fetch
/// runs after the current one, whatever the number of commits meanwhile. Fetches are paced: one
/// starts no sooner than `Configuration.minimumObservationInterval`, nor eight times the previous
/// fetch's duration (at most a quarter of a second), after the previous one started, and commits
/// while it waits are answered by it. The observer is registered before the first
/// fetch, so no commit falls between the first value and the notifications.
///
/// `@unchecked Sendable`: `state` is only touched while holding `lock`; the rest is immutable.
final class QueryObservation<Fingerprint: Equatable & Sendable, Value: Sendable>: @unchecked Sendable {
    /// Reads the current result; returns `nil` when its fingerprint equals `previous` (the result did
    /// not change), so that it is not decoded again.
    typealias Fetch = @Sendable (Database, _ previous: Fingerprint?) throws -> (Fingerprint, Value)?

    private struct State {
        /// A fetch is running or scheduled: a commit now needs no fetch of its own.
        var isFetching = false
        /// A commit came while a fetch was running: another one follows.
        var isDirty = false
        /// Whether the scheduled fetch has started; commits before that are answered by it.
        var hasStarted = false
        /// When the last fetch started (`DispatchTime` uptime, nanoseconds).
        var lastStart: UInt64 = 0
        /// How long the last fetch took, in nanoseconds.
        var lastDuration: UInt64 = 0
        var isFinished = false
        var previous: Fingerprint?
        var token: Int?
    }

    /// What a finished fetch leads to.
    private enum NextStep { case idle, fetchAgain, fail(any Error) }

    /// The longest wait a slow fetch imposes on the next one, in nanoseconds.
    private static var maximumSpacing: UInt64 { 250_000_000 }

    private let database: SQLiteDatabase
    private let fetch: Fetch
    private let continuation: AsyncThrowingStream<Value, any Error>.Continuation
    private let lock = NSLock()
    private var state = State()

    private init(
        database: SQLiteDatabase, fetch: @escaping Fetch,
        continuation: AsyncThrowingStream<Value, any Error>.Continuation
    ) {
        self.database = database
        self.fetch = fetch
        self.continuation = continuation
    }

    /// Starts observing `tables`: the stream yields the current value at once, then each changed value.
    static func stream(database: SQLiteDatabase, tables: Set<String>, fetch: @escaping Fetch) -> AsyncThrowingStream<
        Value, any Error
    > {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Value.self, bufferingPolicy: .bufferingNewest(1))
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
                if state.hasStarted { state.isDirty = true }
                return false
            }
            state.isFetching = true
            return true
        }
        if start { scheduleFetch() }
    }

    /// Runs the next fetch on a reader, at once or when the minimum interval since the last one has passed.
    private func scheduleFetch() {
        let interval = UInt64(database.configuration.minimumObservationInterval / .nanoseconds(1))
        let earliest: UInt64 = lock.withLock {
            state.hasStarted = false
            // A slow query (a scan of a large table) is also spaced by eight times its own duration, so
            // that one observation keeps at most an eighth of a reader busy during a stream of commits
            // (a sync's writer needs the other cores: at a quarter, three observed counts over a large
            // table slowed a sync by 17% on two cores); at most a quarter of a second, so that a fetch
            // slowed by something else delays little. The last commit's value still comes, at most
            // that spacing later.
            let spacing = max(interval, min(8 &* state.lastDuration, Self.maximumSpacing))
            return state.lastStart == 0 ? 0 : state.lastStart &+ spacing
        }
        let now = DispatchTime.now().uptimeNanoseconds
        if earliest <= now {
            database.readerQueue.async { self.runFetch() }
        } else {
            database.readerQueue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: earliest)) { self.runFetch() }
        }
    }

    private func runFetch() {
        let previous: Fingerprint? = lock.withLock {
            state.hasStarted = true
            state.lastStart = DispatchTime.now().uptimeNanoseconds
            return state.isFinished ? nil : state.previous
        }
        let outcome = Result { try database.read { db in try fetch(db, previous) } }
        let next: NextStep = lock.withLock {
            state.lastDuration = DispatchTime.now().uptimeNanoseconds &- state.lastStart
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
