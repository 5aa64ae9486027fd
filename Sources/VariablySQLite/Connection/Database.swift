internal import CSQLite
import Foundation

/// One SQLite connection, handed to the closures of `SQLiteDatabase.read(_:)` and
/// `SQLiteDatabase.write(_:_:)`.
///
/// A `Database` is used by one thread at a time, the one running the closure; it is not `Sendable`
/// and must not escape the closure.
///
/// ```swift
/// try db.write { db in
///     try db.execute(sql: "UPDATE users SET age = age + 1 WHERE id = ?", arguments: [42])
///     try db.upsert(users)
/// }
/// ```
public final class Database {
    let handle: OpaquePointer
    /// Whether the connection was opened for reading only.
    package let isReadOnly: Bool
    private var statements: [String: Statement] = [:]
    private let statementCacheCapacity: Int
    private var savepointDepth = 0
    /// Per table and trigger prefix, whether only those triggers can fire, and the schema version
    /// that answer holds for (see `withoutOwnTriggers(on:ownTriggerPrefix:_:)`).
    var triggerChecks: [String: (schemaVersion: SQLValue?, isOnlyOwn: Bool)] = [:]
    private let traceBox: TraceBox?
    /// The cancellable async job running on this connection, if any (see ``DatabaseJob``).
    var currentJob: DatabaseJob?
    /// Statements run at both ends of each transaction of ``SQLiteDatabase/write(_:_:)`` (see
    /// ``runAtWriteBoundaries(_:)``), in the order they were added.
    private(set) var writeBoundaryStatements: [String] = []

