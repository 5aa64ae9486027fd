public import Foundation

/// One SQLite value: the five storage classes of https://www.sqlite.org/datatype3.html.
///
/// ```swift
/// let values: [SQLValue] = [.null, 42, 1.5, "text", .blob(Data([0xFF]))]
/// ```
public enum SQLValue: Hashable, Sendable {
    /// `NULL`.
    case null
    /// A signed 64-bit integer.
    case integer(Int64)
    /// An IEEE 754 double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob(Data)

    /// Whether the value is `NULL`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

// MARK: - Literals

extension SQLValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension SQLValue: CustomStringConvertible {
    /// A short, SQL-like rendering: `NULL`, `42`, `1.5`, `'text'`, `X'FF'`.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        // SQLite has no literal for infinity; 9e999 overflows to it (https://www.sqlite.org/floatingpoint.html).
        case .real(let value) where value.isInfinite: value < 0 ? "-9e999" : "9e999"
        case .real(let value): String(value)
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}

// MARK: - Conversions

/// A Swift value that converts to a ``SQLValue``, so that it can be a statement argument.
///
/// ```swift
/// try db.execute(sql: "UPDATE users SET age = ? WHERE id = ?", arguments: [age, id])
/// ```
public protocol SQLValueConvertible {
    /// The value as SQLite stores it.
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLValueConvertible {
    public var sqlValue: SQLValue { self }
}

extension Int: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int64: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(self) }
}

extension Int32: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Bool: SQLValueConvertible {
    /// `1` or `0`: SQLite has no boolean type (https://www.sqlite.org/datatype3.html#boolean_datatype).
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
}

extension Double: SQLValueConvertible {
    public var sqlValue: SQLValue { .real(self) }
}

extension String: SQLValueConvertible {
    public var sqlValue: SQLValue { .text(self) }
}

extension Data: SQLValueConvertible {
    public var sqlValue: SQLValue { .blob(self) }
}

extension Date: SQLValueConvertible {
    /// Seconds since 1970 as REAL: the default date encoding (see ``DateEncoding``).
    public var sqlValue: SQLValue { .real(timeIntervalSince1970) }
}

extension Optional: SQLValueConvertible where Wrapped: SQLValueConvertible {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
