/// One row fetched with raw SQL: its column names and values.
///
/// ```swift
/// let rows = try db.fetch(sql: "SELECT name, age FROM users WHERE age > ?", arguments: [30])
/// let name = rows[0]["name"]         // SQLValue.text("...")
/// let age = rows[0][1]               // SQLValue.integer(...)
/// ```
public struct Row: Hashable, Sendable {
    /// The column names, in order.
    public let columnNames: [String]
    /// The values, in column order.
    public let values: [SQLValue]

    /// Creates a row.
    package init(columnNames: [String], values: [SQLValue]) {
        precondition(columnNames.count == values.count, "A row needs one name per value.")
        self.columnNames = columnNames
        self.values = values
    }

    /// The value of column `index`.
    public subscript(index: Int) -> SQLValue { values[index] }

    /// The value of the first column named `name` (ASCII case-insensitively, as SQLite compares
    /// names), or `nil`.
    ///
    /// - Complexity: O(*n*) in the number of columns.
    public subscript(name: String) -> SQLValue? {
        let key = SQL.identifierKey(name)
        return columnNames.firstIndex { SQL.identifierKey($0) == key }.map { values[$0] }
    }
}
