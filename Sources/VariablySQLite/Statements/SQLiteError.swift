/// An error reported by SQLite, with the extended result code, SQLite's message and the SQL.
///
/// The bound ``arguments`` are kept for debugging but stay out of ``description``: they may be private
/// data that must not end up in logs.
///
/// ```swift
/// do {
///     try db.write { try $0.insert(user) }
/// } catch SQLiteError.constraint {
///     // matches SQLITE_CONSTRAINT and every SQLITE_CONSTRAINT_* extended code
/// } catch let error as SQLiteError {
///     print(error.code, error.message ?? "", error.sql ?? "")
/// }
/// ```
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The extended result code (https://www.sqlite.org/rescode.html).
    public let code: ResultCode
    /// SQLite's message (`sqlite3_errmsg`), if any.
    public let message: String?
    /// The SQL being prepared or run, if any.
    public let sql: String?
    /// The values bound to the statement, if any. Never printed.
    public let arguments: StatementArguments?

    /// Creates an error.
    public init(code: ResultCode, message: String? = nil, sql: String? = nil, arguments: StatementArguments? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
        self.arguments = arguments
    }

    /// The same error, with the arguments that were bound when it happened.
    func adding(_ arguments: StatementArguments) -> SQLiteError {
        guard self.arguments == nil, !arguments.isEmpty else { return self }
        return SQLiteError(code: code, message: message, sql: sql, arguments: arguments)
    }

    /// The primary result code.
    public var primaryCode: ResultCode { code.primary }

    public var description: String {
        var text = "SQLite error \(code)"
        if let message { text += ": \(message)" }
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }
}

extension ResultCode {
    /// Whether `error` is a ``SQLiteError`` whose code `code` matches (see ``ResultCode/matches(_:)``).
    public static func ~= (code: ResultCode, error: any Error) -> Bool {
        guard let error = error as? SQLiteError else { return false }
        return code.matches(error.code)
    }
}

// MARK: - Codes as members, for `catch SQLiteError.constraint`

extension SQLiteError {
    /// `SQLITE_ERROR`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let error = ResultCode.error
    /// `SQLITE_BUSY`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let busy = ResultCode.busy
    /// `SQLITE_LOCKED`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let locked = ResultCode.locked
    /// `SQLITE_READONLY`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let readOnly = ResultCode.readOnly
    /// `SQLITE_INTERRUPT`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let interrupt = ResultCode.interrupt
    /// `SQLITE_IOERR`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let ioError = ResultCode.ioError
    /// `SQLITE_CORRUPT`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let corrupt = ResultCode.corrupt
    /// `SQLITE_FULL`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let full = ResultCode.full
    /// `SQLITE_CANTOPEN`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let cantOpen = ResultCode.cantOpen
    /// `SQLITE_TOOBIG`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let tooBig = ResultCode.tooBig
    /// `SQLITE_CONSTRAINT`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let constraint = ResultCode.constraint
    /// `SQLITE_MISMATCH`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let mismatch = ResultCode.mismatch
    /// `SQLITE_MISUSE`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let misuse = ResultCode.misuse
    /// `SQLITE_RANGE`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let range = ResultCode.range
    /// `SQLITE_NOTADB`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let notADatabase = ResultCode.notADatabase
    /// `SQLITE_CONSTRAINT_CHECK`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let constraintCheck = ResultCode.constraintCheck
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let constraintForeignKey = ResultCode.constraintForeignKey
    /// `SQLITE_CONSTRAINT_NOTNULL`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let constraintNotNull = ResultCode.constraintNotNull
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let constraintPrimaryKey = ResultCode.constraintPrimaryKey
    /// `SQLITE_CONSTRAINT_UNIQUE`, for `catch SQLiteError.x`; a primary code also matches its extended codes.
    public static let constraintUnique = ResultCode.constraintUnique
}
