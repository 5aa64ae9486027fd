/// How a ``SQLiteDatabase`` opens and sets up its connections.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.busyTimeout = .seconds(10)
/// configuration.trace = { sql in print(sql) }
/// let db = try SQLiteDatabase(path: "/tmp/app.sqlite", configuration: configuration)
/// ```
public struct Configuration: Sendable {
    /// The journal mode of file databases; WAL lets readers run while a writer writes
    /// (https://www.sqlite.org/wal.html). In-memory databases ignore it.
    public var journalMode: JournalMode = .wal
    /// How long a connection waits for a lock held by another process before failing with
    /// `SQLITE_BUSY` (https://www.sqlite.org/c3ref/busy_timeout.html).
    public var busyTimeout: Duration = .seconds(5)
    /// Whether foreign key constraints are enforced (https://www.sqlite.org/foreignkeys.html#fk_enable).
    public var foreignKeysEnabled = true
    /// Whether `LIKE` is case-sensitive, as Swift's `String.hasPrefix` is; predicates translate
    /// `starts(with:)` with a captured prefix to `LIKE`, so this keeps their results equal to Swift's.
    /// (https://www.sqlite.org/pragma.html#pragma_case_sensitive_like)
    package var caseSensitiveLike = true
    /// The transaction ``SQLiteDatabase/write(_:_:)`` opens.
    package var defaultTransactionKind: TransactionKind = .immediate
    /// The most reader connections a file database opens; reads wait when all are busy.
    public var maximumReaderCount = 4
    /// The most prepared statements each connection keeps for reuse; when full, the cache is emptied
    /// (queries whose SQL varies, e.g. `IN` lists of different lengths, would otherwise grow it forever).
    public var statementCacheCapacity = 256
    /// The shortest time between the starts of two fetches of one observation. A commit that comes
    /// sooner is answered when the interval has passed, together with every commit meanwhile: while a
    /// sync commits page after page, an observed query is fetched at most this often, whatever the
    /// table holds, and a commit after a quiet moment is answered at once. A query slower than an
    /// eighth of this interval is spaced by eight times its own duration instead (up to 250 ms). One display frame by
    /// default.
    public var minimumObservationInterval: Duration = .milliseconds(16)
    /// When a file database in WAL mode copies the WAL back into the database file: by default in the
    /// background once the WAL holds 1,000 pages, so that a write does not wait for the disk.
    public var checkpoints: CheckpointPolicy = .inBackground(afterPages: 1_000)
    /// Called with the SQL of every statement each time it starts running (unexpanded: parameters stay `?`).
    public var trace: (@Sendable (String) -> Void)?

    /// The default configuration: WAL with checkpoints in the background, a 5 s busy timeout, foreign
    /// keys on, case-sensitive `LIKE`.
    public init() {}
}
