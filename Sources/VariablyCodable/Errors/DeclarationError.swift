/// A mistake in what an app declares (a model's table, its key sets, a repository's configuration, a
/// server's API shape), found when a table is migrated or a repository or store opens: it names the
/// model, the property's key path where there is one, and the fix, so that an app that loads a schema
/// it did not write can report it.
///
/// ```swift
/// do {
///     let repository = try await Repository<User>.open(database: database, remote: server)
/// } catch let error as DeclarationError {
///     print(error)
///     // User \User.email: the unique constraint names a property without a sqlite key.
///     // Fix: give the property a key in the sqlite key set, or remove it from the unique constraint.
/// }
/// ```
public struct DeclarationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Hashable, Sendable {
        // MARK: Key sets

        /// The model's key sets have a problem that makes the declaration unusable where it is needed
        /// (an empty key, a property listed twice); ``KeySets/validate()`` lists every such problem.
        case keySetProblem(KeySetProblem)
        /// The model declares no key set for the source a table or repository reads it with.
        case noKeySet(CodingSource)

        // MARK: Tables

        /// The table's primary key has no key in the key set that names the columns.
        case primaryKeyWithoutKey(CodingSource)
        /// An index, unique constraint, default value, date encoding or reference (the role) names a
        /// property that has no key in the key set that names the columns.
        case propertyWithoutKey(CodingSource, role: String)
        /// An index or a unique constraint lists no property.
        case emptyIndex(isUnique: Bool)
        /// Two indexes of the table have the same name (as SQLite compares names).
        case duplicateIndexName(String)
        /// A default value that SQLite would not give back as declared: NaN (stored as `NULL`) or `-0.0`
        /// (stored as `0.0`).
        case unstorableDefaultValue(Double)
        /// A reference sets `NULL` when its parent is deleted, and its property is not optional.
        case setNullOnRequiredReference
        /// The table stores a date in one encoding and the key set's date strategy writes another.
        case conflictingDateEncodings(declared: String, written: String)
        /// The primary key has a value transform: ids are bound as the property's values.
        case transformedPrimaryKey
        /// A column's name, or a part of a nested key, is empty.
        case emptyColumnName
        /// Two model types would share one table named after the type.
        case sharedTableName(String, otherModel: String)
        /// A migration step is registered twice under one identifier.
        case duplicateMigration(String)

        // MARK: Repositories and stores

        /// The table's primary key is not of the model's `Identifiable.ID` type.
        case primaryKeyIsNotID(idType: String)
        /// A synced table's primary key is stored as `REAL` or `BLOB`: ids are kept as exact JSON text,
        /// which only integers and text have.
        case unsyncablePrimaryKey(sqlType: String)
        /// A property is not a declared reference to the parent model's table.
        case undeclaredReference(parentTable: String)
        /// A setting is out of its range, e.g. a page size of 0.
        case invalidSetting(String, requirement: String)
        /// An HTTP header has an empty name, a colon in its name, or a line break or NUL.
        case unsafeHeader(String)
        /// A query parameter of a pull shape has an empty name, or a line break or NUL.
        case unsafeQueryParameter(String)
        /// A change feed's records path does not name the table once, as `{table}`.
        case feedRecordsPathWithoutTable(String)
        /// A change feed declares a `changedSince` filter, which is per table.
        case feedWithChangedSince
        /// A store has no repository.
        case noRepositories
        /// A store's repositories are on more than one database.
        case repositoriesOnSeveralDatabases
    }

    /// What is wrong.
    public let reason: Reason
    /// The model whose declaration is wrong, e.g. `"User"`; for a declaration that belongs to no one
    /// model, the declaring type (`"Migrator"`, `"SyncStore"`, `"HTTPRemoteFeed"`).
    public let modelType: String
    /// The property concerned, e.g. `"\User.email"`, or `nil` when the mistake is not about one property.
    public let keyPath: String?
    /// What to change in the declaration.
    public let fix: String

    /// A declaration error of `modelType`.
    package init(_ reason: Reason, modelType: String, keyPath: String? = nil, fix: String) {
        self.reason = reason
        self.modelType = modelType
        self.keyPath = keyPath
        self.fix = fix
    }

    /// A declaration error of `model`.
    package init(_ reason: Reason, model: Any.Type, keyPath: AnyKeyPath? = nil, fix: String) {
        self.init(reason, modelType: "\(model)", keyPath: keyPath.map { "\($0)" }, fix: fix)
    }

    /// The key-set problem `problem` of `model`, with the fix it calls for.
    package init(_ problem: KeySetProblem, model: Any.Type) {
        self.init(.keySetProblem(problem), modelType: "\(model)", keyPath: problem.keyPath, fix: problem.fix)
    }

    /// The model, the key path and what is wrong, then the fix:
    /// `User \User.email: the unique constraint names a property without a sqlite key. Fix: …`.
    public var description: String {
        "\(modelType)\(keyPath.map { " \($0)" } ?? ""): \(reason.summary). Fix: \(fix)"
    }
}

extension DeclarationError.Reason {
    /// What is wrong, as one sentence without its final period.
    var summary: String {
        switch self {
        case .keySetProblem(let problem): "the key sets have a problem: \(problem)"
        case .noKeySet(let source): "there is no \(source) key set"
        case .primaryKeyWithoutKey(let source): "the primary key has no key in the \(source) key set"
        case .propertyWithoutKey(let source, let role): "the \(role) names a property without a \(source) key"
        case .emptyIndex(let isUnique): "\(isUnique ? "a unique constraint" : "an index") lists no property"
        case .duplicateIndexName(let name): "two indexes are named \"\(name)\""
        case .unstorableDefaultValue(let value):
            "the default value is \(value), which SQLite gives back as \(value.isNaN ? "NULL" : "0.0")"
        case .setNullOnRequiredReference:
            "the reference sets NULL when its parent is deleted, and the property is not optional"
        case .conflictingDateEncodings(let declared, let written):
            "the table stores the date as \(declared), and the key set's date strategy writes it as \(written)"
        case .transformedPrimaryKey: "the primary key has a value transform"
        case .emptyColumnName: "the column's name, or a part of its key, is empty"
        case .sharedTableName(let table, let other): "the table \"\(table)\" is also \(other)'s, named after the type"
        case .duplicateMigration(let identifier): "the migration \"\(identifier)\" is registered twice"
        default: repositorySummary
        }
    }

    private var repositorySummary: String {
        switch self {
        case .primaryKeyIsNotID(let idType): "the primary key is not of type \(idType), the model's Identifiable.ID"
        case .unsyncablePrimaryKey(let sqlType): "a synced table's primary key is stored as \(sqlType)"
        case .undeclaredReference(let table): "the property is not a declared reference to the table \"\(table)\""
        case .invalidSetting(let name, let requirement): "\(name) must be \(requirement)"
        case .unsafeHeader(let name):
            "the header \"\(name.prefix(40))\" has an empty name, a colon in its name, or a line break or NUL"
        case .unsafeQueryParameter(let name):
            "the query parameter \"\(name.prefix(40))\" has an empty name, or a line break or NUL"
        case .feedRecordsPathWithoutTable(let path):
            "the records path \"\(path)\" does not name the table once as {table}"
        case .feedWithChangedSince: "a change feed pages by its cursor alone, and a changedSince filter is declared"
        case .noRepositories: "there is no repository"
        case .repositoriesOnSeveralDatabases: "the repositories are on more than one SQLiteDatabase"
        default: ""
        }
    }
}
