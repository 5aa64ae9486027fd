public import Foundation
public import VariablyCodable

/// The SQLite side of a model: table name, primary key, and the indexes and column options that a
/// key set cannot say.
///
/// ```swift
/// SQLiteTable<User>("users", primaryKey: \.id, [
///     .index(\.age, \.isActive),
///     .unique(\.email),
///     .dateEncoding(\.createdAt, .millisecondsSince1970),
///     .defaultValue(\.score, 0),
/// ])
/// ```
public struct SQLiteTable<Model>: Sendable {
    /// The table's name; always quoted in SQL, so any name works.
    public let name: String
    /// The primary key column's property.
    package let primaryKey: any PartialKeyPath<Model> & Sendable
    /// The coding source whose key set names the columns (``CodingSource/sqlite`` by default).
    package let source: CodingSource
    /// Indexes, unique constraints and column options.
    package let elements: [TableElement<Model>]
    /// The property name to look for when ``primaryKey`` is not itself in the key set: `\Self.id`
    /// written in a protocol extension goes through `Identifiable`'s requirement, so it is a different
    /// key path from the model's own `\User.id`.
    let primaryKeyPropertyName: String?
    /// Whether the name is the type's bare name, chosen by default rather than declared.
    let isNamedAfterType: Bool

    /// Declares a table.
    ///
    /// - Parameters:
    ///   - name: The table name.
    ///   - primaryKey: The primary key's property; an `Int64`/`Int` key becomes the rowid
    ///     (https://www.sqlite.org/lang_createtable.html#rowid).
    ///   - source: The key set that names the columns.
    ///   - elements: Indexes, unique constraints, date encodings, defaults.
    public init(
        _ name: String, primaryKey: any PartialKeyPath<Model> & Sendable, source: CodingSource = .sqlite,
        _ elements: [TableElement<Model>] = []
    ) {
        self.name = name
        self.primaryKey = primaryKey
        self.source = source
        self.elements = elements
        self.primaryKeyPropertyName = nil
        self.isNamedAfterType = false
    }

    /// A table keyed by the model's `Identifiable.id`.
    init(_ name: String, identifiedBy primaryKey: any PartialKeyPath<Model> & Sendable) {
        self.name = name
        self.primaryKey = primaryKey
        self.source = .sqlite
        self.elements = []
        self.primaryKeyPropertyName = "id"
        self.isNamedAfterType = true
    }
}

/// One index, unique constraint or column option of a ``SQLiteTable``.
public struct TableElement<Model>: Sendable {
    enum Kind: Sendable {
        case index(keyPaths: [any PartialKeyPath<Model> & Sendable], name: String?, isUnique: Bool)
        case dateEncoding(keyPath: any PartialKeyPath<Model> & Sendable, DateEncoding)
        case defaultValue(keyPath: any PartialKeyPath<Model> & Sendable, SQLValue)
    }

    let kind: Kind

    /// An index on one or more columns, named `<table>_on_<columns>_<hash>` unless `name` is given (the hash of
    /// the table and column names keeps names that would read alike apart).
    ///
    /// ```swift
    /// .index(\.age, \.isActive)
    /// ```
    public static func index(_ keyPaths: any PartialKeyPath<Model> & Sendable..., name: String? = nil) -> TableElement {
        precondition(!keyPaths.isEmpty, "An index needs at least one key path: .index(\\.userName).")
        return TableElement(kind: .index(keyPaths: keyPaths, name: name, isUnique: false))
    }

    /// A unique constraint, created as a unique index (https://www.sqlite.org/lang_createindex.html#unique_indexes)
    /// named `<table>_unique_<columns>_<hash>` unless `name` is given, so that it can be added to an existing table.
    ///
    /// ```swift
    /// .unique(\.email)
    /// ```
    public static func unique(_ keyPaths: any PartialKeyPath<Model> & Sendable..., name: String? = nil) -> TableElement {
        precondition(!keyPaths.isEmpty, "A unique constraint needs at least one key path: .unique(\\.email).")
        return TableElement(kind: .index(keyPaths: keyPaths, name: name, isUnique: true))
    }

    /// How a `Date` column is stored; ``DateEncoding/secondsSince1970`` when not declared.
    ///
    /// ```swift
    /// .dateEncoding(\.createdAt, .iso8601)
    /// ```
    public static func dateEncoding(_ keyPath: any KeyPath<Model, Date> & Sendable, _ encoding: DateEncoding) -> TableElement {
        TableElement(kind: .dateEncoding(keyPath: keyPath, encoding))
    }

    /// How an optional `Date` column is stored.
    public static func dateEncoding(_ keyPath: any KeyPath<Model, Date?> & Sendable, _ encoding: DateEncoding) -> TableElement {
        TableElement(kind: .dateEncoding(keyPath: keyPath, encoding))
    }

    /// The column's `DEFAULT`, which also lets automatic migration add it as `NOT NULL` to a table
    /// that has rows (https://www.sqlite.org/lang_altertable.html#altertabaddcol).
    ///
    /// A real default must be one SQLite gives back: NaN (stored as `NULL`) and `-0.0` (a `REAL` column
    /// keeps integral values as integers, so the sign is lost:
    /// https://www.sqlite.org/datatype3.html#storage_classes_and_datatypes) trap here, where they are
    /// declared.
    ///
    /// ```swift
    /// .defaultValue(\.score, 0)
    /// ```
    public static func defaultValue(_ keyPath: any PartialKeyPath<Model> & Sendable, _ value: SQLValue) -> TableElement {
        if case .real(let real) = value {
            precondition(!real.isNaN, "The default value of \(keyPath) is NaN, which SQLite stores as NULL: declare another default.")
            precondition(
                !(real == 0 && real.sign == .minus),
                "The default value of \(keyPath) is -0.0, which a REAL column stores as 0.0: declare 0 instead.")
        }
        return TableElement(kind: .defaultValue(keyPath: keyPath, value))
    }
}
