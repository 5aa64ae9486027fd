internal import CSQLite
import Foundation

/// The database whose writer the current thread holds, to catch re-entrant calls.
private let writerOwnerKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

/// A SQLite database shared across tasks and threads: one writer connection that serializes writes,
/// and, for a file in WAL mode, a pool of reader connections that read concurrently with the writer.
///
/// ```swift
/// let db = try SQLiteDatabase(path: "/path/app.sqlite")
/// try db.write { db in
///     try db.migrate(User.self)
///     try db.upsert(users)
/// }
/// let adults = try db.read { db in
///     try db.fetch(User.self, where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 10)
/// }
/// ```
///
/// `@unchecked Sendable`: the connections it holds are not `Sendable`; each is only reachable inside a
/// `read` or `write` closure, while `writerLock` (the writer) or a checkout from the pool (a reader)
/// grants exclusive use of it to the calling thread. The pool's mutable state, `idleReaders` and
/// `openReaderCount`, is only touched while `readers` is locked. Everything else is immutable.
/// (`checkpointer` is `Sendable` itself.)
public final class SQLiteDatabase: @unchecked Sendable {
    /// The file path, or `nil` for an in-memory database.
    public let path: String?
    /// The configuration the connections were opened with.
    public let configuration: Configuration
    private let writer: Database
    /// Whether reads use reader connections: only in WAL mode do they not block the writer.
    private let usesReaderPool: Bool
    private let writerLock = NSLock()
    /// Runs the writer's checkpoints in the background, for a file in WAL mode with
    /// ``CheckpointPolicy/inBackground(afterPages:)``.
    private let checkpointer: WALCheckpointer?
    private let readers = NSCondition()
    private var idleReaders: [Database] = []
    private var openReaderCount = 0
    /// Runs async writes, one at a time, on threads of the database's own, never on the cooperative pool.
    let writerQueue = DispatchQueue(label: "VariablySQLite.writer", qos: .userInitiated)
    /// Runs async reads, several at a time, on threads of the database's own.
    let readerQueue = DispatchQueue(label: "VariablySQLite.readers", qos: .userInitiated, attributes: .concurrent)
    /// The tables each committed write changed, published to observers.
    let changes = ChangeTracker()
    /// What the package's other modules keep for this database.
    package let attachments = DatabaseAttachments()

    /// Opens (or creates) the database file at `path`.
    ///
    /// - Parameters:
    ///   - path: The file; created if missing.
    ///   - configuration: Journal mode, busy timeout, foreign keys, tracing.
    /// - Throws: ``SQLiteError`` if the file cannot be opened or set up.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        self.configuration = configuration
        writer = try Database(
            location: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, configuration: configuration,
            isReadOnly: false)
        // https://www.sqlite.org/pragma.html#pragma_journal_mode: the mode persists in the file, and the
        // pragma answers the mode in effect, which is not WAL where WAL is unavailable.
        let mode = try writer.fetchValue(sql: "PRAGMA journal_mode = \(configuration.journalMode.rawValue)")
        usesReaderPool = mode == .text("wal")
        if usesReaderPool {
            // https://www.sqlite.org/pragma.html#pragma_synchronous: NORMAL is durable enough in WAL mode.
            try writer.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        if usesReaderPool, case .inBackground(let pages) = configuration.checkpoints {
            checkpointer = WALCheckpointer(path: path, configuration: configuration, threshold: pages)
        } else {
            checkpointer = nil
        }
        writer.checkpoint(following: configuration.checkpoints, by: checkpointer)
        writer.trackChanges(into: changes)
    }

    deinit {
        // The checkpointer's connection closes first: the writer, closing last, checkpoints what is
        // left and removes the WAL file, as SQLite's last connection does.
        writer.stopCheckpointing()
        checkpointer?.close()
    }

    /// Opens an existing database file for reading only, one that no process changes while it is open:
    /// a file on read-only media, in an app bundle, or a snapshot. It opens where a read-write open
    /// cannot, a WAL file without its `-wal` and `-shm` companions on a read-only file system included
    /// (`immutable=1`, https://www.sqlite.org/uri.html#uriimmutable). Reads run on one connection;
    /// `write` throws ``SQLiteError`` (`SQLITE_READONLY`). SQLite does not notice changes made to the
    /// file while it is open this way, so do not use it on a file that another connection writes.
    ///
    /// ```swift
    /// let catalog = try SQLiteDatabase.readOnly(path: bundledCatalogPath)
    /// let count = try catalog.read { try $0.count(User.self) }
    /// ```
    ///
    /// - Throws: ``SQLiteError`` if the file is missing or is not a database.
    public static func readOnly(path: String, configuration: Configuration = Configuration()) throws -> SQLiteDatabase {
        try SQLiteDatabase(readOnlyPath: path, configuration: configuration)
    }

    private init(readOnlyPath path: String, configuration: Configuration) throws {
        self.path = path
        self.configuration = configuration
        self.usesReaderPool = false
        self.checkpointer = nil
        var components = URLComponents()
        components.scheme = "file"
        components.path = path
        components.queryItems = [URLQueryItem(name: "immutable", value: "1")]
        let uri = components.string ?? "file:\(path)?immutable=1"
        writer = try Database(
            location: uri, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, configuration: configuration, isReadOnly: true
        )
        // Opening is lazy: read the schema now so that a missing or damaged file fails here.
        _ = try writer.fetchValue(sql: "SELECT count(*) FROM sqlite_schema")
    }

