public import Foundation
import VariablyCodable
public import VariablySQLite

/// A model's local cache in SQLite, kept in sync with a server.
///
/// Pull pages of server changes into the cache with ``sync()``, query the cache with `#Predicate`,
/// and edit it with `save(_:)` and ``delete(id:)``: each edit is queued in the same transaction and
/// pushed by the next sync.
///
/// ```swift
/// let database = try SQLiteDatabase(path: "users.sqlite")
/// let repository = try Repository<User>(database: database, remote: server)
/// let report = try await repository.sync()
/// let adults = try await repository.fetch(where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 10)
/// try await repository.save(edited)
/// ```
///
/// Syncs are serialized (a second ``sync()`` while one runs waits for it and returns its report);
/// queries and edits do not wait for a sync: reads see the cache as of the last committed page.
public actor Repository<Model: SQLiteStorable & Identifiable & Sendable> where Model.ID: Codable & Sendable {
    /// The table the repository is a face of: its source, its state, its key, as the engine runs it.
    nonisolated let table: SyncTable<Model>
    /// The database holding the cache, the cursor and the queue of local changes.
    public nonisolated var database: SQLiteDatabase { table.database }
    /// How syncs run.
    package nonisolated var configuration: SyncConfiguration<Model> { table.configuration }
    /// The sync or resync running now; every other call joins it or waits for it.
    var running: RunningSync<SyncReport<Model.ID>>?

    /// The report of the last sync, also when it failed: then ``SyncReport/isComplete`` is `false` and
    /// the report says what was done before the failure (pages applied, changes pushed, conflicts
    /// settled), which stays done.
    ///
    /// ```swift
    /// do {
    ///     try await repository.sync()
    /// } catch {
    ///     let partial = await repository.lastReport
    ///     print("before failing:", partial?.conflicts ?? [])
    /// }
    /// ```
    public internal(set) var lastReport: SyncReport<Model.ID>?

    /// Opens a repository: creates or migrates the model's table (see `Database.migrate(_:)`) and the
    /// sync tables, which keep the cursor and the queue of local changes across restarts.
    ///
    /// The schema work runs on the calling thread and waits for the database's writer; from an async
    /// context (a view model, the main actor), prefer
    /// ``open(database:remote:configuration:)``, which does it on the writer's own thread.
    ///
    /// ```swift
    /// let repository = try Repository<User>(
    ///     database: try SQLiteDatabase(path: "users.sqlite"), remote: server,
    ///     configuration: SyncConfiguration(conflictPolicy: .newestWins(by: \.updatedAt)))
    /// ```
    ///
    /// - Parameters:
    ///   - database: The SQLite database of the cache.
    ///   - remote: The server.
    ///   - configuration: Page size, retries, malformed records, conflicts.
    /// - Throws: `DeclarationError` for a mistake in the model's table declaration, the configuration
    ///   (a page size of 0) or the remote's declaration (a timeout of 0, an unsafe header), before
    ///   anything is written; `SQLiteError` or `SchemaMismatchError` if the table cannot be brought up
    ///   to date.
    public init(
        database: SQLiteDatabase, remote: some RemoteSource<Model>, configuration: SyncConfiguration<Model> = .init()
    ) throws {
        try self.init(unprepared: database, remote: remote, configuration: configuration)
        let schema = table.schema
        try database.write { db in try schema.prepare(db) }
    }

    /// Opens a repository as ``init(database:remote:configuration:)`` does, without blocking the caller:
    /// the table's creation or migration (an index built over a million rows takes seconds) runs on
    /// the database's writer thread while the caller's task is suspended.
    ///
    /// ```swift
    /// let repository = try await Repository<User>.open(
    ///     database: try SQLiteDatabase(path: "users.sqlite"), remote: server)
    /// ```
    ///
    /// - Parameters:
    ///   - database: The SQLite database of the cache.
    ///   - remote: The server.
    ///   - configuration: Page size, retries, malformed records, conflicts.
    /// - Returns: The repository, its tables ready.
    /// - Throws: `DeclarationError` for a mistake in the model's table declaration, the configuration or
    ///   the remote's declaration, before anything is written; `SQLiteError` or `SchemaMismatchError` if
    ///   the table cannot be brought up to date; `CancellationError` if the task is cancelled first.
    public static func open(
        database: SQLiteDatabase, remote: some RemoteSource<Model>, configuration: SyncConfiguration<Model> = .init()
    ) async throws -> Repository {
        let repository = try Repository(unprepared: database, remote: remote, configuration: configuration)
        let schema = repository.table.schema
        try await database.write { db in try schema.prepare(db) }
        return repository
    }

    /// A repository whose tables are not prepared yet: both openers prepare them next.
    ///
    /// - Throws: `DeclarationError`, before the repository registers its table with the database.
    private init(
        unprepared database: SQLiteDatabase, remote: some RemoteSource<Model>, configuration: SyncConfiguration<Model>
    ) throws(DeclarationError) {
        table = try SyncTable(database: database, remote: remote, configuration: configuration)
        database.tableRegistry.register(self)
    }

    // MARK: - Queries

    /// Cached models matching a predicate, sorted and limited, in one SQL query.
    ///
    /// ```swift
    /// let users = try await repository.fetch(
    ///     where: #Predicate { $0.isActive && $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 10)
    /// ```
    ///
    /// The query runs on one of the database's readers, concurrently with a running sync, and sees
    /// the cache as of the last committed page.
    ///
    /// - Parameters:
    ///   - predicate: The filter, or `nil` for every model.
    ///   - sortDescriptors: The order.
    ///   - limit: The most models returned.
    /// - Throws: `QueryTranslationError` for a predicate SQL cannot express, `SQLiteError`.
    /// - Complexity: What SQLite needs for the query, plus O(n) in the models returned.
    public nonisolated func fetch(
        where predicate: Predicate<Model>? = nil, sortedBy sortDescriptors: [SortDescriptor<Model>] = [],
        limit: Int? = nil
    ) async throws -> [Model] {
        try await database.read { try $0.fetch(Model.self, where: predicate, sortedBy: sortDescriptors, limit: limit) }
    }

    /// The cached model with `id`, or `nil`.
    ///
    /// ```swift
    /// let user = try await repository.fetch(id: 42)
    /// ```
    ///
    /// - Throws: `SQLiteError`.
    public nonisolated func fetch(id: Model.ID) async throws -> Model? {
        try await database.read { try $0.fetch(Model.self, id: id) }
    }

    /// The number of cached models matching a predicate (all of them for `nil`).
    ///
    /// ```swift
    /// let active = try await repository.count(where: #Predicate { $0.isActive })
    /// ```
    ///
    /// - Throws: `QueryTranslationError`, `SQLiteError`.
    public nonisolated func count(where predicate: Predicate<Model>? = nil) async throws -> Int {
        try await database.read { db in
            if let predicate { return try db.count(Model.self, where: predicate) }
            return try db.count(Model.self)
        }
    }

    /// The number of local changes waiting to be pushed.
    ///
    /// ```swift
    /// if try await repository.pendingChangeCount() > 0 { try await repository.sync() }
    /// ```
    ///
    /// - Throws: `SQLiteError`.
    public nonisolated func pendingChangeCount() async throws -> Int {
        let state = table.state
        return try await database.read { try state.pendingCount($0) }
    }

    /// The cursor of the last applied page, or `nil` before the first sync.
    ///
    /// - Throws: `SQLiteError`.
    public nonisolated func cursor() async throws -> SyncCursor? {
        let state = table.state
        return try await database.read { try state.cursor($0) }
    }

    // MARK: - Local edits

    /// Writes `model` to the cache and queues it for the next push, in one transaction.
    ///
    /// Writes made directly through the database queue their records the same way (see
    /// docs/sync.md, "Direct writes"); `save` is the typed way to do it.
    ///
    /// ```swift
    /// var user = try await repository.fetch(id: 42)!
    /// user.nickname = "ada"
    /// try await repository.save(user)
    /// ```
    ///
    /// - Throws: `SQLiteError`, or an encoding error; then nothing is written.
    public nonisolated func save(_ model: Model) async throws {
        try await save([model])
    }

    /// Writes `models` to the cache and queues them for the next push, in one transaction.
    ///
    /// - Throws: `SQLiteError`, or an encoding error; then nothing is written.
    /// - Complexity: O(n).
    public nonisolated func save(_ models: [Model]) async throws {
        // The table's capture triggers queue each row in the same transaction.
        try await database.write { db in try db.upsert(models) }
    }

    /// Removes the model with `id` from the cache and queues the deletion for the next push, in one
    /// transaction.
    ///
    /// ```swift
    /// try await repository.delete(id: 42)
    /// ```
    ///
    /// - Throws: `SQLiteError`; then nothing is written.
    public nonisolated func delete(id: Model.ID) async throws {
        // The table's capture triggers queue the deletion in the same transaction.
        try await database.write { db in _ = try db.delete(Model.self, id: id) }
    }

    // MARK: - Progress

    /// A stream of the progress of every sync from now on; it ends when the repository is released.
    ///
    /// ```swift
    /// let progress = repository.progressUpdates()
    /// Task { for await event in progress { print(event) } }
    /// ```
    public nonisolated func progressUpdates() -> AsyncStream<SyncProgress<Model.ID>> {
        table.broadcaster.makeStream()
    }
}

extension Repository: EngineTableOwner {
    nonisolated var engineTable: any EngineTable { table }
}
