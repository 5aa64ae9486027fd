import Foundation
public import VariablyCodable
public import VariablySQLite

/// Repositories of related models on one database, synced as one graph: local changes are pushed in
/// the order of the local transactions that made them, and within one in the order of their tables'
/// references (creates and updates parents first, deletions children first); then each table is
/// pulled, parents first.
///
/// ```swift
/// let store = try SyncStore(users, posts, comments)   // Repository<User>, Repository<Post>, Repository<Comment>
/// let report = try await store.sync()
/// print(report.for(Post.self)?.held ?? [])        // posts waiting for a user the server refused
/// ```
///
/// References are declared once, on the tables (`SQLiteTable(…, [.references(\.authorID, User.self)])`):
/// they are deferred foreign keys in SQLite, and a record that references one the server does not have
/// yet is held until that one's create is accepted, in the same sync when the parent comes first. A
/// server-assigned id replaces a provisional one in the children's rows in the same transaction
/// (`ON UPDATE CASCADE`). Each repository stays usable on its own; a ``Repository`` synced alone is
/// the one-table case of the same engine, and holds its records the same way.
///
/// A store's sync is one run of the engine over its tables: one task, one progress stream
/// (``progressUpdates()``, `.started` … `.finished` once), one report. It pulls each table in its own
/// transactions, parents first, through the same pull loop and `PullEngine` as a lone repository: a
/// record whose parent is not in the cache (written on the server after its table was pulled, served
/// before it, or deleted there) is parked, never shown, and applied when its parent arrives or settled
/// by the reference's rule; no pull fails on a foreign key.
public actor SyncStore {
    /// One repository's table, and the repository, kept alive with the store: its table stays
    /// registered on the database while the store can run it.
    struct Member: Sendable {
        let table: any EngineTable
        let owner: any Actor
    }

    /// The store's tables in push order: each after the tables it references.
    let members: [Member]
    /// Where a pull reads every table's changes at once, or `nil` to pull each repository's own source.
    let feed: (any RemoteChangeFeed)?
    /// How the feed is pulled.
    let feedConfiguration: ChangeFeedConfiguration
    /// Draws the retries' jitter.
    var random: SplitMix64
    let broadcaster = ProgressBroadcaster<SyncStoreProgress>()
    /// The sync, resync or removal running now; every other call joins it or waits for it.
    var running: RunningSync<SyncStoreReport>?

    /// The report of the last sync, also when it failed: then each table's ``SyncReport/isComplete``
    /// is `false` and the report says what was done before the failure, which stays done.
    ///
    /// ```swift
    /// let partial = await store.lastReport
    /// ```
    public internal(set) var lastReport: SyncStoreReport?

    /// A store of `repositories`, on one database, in any order: the order of the sync comes from
    /// their tables' references.
    ///
    /// ```swift
    /// let store = try SyncStore(users, posts, comments)
    /// ```
    ///
    /// - Parameter repositories: One repository per model, all on the same database.
    /// - Throws: `DeclarationError` when there is no repository or the repositories are on several
    ///   databases.
    public init<each Model: SQLiteStorable & Identifiable & Sendable>(
        _ repositories: repeat Repository<each Model>
    ) throws(DeclarationError) {
        var members: [Member] = []
        for repository in repeat each repositories {
            members.append(Member(table: repository.table, owner: repository))
        }
        try self.init(members: members, feed: nil, configuration: ChangeFeedConfiguration())
    }

    /// A store of `repositories` that pulls every table from one `feed`, in batches: each applied
    /// with all its tables and the feed's cursor in one transaction, so that no reader ever sees half
    /// of one, or a child without its parent. Pushes still go to each repository's own source.
    ///
    /// ```swift
    /// let feed = HTTPRemoteFeed(baseURL: URL(string: "https://api.example.com/v1")!, api: .changeFeed)
    /// let store = try SyncStore(users, posts, comments, feed: feed)
    /// try await store.sync()
    /// ```
    ///
    /// - Parameters:
    ///   - repositories: One repository per model, all on the same database.
    ///   - feed: The server's changes to every table, in its order.
    ///   - configuration: Page and batch sizes, retries.
    /// - Throws: `DeclarationError` when there is no repository, the repositories are on several
    ///   databases, a size or the retry policy of `configuration` is out of range, or the feed's
    ///   declaration has a mistake (an ``HTTPRemoteFeed`` whose records path does not name the table).
    public init<each Model: SQLiteStorable & Identifiable & Sendable>(
        _ repositories: repeat Repository<each Model>, feed: some RemoteChangeFeed,
        configuration: ChangeFeedConfiguration = ChangeFeedConfiguration()
    ) throws(DeclarationError) {
        var members: [Member] = []
        for repository in repeat each repositories {
            members.append(Member(table: repository.table, owner: repository))
        }
        try self.init(members: members, feed: feed, configuration: configuration)
    }

    private init(
        members: [Member], feed: (any RemoteChangeFeed)?, configuration: ChangeFeedConfiguration
    ) throws(DeclarationError) {
        try Self.checkDeclaration(members: members, feed: feed, configuration: configuration)
        let ordered = EngineTables.ordered(members.map(\.table))
        self.members = ordered.map { table in members.first { $0.table.name == table.name }! }
        self.feed = feed
        self.feedConfiguration = configuration
        self.random = SplitMix64(seed: configuration.retryPolicy.seed ?? UInt64.random(in: .min ... .max))
    }

    /// Throws the first mistake in what the store is made of.
    private static func checkDeclaration(
        members: [Member], feed: (any RemoteChangeFeed)?, configuration: ChangeFeedConfiguration
    ) throws(DeclarationError) {
        guard !members.isEmpty else {
            throw DeclarationError(
                .noRepositories, modelType: "SyncStore", fix: "give the store at least one repository")
        }
        // The foreign keys and batches span the tables of one database.
        guard Set(members.map { ObjectIdentifier($0.table.database) }).count == 1 else {
            throw DeclarationError(
                .repositoriesOnSeveralDatabases, modelType: "SyncStore",
                fix: "open every repository of the store on the same SQLiteDatabase")
        }
        guard let feed else { return }
        try configuration.checkDeclaration()
        try (feed as? any DeclaredRemote)?.checkDeclaration()
    }

    /// Pushes every repository's local changes in dependency order, then pulls every table, parents
    /// first.
    ///
    /// ```swift
    /// let report = try await store.sync()
    /// if let posts = report.for(Post.self) { print(posts) }
    /// ```
    ///
    /// - Returns: One report per model.
    /// - Throws: The first error of a table's push or pull; what was pushed or pulled before it stays
    ///   done, and ``lastReport`` tells what each table's part did.
    /// - Complexity: The sum of the tables' pushes and pulls.
    @discardableResult
    public func sync() async throws -> SyncStoreReport {
        if let running { return try await running.join() }
        return try await start(.pull)
    }

    /// Pushes as ``sync()`` does, then pulls every table from the beginning, parents first, and removes
    /// the cached records the server no longer has, each table within what `deletions` allows; their
    /// children go by their references' rules (`CASCADE`, `SET NULL`) in the same transaction. A store
    /// that pulls one feed pulls it from its beginning, which removes only what the feed lists as
    /// deleted: ``removeDeletedRecords(allowingDeletionOf:)`` removes the rest where the sources list
    /// their ids.
    ///
    /// ```swift
    /// let report = try await store.resync()
    /// print(report.for(Post.self)?.deleted ?? 0)
    /// ```
    ///
    /// - Parameter deletions: How much of each table the resync may remove; by default anything but
    ///   every row of a non-empty table (an empty answer is not taken for an empty server).
    /// - Returns: One report per model.
    /// - Throws: As ``sync()``; ``SyncError/resyncWouldDelete(table:rows:of:)`` beyond `deletions`, the
    ///   tables before it resynced, that one and the rest unchanged.
    @discardableResult
    public func resync(allowingDeletionOf deletions: ResyncDeletions = .allButEveryRow) async throws
        -> SyncStoreReport
    {
        while let running {
            if running.isResync { return try await running.join() }
            _ = try? await running.task.value
        }
        return try await start(.pullFromStart(deletions))
    }

    /// Removes the cached records the server no longer has from every table, parents first (see
    /// ``Repository/removeDeletedRecords(allowingDeletionOf:)``): each repository's source lists its
    /// ids, and a parent's removal takes or empties its children by their references' rules.
    ///
    /// ```swift
    /// let report = try await store.removeDeletedRecords()
    /// ```
    ///
    /// - Parameter deletions: How much of each table may be removed.
    /// - Returns: One report per model.
    /// - Throws: The first repository's error; the tables before it stay done.
    @discardableResult
    public func removeDeletedRecords(allowingDeletionOf deletions: ResyncDeletions = .allButEveryRow)
        async throws -> SyncStoreReport
    {
        while let running { _ = try? await running.task.value }
        return try await start(.removeDeleted(deletions))
    }

    /// Every local change of the store's tables not yet accepted by the server, parents' tables first,
    /// each with where it stands (see ``UnsentChange``).
    ///
    /// ```swift
    /// let unsent = try await store.unsentChanges()
    /// print(unsent.filter { $0.table == "posts" }.count)
    /// ```
    ///
    /// - Throws: `SQLiteError`.
    public nonisolated func unsentChanges() async throws -> [UnsentChange] {
        let tables = members.map(\.table)
        return try await database.read { db in try tables.flatMap { try $0.unsentChanges(db) } }
    }

    /// ``unsentChanges()`` now and after every change to the queue.
    ///
    /// ```swift
    /// for try await unsent in store.observeUnsentChanges() { badge.count = unsent.count }
    /// ```
    ///
    /// - Returns: An asynchronous sequence of lists; it ends when the consuming task is cancelled.
    public nonisolated func observeUnsentChanges() -> AsyncThrowingStream<[UnsentChange], any Error> {
        let tables = members.map(\.table)
        return database.observe(tables: ["variably_pending_changes"]) { db in
            try tables.flatMap { try $0.unsentChanges(db) }
        }
    }

    /// A stream of the progress of every sync of the store from now on: `.started` … `.finished` (or
    /// `.failed`) once per sync; it ends when the store is released.
    ///
    /// ```swift
    /// let progress = await store.progressUpdates()
    /// Task { for await event in progress { print(event) } }
    /// ```
    public nonisolated func progressUpdates() -> AsyncStream<SyncStoreProgress> {
        broadcaster.makeStream()
    }

    /// The database of the store's tables.
    nonisolated var database: SQLiteDatabase { members[0].table.database }
}
