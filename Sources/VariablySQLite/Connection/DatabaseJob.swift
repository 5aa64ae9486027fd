internal import CSQLite
import Foundation
import Synchronization

/// One async read or write, as its task sees it: cancelling the task cancels the job, which stops
/// the SQL it runs.
///
/// While the job runs on a connection, cancelling it calls `sqlite3_interrupt` on that connection
/// (https://www.sqlite.org/c3ref/interrupt.html), which stops the running statement with
/// `SQLITE_INTERRUPT`; a progress handler and a check before each statement stop the statements that
/// start afterwards (an interrupt only reaches statements already running). The job's closure then
/// throws, its transaction rolls back, and the caller gets `CancellationError`.
///
/// `@unchecked Sendable`: `connection` is only touched while holding `lock`, so an interrupt can
/// never reach a connection after the job has handed it back; `cancelled` is atomic.
final class DatabaseJob: @unchecked Sendable {
    private let lock = NSLock()
    private var connection: OpaquePointer?
    private let cancelled = Atomic<Bool>(false)

    /// Whether the job was cancelled.
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Stops the job: at once if it runs, before it starts otherwise.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        lock.withLock {
            if let connection { sqlite3_interrupt(connection) }
        }
    }

    /// Runs `body` on `database` as this job.
    ///
    /// - Throws: `CancellationError` if the job was cancelled before or while it ran (the error
    ///   `body` threw then, typically `SQLITE_INTERRUPT`, is the consequence); otherwise what `body`
    ///   throws.
    func run<T>(on database: Database, _ body: () throws -> T) throws -> T {
        lock.withLock { connection = database.handle }
        database.currentJob = self
        // https://www.sqlite.org/c3ref/progress_handler.html: a non-zero answer interrupts the statement.
        sqlite3_progress_handler(
            database.handle, 1_000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<DatabaseJob>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
            }, Unmanaged.passUnretained(self).toOpaque())
        defer {
            sqlite3_progress_handler(database.handle, 0, nil, nil)
            database.currentJob = nil
            lock.withLock { connection = nil }
        }
        do {
            if isCancelled { throw CancellationError() }
            return try body()
        } catch {
            if isCancelled { throw CancellationError() }
            throw error
        }
    }
}

extension Database {
    /// Throws `CancellationError` when the async job running on this connection was cancelled: checked
    /// before each statement, which `sqlite3_interrupt` would not reach.
    func checkCancellation() throws {
        if let currentJob, currentJob.isCancelled { throw CancellationError() }
    }
}
