/// A SQLite result code, primary (`SQLITE_CONSTRAINT`) or extended (`SQLITE_CONSTRAINT_UNIQUE`).
///
/// See https://www.sqlite.org/rescode.html. The named codes are the ones an app handles (busy, locked,
/// constraints, I/O, corruption, ...); any other compares through ``init(rawValue:)``, such as
/// `ResultCode(rawValue: 21)` for `SQLITE_MISUSE`. A primary code matches every extended code that
/// refines it, so `catch ResultCode.constraint` catches a unique-constraint violation:
///
/// ```swift
/// do {
///     try db.write { try $0.insert(user) }
/// } catch ResultCode.constraintUnique {
///     // a duplicate
/// } catch ResultCode.constraint {
///     // any other constraint
/// }
/// ```
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code, as returned by `sqlite3_extended_errcode`.
    public let rawValue: Int32

    /// A code from its number.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code: the low eight bits (https://www.sqlite.org/rescode.html#primary_result_codes_versus_extended_result_codes).
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// Whether this is a primary code.
    package var isPrimary: Bool { rawValue & 0xFF == rawValue }

    /// Whether `other` is this code or, if this is a primary code, one of its extended codes.
    public func matches(_ other: ResultCode) -> Bool {
        isPrimary ? other.primary == self : other == self
    }

    /// `19 (SQLITE_CONSTRAINT)`, `2067 (SQLITE_CONSTRAINT_UNIQUE)`.
    public var description: String {
        let name = ResultCode.names[rawValue] ?? ResultCode.names[rawValue & 0xFF].map { "\($0)_\(rawValue >> 8)" }
        return "\(rawValue) (\(name ?? "SQLITE_\(rawValue)"))"
    }

    /// `SQLITE_OK`.
    package static let ok = ResultCode(rawValue: 0)
    /// `SQLITE_ERROR`.
    package static let error = ResultCode(rawValue: 1)
    /// `SQLITE_INTERNAL`.
    package static let `internal` = ResultCode(rawValue: 2)
    /// `SQLITE_PERM`.
    package static let permission = ResultCode(rawValue: 3)
    /// `SQLITE_ABORT`.
    package static let abort = ResultCode(rawValue: 4)
    /// `SQLITE_BUSY`.
    public static let busy = ResultCode(rawValue: 5)
    /// `SQLITE_LOCKED`.
    public static let locked = ResultCode(rawValue: 6)
    /// `SQLITE_NOMEM`.
    package static let noMemory = ResultCode(rawValue: 7)
    /// `SQLITE_READONLY`.
    public static let readOnly = ResultCode(rawValue: 8)
    /// `SQLITE_INTERRUPT`.
    public static let interrupt = ResultCode(rawValue: 9)
    /// `SQLITE_IOERR`.
    public static let ioError = ResultCode(rawValue: 10)
    /// `SQLITE_CORRUPT`.
    public static let corrupt = ResultCode(rawValue: 11)
    /// `SQLITE_FULL`.
    public static let full = ResultCode(rawValue: 13)
    /// `SQLITE_CANTOPEN`.
    public static let cantOpen = ResultCode(rawValue: 14)
    /// `SQLITE_SCHEMA`.
    package static let schema = ResultCode(rawValue: 17)
    /// `SQLITE_TOOBIG`.
    package static let tooBig = ResultCode(rawValue: 18)
    /// `SQLITE_CONSTRAINT`.
    public static let constraint = ResultCode(rawValue: 19)
    /// `SQLITE_MISMATCH`.
    package static let mismatch = ResultCode(rawValue: 20)
    /// `SQLITE_MISUSE`.
    package static let misuse = ResultCode(rawValue: 21)
    /// `SQLITE_RANGE`.
    package static let range = ResultCode(rawValue: 25)
    /// `SQLITE_NOTADB`.
    public static let notADatabase = ResultCode(rawValue: 26)
    /// `SQLITE_CONSTRAINT_CHECK`.
    public static let constraintCheck = ResultCode(rawValue: 19 | (1 << 8))
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
    public static let constraintForeignKey = ResultCode(rawValue: 19 | (3 << 8))
    /// `SQLITE_CONSTRAINT_NOTNULL`.
    public static let constraintNotNull = ResultCode(rawValue: 19 | (5 << 8))
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
    public static let constraintPrimaryKey = ResultCode(rawValue: 19 | (6 << 8))
    /// `SQLITE_CONSTRAINT_UNIQUE`.
    public static let constraintUnique = ResultCode(rawValue: 19 | (8 << 8))

    private static let names: [Int32: String] = [
        0: "SQLITE_OK", 1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT",
        5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY", 9: "SQLITE_INTERRUPT",
        10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 17: "SQLITE_SCHEMA",
        18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH", 21: "SQLITE_MISUSE",
        25: "SQLITE_RANGE", 26: "SQLITE_NOTADB",
        19 | (1 << 8): "SQLITE_CONSTRAINT_CHECK", 19 | (3 << 8): "SQLITE_CONSTRAINT_FOREIGNKEY",
        19 | (5 << 8): "SQLITE_CONSTRAINT_NOTNULL", 19 | (6 << 8): "SQLITE_CONSTRAINT_PRIMARYKEY",
        19 | (8 << 8): "SQLITE_CONSTRAINT_UNIQUE",
    ]
}
