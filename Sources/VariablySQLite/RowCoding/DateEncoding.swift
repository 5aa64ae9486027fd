import Foundation
import VariablyCodable

/// How a `Date` column is stored. The default is ``secondsSince1970``: REAL, exact to the
/// microsecond, sortable and fast; choose another per column in ``SQLiteTable``.
///
/// ```swift
/// SQLiteTable<User>("users", primaryKey: \.id, [.dateEncoding(\.createdAt, .iso8601)])
/// ```
///
/// SQLite's date functions understand all three (https://www.sqlite.org/lang_datefunc.html):
/// `datetime(created_at, 'unixepoch')`, `datetime(created_at / 1000, 'unixepoch')`, `datetime(created_at)`.
public enum DateEncoding: Hashable, Sendable {
    /// REAL seconds since 1970-01-01 00:00:00 UTC (the default).
    case secondsSince1970
    /// INTEGER milliseconds since 1970-01-01 00:00:00 UTC (sub-millisecond precision is dropped).
    case millisecondsSince1970
    /// TEXT in ISO 8601 with fractional seconds, UTC: `2023-11-14T22:13:20.000Z`.
    case iso8601

    /// The encoding that stores what `strategy` writes, so that the column's type, its values and the
    /// dates a predicate binds agree; `nil` for the text outputs no encoding writes (whole-second ISO
    /// 8601, `yyyy-MM-dd`), which a column stores and compares in the strategy's own format.
    init?(writing strategy: DateCodingStrategy) {
        switch strategy.output {
        case .secondsSince1970: self = .secondsSince1970
        case .millisecondsSince1970: self = .millisecondsSince1970
        case .iso8601(fractionalSeconds: true): self = .iso8601
        case .iso8601(fractionalSeconds: false), .dateOnly: return nil
        }
    }

    /// The SQL type of columns that use this encoding.
    var sqlType: String {
        switch self {
        case .secondsSince1970: "REAL"
        case .millisecondsSince1970: "INTEGER"
        case .iso8601: "TEXT"
        }
    }

    private static let fractionalStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let wholeStyle = Date.ISO8601FormatStyle()

    func sqlValue(_ date: Date) -> SQLValue {
        switch self {
        case .secondsSince1970: .real(date.timeIntervalSince1970)
        case .millisecondsSince1970: .integer(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        case .iso8601: .text(DateEncoding.fractionalStyle.format(date))
        }
    }

    static func parseISO8601(_ text: String) -> Date? {
        (try? fractionalStyle.parse(text)) ?? (try? wholeStyle.parse(text))
    }
}
