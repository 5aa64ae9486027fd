import Foundation

// MARK: - Async access

extension SQLiteDatabase {
    /// Runs `body` in a read transaction on a reader of the database's own, without blocking the
    /// calling task's thread: the cooperative pool stays free while SQLite works.
    ///
    /// ```swift
    /// let adults = try await database.read { db in
    ///     try db.fetch(User.self, where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 10)
    /// }
    /// ```
    ///
    /// Cancelling the task interrupts the statement running (`sqlite3_interrupt`) and those that
    /// would follow; the read then throws `CancellationError`.
    ///
    /// - Throws: What `body` throws, ``SQLiteError``, or `CancellationError`.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await run(on: readerQueue) { job in try self.read(job: job, body) }
    }

    /// Runs `body` in a transaction on the writer, on a thread of the database's own: commits when it
    /// returns, rolls back when it throws. Writes run one at a time, the synchronous ones included.
    ///
    /// ```swift
    /// try await database.write { db in try db.upsert(users) }
    /// ```
    ///
    /// Cancelling the task interrupts the write (`sqlite3_interrupt`): its transaction rolls back,
    /// the database stays as it was before it, and the write throws `CancellationError`.
    ///
    /// - Parameters:
    ///   - kind: The transaction kind; `.immediate` when `nil` (the default).
    ///   - body: The work; its `Database` must not escape it.
    /// - Throws: What `body` throws, ``SQLiteError``, or `CancellationError`.
    @discardableResult
    public func write<T: Sendable>(
        _ kind: TransactionKind? = nil, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await run(on: writerQueue) { job in try self.write(kind, job: job, body) }
    }

    /// Runs `work` on `queue` as a job that the calling task's cancellation interrupts.
    private func run<T: Sendable>(
        on queue: DispatchQueue, _ work: @escaping @Sendable (DatabaseJob) throws -> T
    ) async throws -> T {
        let job = DatabaseJob()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                queue.async {
                    continuation.resume(with: Result { try work(job) })
                }
            }
        } onCancel: {
            job.cancel()
        }
    }
}
