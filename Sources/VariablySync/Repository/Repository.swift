public import Foundation
import VariablyCodable
public import VariablySQLite

/// A model's local cache in SQLite, kept in sync with a server.
///
/// Pull pages of server changes into the cache with ``sync()``, query the cache with `#Predicate`,
/// and edit it with ``save(_:)`` and ``delete(id:)``: each edit is queued in the same transaction and
/// pushed by the next sync.
///
/// ```swift
/// let database = try SQLiteDatabase(path: "users.sqlite")
/// let repository = try Repository<User>(database: database, remote: server)
/// let report = try await repository.sync()
/// let adults = try repository.fetch(where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 10)
/// try await repository.save(edited)
/// ```
///
/// Syncs are serialized (a second ``sync()`` while one runs waits for it and returns its report);
/// queries and edits do not wait for a sync: reads see the cache as of the last committed page.
public actor Repository<Model: SQLiteStorable & Identifiable & Sendable> where Model.ID: Codable & Sendable {
    /// The database holding the cache, the cursor and the queue of local changes.
    public nonisolated let database: SQLiteDatabase
    /// How syncs run.
    public nonisolated let configuration: SyncConfiguration<Model>

    let remote: any RemoteSource<Model>
    let state: SyncStateStore
    let broadcaster = ProgressBroadcaster()
    let recordDecoder = JSONDecoder(source: .remote)
    let recordEncoder = JSONEncoder(source: .remote)
    var random: SplitMix64
    var running: Task<SyncReport, any Error>?

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
    public internal(set) var lastReport: SyncReport?

    /// Opens a repository: creates or migrates the model's table (see `Database.migrate(_:)`) and the
    /// sync tables, which keep the cursor and the queue of local changes across restarts.
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
    /// - Throws: `SQLiteError` or `SchemaMismatchError` if the table cannot be brought up to date.
    public init(
        database: SQLiteDatabase, remote: some RemoteSource<Model>, configuration: SyncConfiguration<Model> = .init()
    ) throws {
        self.database = database
        self.remote = remote
        self.configuration = configuration
        self.state = SyncStateStore(table: Model.sqliteTable.name)
        self.random = SplitMix64(seed: configuration.retryPolicy.seed ?? UInt64.random(in: .min ... .max))
        try database.write { db in
            try db.migrate(Model.self)
            try SyncStateStore.createOrUpgrade(db)
        }
    }

    // MARK: - Queries

    /// Cached models matching a predicate, sorted and limited, in one SQL query.
    ///
    /// ```swift
    /// let users = try repository.fetch(
    ///     where: #Predicate { $0.isActive && $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 10)
    /// ```
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
    ) throws -> [Model] {
        try database.read { try $0.fetch(Model.self, where: predicate, sortedBy: sortDescriptors, limit: limit) }
    }

    /// The cached model with `id`, or `nil`.
    ///
    /// ```swift
    /// let user = try repository.fetch(id: 42)
    /// ```
    ///
    /// - Throws: `SQLiteError`.
    public nonisolated func fetch(id: Model.ID) throws -> Model? {
        try database.read { try $0.fetch(Model.self, id: id) }
    }

    /// The number of cached models matching a predicate (all of them for `nil`).
    ///
    /// ```swift
    /// let active = try repository.count(where: #Predicate { $0.isActive })
    /// ```
    ///
    /// - Throws: `QueryTranslationError`, `SQLiteError`.
    public nonisolated func count(where predicate: Predicate<Model>? = nil) throws -> Int {
        try database.read { db in
            if let predicate { return try db.count(Model.self, where: predicate) }
            return try db.count(Model.self)
        }
    }

    /// The number of local changes waiting to be pushed.
    ///
    /// ```swift
    /// if try repository.pendingChangeCount() > 0 { try await repository.sync() }
    /// ```
    ///
    /// - Throws: `SQLiteError`.
    public nonisolated func pendingChangeCount() throws -> Int {
        try database.read { try state.pendingCount($0) }
    }

    /// The cursor of the last applied page, or `nil` before the first sync.
    ///
    /// - Throws: `SQLiteError`.
    public nonisolated func cursor() throws -> SyncCursor? {
        try database.read { try state.cursor($0) }
    }

    // MARK: - Local edits

    /// Writes `model` to the cache and queues it for the next push, in one transaction.
    ///
    /// ```swift
    /// var user = try repository.fetch(id: 42)!
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
        let ids = try models.map { try Self.text(of: $0.id) }
        try database.write { db in
            try db.upsert(models)
            for id in ids { try state.enqueue(recordID: id, operation: .upsert, db) }
        }
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
        let text = try Self.text(of: id)
        try database.write { db in
            try db.delete(Model.self, id: id)
            try state.enqueue(recordID: text, operation: .delete, db)
        }
    }

    // MARK: - Progress

    /// A stream of the progress of every sync from now on; it ends when the repository is released.
    ///
    /// ```swift
    /// let progress = repository.progressUpdates()
    /// Task { for await event in progress { print(event) } }
    /// ```
    public nonisolated func progressUpdates() -> AsyncStream<SyncProgress> {
        broadcaster.makeStream()
    }

    // MARK: - Ids as text

    /// The id as JSON text: `42`, `"E621E1F8-..."`; how ids are kept in the queue of local changes.
    static func text(of id: Model.ID) throws -> String {
        String(decoding: try JSONEncoder().encode(id), as: UTF8.self)
    }

    static func id(fromText text: String) throws -> Model.ID {
        try JSONDecoder().decode(Model.ID.self, from: Data(text.utf8))
    }
}
