public import Foundation
public import VariablyCodable

/// The SQLite side of a model: table name, primary key, and the indexes, references and column options
/// that a key set cannot say.
///
/// ```swift
/// SQLiteTable<User>("users", primaryKey: \.id, [
///     .index(\.age, \.isActive),
///     .unique(\.email),
///     .dateEncoding(\.createdAt, .millisecondsSince1970),
///     .defaultValue(\.score, 0),
/// ])
/// SQLiteTable<Post>("posts", primaryKey: \.id, [.references(\.authorID, User.self, onDelete: .cascade)])
/// ```
public struct SQLiteTable<Model>: Sendable {
    /// The table's name; always quoted in SQL, so any name works.
    public let name: String
    /// The primary key column's property.
    package let primaryKey: any PartialKeyPath<Model> & Sendable
    /// The coding source whose key set names the columns (`CodingSource.sqlite` by default).
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
        /// The parent's table and primary key column, resolved when the child's table is first used;
        /// `createParent` creates the parent's table when it is missing and returns the statements run.
        case reference(
            keyPath: any PartialKeyPath<Model> & Sendable,
            parent: @Sendable () throws(DeclarationError) -> (table: String, column: String),
            onDelete: ReferenceAction, createParent: @Sendable (Database) throws -> [String])
    }

    let kind: Kind

    /// An index on one or more columns, named `<table>_on_<columns>_<hash>` unless `name` is given (the hash of
    /// the table and column names keeps names that would read alike apart).
    ///
    /// ```swift
    /// .index(\.age, \.isActive)
    /// ```
    public static func index(_ keyPaths: any PartialKeyPath<Model> & Sendable..., name: String? = nil) -> TableElement {
        TableElement(kind: .index(keyPaths: keyPaths, name: name, isUnique: false))
    }

    /// A unique constraint, created as a unique index (https://www.sqlite.org/lang_createindex.html#unique_indexes)
    /// named `<table>_unique_<columns>_<hash>` unless `name` is given, so that it can be added to an existing table.
    ///
    /// ```swift
    /// .unique(\.email)
    /// ```
    public static func unique(_ keyPaths: any PartialKeyPath<Model> & Sendable..., name: String? = nil) -> TableElement
    {
        TableElement(kind: .index(keyPaths: keyPaths, name: name, isUnique: true))
    }

    /// How a `Date` column is stored; ``DateEncoding/secondsSince1970`` when not declared.
    ///
    /// ```swift
    /// .dateEncoding(\.createdAt, .iso8601)
    /// ```
    public static func dateEncoding(_ keyPath: any KeyPath<Model, Date> & Sendable, _ encoding: DateEncoding)
        -> TableElement
    {
        TableElement(kind: .dateEncoding(keyPath: keyPath, encoding))
    }

    /// How an optional `Date` column is stored.
    public static func dateEncoding(_ keyPath: any KeyPath<Model, Date?> & Sendable, _ encoding: DateEncoding)
        -> TableElement
    {
        TableElement(kind: .dateEncoding(keyPath: keyPath, encoding))
    }

    /// The column's `DEFAULT`, which also lets automatic migration add it as `NOT NULL` to a table
    /// that has rows (https://www.sqlite.org/lang_altertable.html#altertabaddcol).
    ///
    /// A real default must be one SQLite gives back: NaN (stored as `NULL`) and `-0.0` (a `REAL` column
    /// keeps integral values as integers, so the sign is lost:
    /// https://www.sqlite.org/datatype3.html#storage_classes_and_datatypes) throw a `DeclarationError`
    /// when the table is migrated or a repository opens.
    ///
    /// ```swift
    /// .defaultValue(\.score, 0)
    /// ```
    public static func defaultValue(_ keyPath: any PartialKeyPath<Model> & Sendable, _ value: SQLValue) -> TableElement
    {
        TableElement(kind: .defaultValue(keyPath: keyPath, value))
    }

    /// A reference to another model's row: the column holds the parent's primary key. Declared once,
    /// it makes the column a foreign key (https://www.sqlite.org/foreignkeys.html), checked when the
    /// transaction commits (`DEFERRABLE INITIALLY DEFERRED`), so that a parent and its children may be
    /// written in any order inside one transaction; a parent's id that changes (a server-assigned id
    /// replacing a provisional one) changes in its children too (`ON UPDATE CASCADE`); `onDelete` says
    /// what deleting the parent does to them. A sync orders its pushes by these references.
    ///
    /// Migrating the child creates the parent's table too when it is missing (and, in turn, the tables
    /// the parent references): SQLite refuses every write to a table whose foreign key names a table
    /// that does not exist (https://www.sqlite.org/foreignkeys.html#fk_indexes).
    ///
    /// ```swift
    /// .references(\.authorID, User.self, onDelete: .cascade)
    /// .references(\.replyTo, Comment.self, onDelete: .setNull)   // a self-reference, optional
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: The child's property holding the parent's id; optional for ``ReferenceAction/setNull``
    ///     and for references that may be empty (a cycle is broken by a `nil` written first).
    ///   - parent: The parent model.
    ///   - onDelete: What deleting the parent does to its children; ``ReferenceAction/restrict`` by default.
    #if compiler(>=6.2)
        public static func references<Parent: SQLiteStorable & SendableMetatype>(
            _ keyPath: any PartialKeyPath<Model> & Sendable, _ parent: Parent.Type,
            onDelete: ReferenceAction = .restrict
        ) -> TableElement {
            TableElement(
                kind: .reference(
                    keyPath: keyPath,
                    parent: { () throws(DeclarationError) in try Parent.sqliteTable.referenceTarget() },
                    onDelete: onDelete,
                    createParent: { db in try db.tableExists(Parent.sqliteTable.name) ? [] : db.migrate(Parent.self) }))
        }
    #else
        public static func references<Parent: SQLiteStorable>(
            _ keyPath: any PartialKeyPath<Model> & Sendable, _ parent: Parent.Type,
            onDelete: ReferenceAction = .restrict
        ) -> TableElement {
            TableElement(
                kind: .reference(
                    keyPath: keyPath,
                    parent: { () throws(DeclarationError) in try Parent.sqliteTable.referenceTarget() },
                    onDelete: onDelete,
                    createParent: { db in try db.tableExists(Parent.sqliteTable.name) ? [] : db.migrate(Parent.self) }))
        }
    #endif
}