    /// Opens a private in-memory database; reads and writes share its single connection.
    ///
    /// ```swift
    /// let db = try SQLiteDatabase.inMemory()
    /// ```
    ///
    /// - Throws: ``SQLiteError``.
    public static func inMemory(configuration: Configuration = Configuration()) throws -> SQLiteDatabase {
        try SQLiteDatabase(inMemory: configuration)
    }

    private init(inMemory configuration: Configuration) throws {
        self.path = nil
        self.configuration = configuration
        self.usesReaderPool = false
        self.checkpointer = nil
        writer = try Database(
            location: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, configuration: configuration,
            isReadOnly: false)
        writer.trackChanges(into: changes)
    }

    // MARK: - Access

    /// Runs `body` in a transaction on the writer connection; commits when it returns, rolls back
    /// when it throws. Writes are serialized: a second `write` waits for the first.
    ///
    /// ```swift
    /// try db.write { try $0.upsert(users) }
    /// ```
    ///
    /// - Parameters:
    ///   - kind: The transaction kind; `.immediate` when `nil` (the default).
    ///   - body: The work; its `Database` must not escape it. Nested transactions are savepoints:
    ///     see ``Database/inTransaction(_:_:)``.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    @discardableResult
    public func write<T>(_ kind: TransactionKind? = nil, _ body: (Database) throws -> T) throws -> T {
        try write(kind, job: nil, body)
    }

    /// `write(_:_:)` as `job`, which a cancelled task interrupts.
    func write<T>(_ kind: TransactionKind?, job: DatabaseJob?, _ body: (Database) throws -> T) throws -> T {
        let previous = lockWriter("write")
        defer {
            unlockWriter(restoring: previous)
            changes.publish()
        }
        func transaction() throws -> T {
            try writer.inTransaction(kind ?? configuration.defaultTransactionKind) {
                try writer.runWriteBoundaryStatements()
                let result = try body(writer)
                try writer.runWriteBoundaryStatements()
                return result
            }
        }
        guard let job else { return try transaction() }
        return try job.run(on: writer, transaction)
    }

    /// Runs `body` on the writer connection outside of any transaction, e.g. for `VACUUM`.
    ///
    /// - Throws: What `body` throws.
    @discardableResult
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        let previous = lockWriter("writeWithoutTransaction")
        defer {
            unlockWriter(restoring: previous)
            changes.publish()
        }
        return try body(writer)
    }

    /// Runs `body` in a read transaction that sees one consistent snapshot of the database.
    ///
    /// A file database reads on a reader connection, concurrently with the writer and other readers
    /// (https://www.sqlite.org/wal.html#concurrency); an in-memory database reads on its only connection.
    ///
    /// ```swift
    /// let count = try db.read { try $0.count(User.self) }
    /// ```
    ///
    /// Inside a `write` closure, use the `Database` it receives instead: a nested `read` of a file
    /// database does not see the write's uncommitted changes, and one of an in-memory database traps.
    ///
    /// - Throws: What `body` throws, or ``SQLiteError``; writing throws `SQLITE_READONLY`.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try read(job: nil, body)
    }

    /// `read(_:)` as `job`, which a cancelled task interrupts.
    func read<T>(job: DatabaseJob?, _ body: (Database) throws -> T) throws -> T {
        guard usesReaderPool, let path else {
            let previous = lockWriter("read")
            defer { unlockWriter(restoring: previous) }
            func transaction() throws -> T { try writer.inTransaction(.deferred) { try body(writer) } }
            guard let job else { return try transaction() }
            return try job.run(on: writer, transaction)
        }
        let reader = try checkOutReader(path: path)
        defer { checkIn(reader) }
        func transaction() throws -> T { try reader.inTransaction(.deferred) { try body(reader) } }
        guard let job else { return try transaction() }
        return try job.run(on: reader, transaction)
    }

    /// Takes the writer lock, trapping instead of deadlocking when this thread already holds it.
    private func lockWriter(_ method: String) -> UnsafeMutableRawPointer? {
        let previous = pthread_getspecific(writerOwnerKey)
        let me = Unmanaged.passUnretained(self).toOpaque()
        precondition(
            previous != me,
            "SQLiteDatabase.\(method) was called inside a write (or in-memory read) closure of the same database, "
                + "which would deadlock: use the Database the closure receives instead.")
        writerLock.lock()
        pthread_setspecific(writerOwnerKey, me)
        return previous
    }

    private func unlockWriter(restoring previous: UnsafeMutableRawPointer?) {
        pthread_setspecific(writerOwnerKey, previous)
        writerLock.unlock()
    }

    private func checkOutReader(path: String) throws -> Database {
        readers.lock()
        defer { readers.unlock() }
        while true {
            if let reader = idleReaders.popLast() { return reader }
            if openReaderCount < max(1, configuration.maximumReaderCount) {
                openReaderCount += 1
                do {
                    return try Database(
                        location: path, flags: SQLITE_OPEN_READWRITE, configuration: configuration, isReadOnly: true)
                } catch {
                    openReaderCount -= 1
                    throw error
                }
            }
            readers.wait()
        }
    }

    private func checkIn(_ reader: Database) {
        readers.lock()
        idleReaders.append(reader)
        readers.signal()
        readers.unlock()
    }
}