    init(location: String, flags: Int32, configuration: Configuration, isReadOnly: Bool) throws {
        var handle: OpaquePointer?
        // https://www.sqlite.org/c3ref/open.html: NOMUTEX, because one owner serializes access.
        let code = sqlite3_open_v2(location, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) }
            sqlite3_close_v2(handle)
            throw SQLiteError(code: ResultCode(rawValue: code), message: message ?? "cannot open \(location)")
        }
        self.handle = handle
        self.isReadOnly = isReadOnly
        self.statementCacheCapacity = max(1, configuration.statementCacheCapacity)
        sqlite3_extended_result_codes(handle, 1)
        SwiftTextSearch.register(on: handle)
        if let trace = configuration.trace {
            let box = TraceBox(trace)
            self.traceBox = box
            // https://www.sqlite.org/c3ref/trace_v2.html: for SQLITE_TRACE_STMT, X is the unexpanded SQL.
            sqlite3_trace_v2(
                handle, UInt32(SQLITE_TRACE_STMT),
                { _, context, _, sql in
                    guard let context, let sql else { return 0 }
                    let text = String(cString: sql.assumingMemoryBound(to: CChar.self))
                    // Trigger invocations are reported as comments; only statements are of interest.
                    if !text.hasPrefix("--") {
                        Unmanaged<TraceBox>.fromOpaque(context).takeUnretainedValue().trace(text)
                    }
                    return 0
                }, Unmanaged.passUnretained(box).toOpaque())
        } else {
            self.traceBox = nil
        }
        let timeout = configuration.busyTimeout.components
        sqlite3_busy_timeout(
            handle, Int32(clamping: timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000))
        try execute(sql: "PRAGMA foreign_keys = \(configuration.foreignKeysEnabled ? "ON" : "OFF")")
        try execute(sql: "PRAGMA case_sensitive_like = \(configuration.caseSensitiveLike ? "ON" : "OFF")")
        if isReadOnly {
            // https://www.sqlite.org/pragma.html#pragma_query_only
            try execute(sql: "PRAGMA query_only = ON")
        }
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: - Statements

    /// Prepares a new statement.
    ///
    /// - Throws: ``SQLiteError`` if the SQL does not compile.
    package func makeStatement(sql: String) throws -> Statement {
        try checkCancellation()
        return try Statement(database: self, sql: sql)
    }

    /// A prepared statement for `sql`, prepared once per connection and reused afterwards.
    ///
    /// - Throws: ``SQLiteError`` if the SQL does not compile.
    /// - Complexity: O(*n*) in the length of `sql`, to hash it.
    package func cachedStatement(sql: String) throws -> Statement {
        try checkCancellation()
        if let statement = statements[sql] { return statement }
        let statement = try Statement(database: self, sql: sql)
        if statements.count >= statementCacheCapacity {
            // Statements still in use are kept alive by their users; the others are finalized here.
            statements.removeAll(keepingCapacity: true)
        }
        statements[sql] = statement
        return statement
    }

    /// Runs one or more `;`-separated statements; `arguments` apply to a single statement only.
    ///
    /// ```swift
    /// try db.execute(sql: "DELETE FROM users WHERE age < ?", arguments: [18])
    /// ```
    ///
    /// - Throws: ``SQLiteError``.
    public func execute(sql: String, arguments: StatementArguments = []) throws {
        if arguments.isEmpty {
            // https://www.sqlite.org/c3ref/exec.html runs every statement of the script.
            var message: UnsafeMutablePointer<CChar>?
            let code = sqlite3_exec(handle, sql, nil, nil, &message)
            defer { sqlite3_free(message) }
            guard code == SQLITE_OK else {
                throw SQLiteError(
                    code: ResultCode(rawValue: sqlite3_extended_errcode(handle)),
                    message: message.map { String(cString: $0) }, sql: sql)
            }
        } else {
            try cachedStatement(sql: sql).execute(arguments)
        }
    }

    /// Runs a query and returns its rows.
    ///
    /// ```swift
    /// let rows = try db.fetch(sql: "SELECT id, user_name FROM users WHERE age > ?", arguments: [30])
    /// ```
    ///
    /// - Throws: ``SQLiteError``.
    /// - Complexity: O(*n*) in the number of rows.
    public func fetch(sql: String, arguments: StatementArguments = []) throws -> [Row] {
        let statement = try cachedStatement(sql: sql)
        try statement.bind(arguments)
        let names = statement.columnNames
        var rows: [Row] = []
        do {
            while try statement.step() {
                rows.append(Row(columnNames: names, values: (0..<statement.columnCount).map(statement.value(at:))))
            }
        } catch let error as SQLiteError {
            throw error.adding(arguments)
        }
        return rows
    }

    /// Runs a query and hands each row to `body` as it is stepped, without collecting the rows: for
    /// results too large to hold at once.
    ///
    /// ```swift
    /// var total: Int64 = 0
    /// try db.forEach(sql: "SELECT age FROM users WHERE age > ?", arguments: [30]) { row in
    ///     if case .integer(let age) = row[0] { total += age }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One statement.
    ///   - arguments: Its arguments, by position or by name.
    ///   - body: Called once per row, in order; an error it throws stops the query and is rethrown.
    /// - Throws: ``SQLiteError``, or what `body` throws.
    /// - Complexity: O(*n*) in the number of rows; memory O(1) in it.
    public func forEach(
        sql: String, arguments: StatementArguments = [], _ body: (Row) throws -> Void
    ) throws {
        // Its own statement, not the cached one: `body` may run other queries, even this same SQL.
        let statement = try makeStatement(sql: sql)
        try statement.bind(arguments)
        let names = statement.columnNames
        let columns = 0..<statement.columnCount
        while true {
            let hasRow: Bool
            do {
                hasRow = try statement.step()
            } catch let error as SQLiteError {
                throw error.adding(arguments)
            }
            guard hasRow else { return }
            try body(Row(columnNames: names, values: columns.map(statement.value(at:))))
        }
    }

    /// The first column of the first row of a query, or `nil` when there is no row.
    ///
    /// - Throws: ``SQLiteError``.
    public func fetchValue(sql: String, arguments: StatementArguments = []) throws -> SQLValue? {
        let statement = try cachedStatement(sql: sql)
        try statement.bind(arguments)
        let hasRow: Bool
        do {
            hasRow = try statement.step()
        } catch let error as SQLiteError {
            throw error.adding(arguments)
        }
        guard hasRow else { return nil }
        let value = statement.value(at: 0)
        statement.reset()
        return value
    }

    /// The rowid of the last successful insert (https://www.sqlite.org/c3ref/last_insert_rowid.html).
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The rows changed by the last insert, update or delete (https://www.sqlite.org/c3ref/changes.html).
    public var changesCount: Int { Int(sqlite3_changes64(handle)) }

    /// Runs `sql` first and last in every transaction of ``SQLiteDatabase/write(_:_:)`` on this
    /// connection from now on: right after it begins, and right before it commits. A layer that keeps
    /// per-transaction bookkeeping (the sync queue's transaction groups) marks where one write ends and
    /// the next begins with it. Adding the same statement twice runs it once.
    ///
    /// - Parameter sql: One statement, cheap when there is nothing to do: it runs in every write.
    package func runAtWriteBoundaries(_ sql: String) {
        guard !writeBoundaryStatements.contains(sql) else { return }
        writeBoundaryStatements.append(sql)
    }

    /// Runs the statements of ``runAtWriteBoundaries(_:)``.
    func runWriteBoundaryStatements() throws {
        for sql in writeBoundaryStatements { try cachedStatement(sql: sql).execute() }
    }

    /// Whether a transaction is open (https://www.sqlite.org/c3ref/get_autocommit.html).
    package var isInsideTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Whether the open transaction has broken a deferred foreign key that is not mended yet: its commit
    /// would fail (https://www.sqlite.org/c3ref/c_dbstatus_options.html#sqlitedbstatusdeferredfks).
    package var hasUnresolvedForeignKeys: Bool {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_DEFERRED_FKS, &current, &highest, 0)
        return current > 0
    }

    // MARK: - Transactions

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// Inside a transaction, opens a savepoint instead, so that transactions nest.
    ///
    /// ```swift
    /// try db.inTransaction {
    ///     try db.insert(user)
    ///     try db.inTransaction { try db.delete(User.self, id: 3) }   // a savepoint
    /// }
    /// ```
    ///
    /// - Throws: What `body` throws, or ``SQLiteError`` if the transaction cannot begin or commit.
    @discardableResult
    public func inTransaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        if isInsideTransaction { return try inSavepoint(body) }
        try execute(sql: "BEGIN \(kind.rawValue) TRANSACTION")
        let result: T
        do {
            result = try body()
        } catch {
            rollbackIgnoringErrors("ROLLBACK TRANSACTION")
            throw error
        }
        do {
            try execute(sql: "COMMIT TRANSACTION")
        } catch {
            rollbackIgnoringErrors("ROLLBACK TRANSACTION")
            throw error
        }
        return result
    }

    /// Runs `body` in a savepoint: released when it returns, rolled back to when it throws
    /// (https://www.sqlite.org/lang_savepoint.html).
    ///
    /// - Throws: What `body` throws, or ``SQLiteError``.
    @discardableResult
    package func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "\"variably_savepoint_\(savepointDepth)\""
        try execute(sql: "SAVEPOINT \(name)")
        let result: T
        do {
            result = try body()
        } catch {
            // ROLLBACK TO keeps the savepoint on the stack; RELEASE removes it.
            rollbackIgnoringErrors("ROLLBACK TO SAVEPOINT \(name); RELEASE SAVEPOINT \(name)")
            throw error
        }
        try execute(sql: "RELEASE SAVEPOINT \(name)")
        return result
    }

    private func rollbackIgnoringErrors(_ sql: String) {
        // The error that caused the rollback is the one to report; SQLite may also have rolled back
        // already (https://www.sqlite.org/lang_transaction.html#response_to_errors_within_a_transaction).
        for statement in statements.values { statement.reset() }
        _ = try? execute(sql: sql)
    }

    // MARK: - Errors

    func error(code: Int32, sql: String?, arguments: StatementArguments? = nil) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle)
        // The connection's last error may be stale when `code` came from elsewhere (e.g. a bind).
        let resultCode = (extended & 0xFF) == (code & 0xFF) ? extended : code
        return SQLiteError(
            code: ResultCode(rawValue: resultCode), message: String(cString: sqlite3_errmsg(handle)), sql: sql,
            arguments: arguments)
    }
}

// A connection is used by the thread running the closure it was passed to, and by no other.
@available(*, unavailable)
extension Database: Sendable {}

/// Holds the trace closure for SQLite's C callback.
private final class TraceBox {
    let trace: @Sendable (String) -> Void
    init(_ trace: @escaping @Sendable (String) -> Void) { self.trace = trace }
}