/// What deleting a parent row does to the rows that reference it (see ``TableElement/references(_:_:onDelete:)``).
public enum ReferenceAction: Sendable, Hashable {
    /// The children are deleted with it.
    case cascade
    /// The children's reference becomes `NULL` (the property must be optional).
    case setNull
    /// The parent cannot be deleted while children reference it: the transaction fails when it
    /// commits, unless the children were deleted or moved by then.
    case restrict

    /// The SQL of the action: `restrict` is `NO ACTION`, which a deferred key checks at commit, where
    /// `RESTRICT` would refuse at once (https://www.sqlite.org/foreignkeys.html#fk_actions).
    var sql: String {
        switch self {
        case .cascade: "CASCADE"
        case .setNull: "SET NULL"
        case .restrict: "NO ACTION"
        }
    }
}

extension SQLiteTable where Model: SQLiteStorable {
    /// The table's name and its primary key column's name, read from the declaration and the key set
    /// alone, without the table's mapping: a reference resolves its parent while the child's mapping
    /// is built, which may be the parent's own (a self-reference) or one the parent's needs (a cycle).
    ///
    /// - Throws: `DeclarationError` when the parent has no key set or its primary key has no key.
    func referenceTarget() throws(DeclarationError) -> (table: String, column: String) {
        let keySet = try TableMapping<Model>.storableKeySet(of: self)
        let entry = try TableMapping<Model>.primaryKeyEntry(of: self, in: keySet)
        return (name, keySet.entries[entry].columnName)
    }
}
