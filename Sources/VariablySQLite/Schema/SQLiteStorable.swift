public import VariablyCodable

/// A model stored in a SQLite table: its columns are its `sqlite` key set, and ``sqliteTable`` names
/// the table, the primary key, indexes, unique constraints and per-column options.
///
/// An `Identifiable` model gets a default table named after the type, keyed by `id`:
///
/// ```swift
/// extension User: SQLiteStorable {
///     static let sqliteTable = SQLiteTable<User>("users", primaryKey: \.id, [
///         .index(\.userName),
///         .unique(\.email),
///         .dateEncoding(\.createdAt, .iso8601),
///     ])
/// }
/// ```
public protocol SQLiteStorable: VariablyCodable {
    /// The table declaration. Read once per process and cached: declare it as a `static let`.
    static var sqliteTable: SQLiteTable<Self> { get }
}

extension SQLiteStorable where Self: Identifiable, ID: Codable {
    /// A table named after the type, with `id` as its primary key. Two types of the same name (in two
    /// modules, or nested in two types) would share that table: migrating the second one used throws a
    /// `DeclarationError` that asks for an explicit name.
    public static var sqliteTable: SQLiteTable<Self> {
        SQLiteTable(String(describing: Self.self), identifiedBy: \Self.id)
    }
}
