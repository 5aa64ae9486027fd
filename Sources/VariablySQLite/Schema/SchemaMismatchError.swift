/// The table on disk differs from the model in a way that automatic migration will not fix, because
/// fixing it could lose data. Register a step in a ``Migrator`` that rebuilds the table
/// (https://www.sqlite.org/lang_altertable.html#otheralter), then call ``Database/migrate(_:)`` again.
///
/// ```swift
/// do {
///     try db.write { try $0.migrate(User.self) }
/// } catch let error as SchemaMismatchError {
///     print(error)   // Table "users" needs an explicit migration: column "age" is TEXT, the model wants INTEGER.
/// }
/// ```
public struct SchemaMismatchError: Error, CustomStringConvertible, Sendable {
    /// One difference.
    public enum Problem: Hashable, Sendable, CustomStringConvertible {
        /// The model gained a non-optional column without a declared default; existing rows would have no value.
        case newColumnNeedsValue(column: String)
        /// The column's declared type changed.
        case typeChanged(column: String, from: String, to: String)
        /// The column became optional or required.
        case nullabilityChanged(column: String, isOptional: Bool)
        /// The primary key moved to other columns.
        case primaryKeyChanged(from: [String], to: [String])
        /// The table has a required column without default that the model no longer has: inserts would fail.
        case removedRequiredColumn(column: String)
        /// A declared index is missing from the table, or an index of its name covers other columns or
        /// differs in uniqueness (`found` is empty when there is none on this table).
        case indexDiffers(name: String, columns: [String], isUnique: Bool, found: [String])
        /// A declared reference is missing from the table, or the table's reference of that column names
        /// another parent or action: SQLite adds foreign keys only when it creates a table.
        case referenceDiffers(column: String, parent: String)

        public var description: String {
            switch self {
            case .newColumnNeedsValue(let column):
                "new column \(SQL.quote(column)) is NOT NULL without a default: make the property optional, "
                    + "declare `.defaultValue(...)` in the table, or add it in a migrator step"
            case .typeChanged(let column, let from, let to):
                "column \(SQL.quote(column)) is \(from), the model wants \(to)"
            case .nullabilityChanged(let column, let isOptional):
                "column \(SQL.quote(column)) must become \(isOptional ? "nullable" : "NOT NULL")"
            case .primaryKeyChanged(let from, let to):
                "the primary key changes from (\(from.joined(separator: ", "))) to (\(to.joined(separator: ", ")))"
            case .removedRequiredColumn(let column):
                "column \(SQL.quote(column)) is NOT NULL without a default but the model no longer has it"
            case .indexDiffers(let name, let columns, let isUnique, let found):
                "the \(isUnique ? "unique " : "")index \(SQL.quote(name)) on (\(columns.joined(separator: ", "))) "
                    + (found.isEmpty
                        ? "is missing (an index of that name may belong to another table)"
                        : "exists on (\(found.joined(separator: ", "))) or with another uniqueness: rename one, or drop the old one in a migrator step")
            case .referenceDiffers(let column, let parent):
                "column \(SQL.quote(column)) must reference \(parent) as declared (deferred, ON UPDATE CASCADE): "
                    + "rebuild the table in a migrator step"
            }
        }
    }

    /// The table.
    public let table: String
    /// Every difference found; nothing was changed.
    public let problems: [Problem]

    public var description: String {
        "Table \(SQL.quote(table)) needs an explicit migration: "
            + problems.map(\.description).joined(separator: "; ") + "."
    }
}
