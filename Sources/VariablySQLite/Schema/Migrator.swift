import VariablyCodable

/// Versioned, explicit schema steps, applied once each, in registration order, and recorded in the
/// table `variably_migrations`.
///
/// ```swift
/// var migrator = Migrator()
/// migrator.register("v1: users") { db in try db.migrate(User.self) }
/// migrator.register("v2: split name") { db in
///     try db.execute(sql: "UPDATE users SET nickname = user_name WHERE nickname IS NULL")
/// }
/// try migrator.migrate(db)
/// ```
public struct Migrator: Sendable {
    private var steps: [(identifier: String, body: @Sendable (Database) throws -> Void)] = []
    /// The table that records the applied steps.
    private let logTable: String
    /// The identifiers registered more than once, thrown by ``migrate(_:)-(SQLiteDatabase)`` before any step runs.
    private var duplicateIdentifiers: [String] = []

    /// Creates an empty migrator.
    public init() { logTable = "variably_migrations" }

    /// Creates an empty migrator that records its steps in `logTable`: a layer of the package (the sync
    /// engine) keeps its own steps apart from the app's, so that neither takes the other's for a step
    /// of a newer version.
    package init(logTable: String) { self.logTable = logTable }

    /// The identifiers registered, in order.
    package var identifiers: [String] { steps.map(\.identifier) }

    /// Registers a step. Identifiers must be unique (an identifier registered twice makes ``migrate(_:)-(SQLiteDatabase)``
    /// throw a `DeclarationError` before any step runs); never change a step once it has shipped.
    ///
    /// - Parameters:
    ///   - identifier: The step's permanent name.
    ///   - body: The step, run inside the migration's transaction.
    public mutating func register(_ identifier: String, _ body: @escaping @Sendable (Database) throws -> Void) {
        guard !steps.contains(where: { $0.identifier == identifier }) else {
            duplicateIdentifiers.append(identifier)
            return
        }
        steps.append((identifier, body))
    }

    /// Throws when an identifier was registered twice.
    private func checkDeclaration() throws(DeclarationError) {
        guard let identifier = duplicateIdentifiers.first else { return }
        throw DeclarationError(
            .duplicateMigration(identifier), modelType: "Migrator", fix: "give each step its own identifier")
    }

    /// Applies the pending steps, each in its own immediate transaction; a step that throws is
    /// rolled back, and the steps after it are not run.
    ///
    /// - Throws: What a step throws, ``SQLiteError``, ``MigrationError/unknownMigrations(_:)``
    ///   when the database has steps this migrator does not know (a newer version of the app wrote it),
    ///   or `DeclarationError` when an identifier was registered twice.
    public func migrate(_ database: SQLiteDatabase) throws {
        try checkDeclaration()
        try database.write { db in
            try createLog(in: db)
            try checkKnown(in: db)
        }
        for step in steps {
            try database.write(.immediate) { db in
                guard try !appliedIdentifiers(in: db).contains(step.identifier) else { return }
                try step.body(db)
                try db.execute(
                    sql: "INSERT INTO \(SQL.quote(logTable)) (\"identifier\") VALUES (?)", arguments: [step.identifier])
            }
        }
    }

    /// Applies the pending steps inside the current transaction.
    ///
    /// - Throws: See ``migrate(_:)-(SQLiteDatabase)``.
    public func migrate(_ db: Database) throws {
        try checkDeclaration()
        try createLog(in: db)
        try checkKnown(in: db)
        let applied = try appliedIdentifiers(in: db)
        for step in steps where !applied.contains(step.identifier) {
            try db.inSavepoint {
                try step.body(db)
                try db.execute(
                    sql: "INSERT INTO \(SQL.quote(logTable)) (\"identifier\") VALUES (?)", arguments: [step.identifier])
            }
        }
    }

    /// The identifiers of the steps already applied to `db`.
    ///
    /// - Throws: ``SQLiteError``.
    public func appliedIdentifiers(in db: Database) throws -> Set<String> {
        guard try db.tableExists(logTable) else { return [] }
        let rows = try db.fetch(sql: "SELECT \"identifier\" FROM \(SQL.quote(logTable))")
        return Set(rows.compactMap { if case .text(let identifier) = $0[0] { identifier } else { nil } })
    }

    private func createLog(in db: Database) throws {
        try db.execute(
            sql: "CREATE TABLE IF NOT EXISTS \(SQL.quote(logTable)) (\"identifier\" TEXT PRIMARY KEY NOT NULL)")
    }

    private func checkKnown(in db: Database) throws {
        let unknown = try appliedIdentifiers(in: db).subtracting(identifiers)
        if !unknown.isEmpty { throw MigrationError.unknownMigrations(unknown.sorted()) }
    }
}
