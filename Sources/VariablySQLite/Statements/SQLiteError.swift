/// An error reported by SQLite, with the extended result code, SQLite's message and the SQL.
///
/// The bound ``arguments`` are kept for debugging but stay out of ``description``: they may be private
/// data that must not end up in logs.
///
/// ```swift
/// do {
///     try db.write { try $0.insert(user) }
/// } catch ResultCode.constraint {
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
