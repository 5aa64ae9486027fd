import Foundation
import VariablyCodable
import VariablySQLite

/// One synced table, typed by its model: what the engine needs to pull it, push its queue and settle
/// the server's answers, as values. A ``Repository`` is a face over one; a ``SyncStore`` runs several on
/// one database.
///
/// It holds no mutable state of its own but what its copies share by reference (the retries' jitter,
/// the progress stream, the run's tally), so that a copy runs off any actor: a pull's prefetch task, a
/// push's answer settled as it arrives.
struct SyncTable<Model: SQLiteStorable & Identifiable & Sendable>: Sendable where Model.ID: Codable & Sendable {
    /// The database holding the cache, the cursor and the queue of local changes.
    let database: SQLiteDatabase
    /// How syncs run.
    let configuration: SyncConfiguration<Model>
    let remote: any RemoteSource<Model>
    let state: SyncStateStore
    /// The tables and triggers the table needs, written when it opens.
    let schema: Schema
    /// The model's primary key, resolved once: the identity of records in SQL, in the queue of local
    /// changes and in the server's JSON.
    let primaryKey: PrimaryKey<Model>
    /// The `.sqlite` key set entries a pull overwrites; the others are local-only columns.
    let pulledEntries: [Int]
    /// Where pulled records carry the version their writes are conditional on, and the text their
    /// kept versions start with; `nil` for sources without record versions.
    let recordVersions: RecordVersions?
    /// Reads the form the server writes the model's dates in, from each page pulled.
    let dateObserver = ServerDateObserver(Model.self)
    let broadcaster = ProgressBroadcaster<SyncProgress<Model.ID>>()
    /// What the table's current run did so far.
    let tally = RunTally<Model.ID>()
    let recordDecoder = JSONDecoder(source: .remote)
    /// Draws the retries' jitter, reproducibly when ``RetryPolicy/seed`` is set.
    let jitter: JitterSource

    /// Where a source's records carry their versions.
    struct RecordVersions: Sendable {
        /// The member of each record that holds its version.
        let field: String
        /// The text the kept versions start with.
        let prefix: String
    }

    /// The table of `Model` on `database`, its declaration checked; nothing is written yet (see
    /// ``Schema/prepare(_:)``).
    ///
    /// - Throws: `DeclarationError` for a mistake in the model's table declaration, the configuration or
    ///   the remote's declaration.
    init(
        database: SQLiteDatabase, remote: some RemoteSource<Model>, configuration: SyncConfiguration<Model>
    ) throws(DeclarationError) {
        let primaryKey = try PrimaryKey<Model>()
        try Self.checkDeclaration(primaryKey: primaryKey, configuration: configuration, remote: remote)
        self.database = database
        self.remote = remote
        self.configuration = configuration
        self.primaryKey = primaryKey
        self.pulledEntries = primaryKey.entries(sharedWith: .remote)
        self.state = SyncStateStore(table: primaryKey.table)
        self.jitter = JitterSource(seed: configuration.retryPolicy.seed ?? UInt64.random(in: .min ... .max))
        // A deletion carries the version the client last saw when the source makes deletions conditional.
        var deletionVersion: SyncStateStore.DeletionVersion?
        let versioned = remote as? any RecordVersionedSource
        let recordVersions = versioned.flatMap { source in
            source.recordVersionField.map { RecordVersions(field: $0, prefix: source.deletionBasePrefix) }
        }
        self.recordVersions = recordVersions
        if let versioned, let field = versioned.deletionVersionField,
            let column = primaryKey.quotedColumn(forTopLevelKey: field, in: .remote)
        {
            deletionVersion = SyncStateStore.DeletionVersion(quotedColumn: column, prefix: versioned.deletionBasePrefix)
        }
        self.schema = Schema(
            state: state, primaryKeyColumn: primaryKey.quotedColumn, columns: primaryKey.columnNames,
            deletionVersion: deletionVersion, keepsPreEditRows: recordVersions != nil,
            basesChangesOnCursor: versioned?.basesChangesOnCursor ?? true)
    }

    /// Throws the first mistake in what the table is opened with: the primary key's type, the
    /// configuration's sizes and retries, the remote's settings and API shape.
    private static func checkDeclaration(
        primaryKey: PrimaryKey<Model>, configuration: SyncConfiguration<Model>, remote: some RemoteSource<Model>
    ) throws(DeclarationError) {
        // A synced table names records by their id.
        guard type(of: primaryKey.keyPath as AnyKeyPath).valueType == Model.ID.self else {
            throw DeclarationError(
                .primaryKeyIsNotID(idType: "\(Model.ID.self)"), model: Model.self, keyPath: primaryKey.keyPath,
                fix: "declare `SQLiteTable(_:primaryKey:)` with the property that `id` returns")
        }
        // The sync state keeps ids as their exact JSON text, which a floating-point or bytes key has not.
        let sqlType = primaryKey.columnSQLType
        guard sqlType == "INTEGER" || sqlType == "TEXT" else {
            throw DeclarationError(
                .unsyncablePrimaryKey(sqlType: sqlType), model: Model.self, keyPath: primaryKey.keyPath,
                fix: "give the model an id stored as an integer or text (Int64, String, UUID, or a raw value of one)")
        }
        // The remote key set reads every page: a key it dropped, or a modifier left out, would lose a value.
        for problem in Model.keySets.problems where problem.source == .remote {
            switch problem.kind {
            case .emptyKey, .duplicateKeyPath, .optionDoesNotFit, .underivableKey:
                throw DeclarationError(problem, model: Model.self)
            default: continue
            }
        }
        try configuration.checkDeclaration()
        try (remote as? any DeclaredRemote)?.checkDeclaration()
    }

    /// What opening a table writes: the model's table, the sync tables and the capture triggers.
    struct Schema: Sendable {
        let state: SyncStateStore
        let primaryKeyColumn: String
        let columns: [String]
        let deletionVersion: SyncStateStore.DeletionVersion?
        /// Whether the first queued edit of a record with no version kept keeps its row as it was.
        let keepsPreEditRows: Bool
        /// Whether a change of a record with no version kept is based on the table's cursor.
        let basesChangesOnCursor: Bool

        func prepare(_ db: Database) throws {
            try db.migrate(Model.self)
            try SyncStateStore.createOrUpgrade(db)
            try state.installCapture(
                primaryKeyColumn: primaryKeyColumn, columns: columns, deletionVersion: deletionVersion,
                keepsPreEditRows: keepsPreEditRows, basesChangesOnCursor: basesChangesOnCursor, db)
        }
    }

    /// How this table applies pulled records.
    var pageApplier: PageApplier<Model> {
        PageApplier(state: state, pulledEntries: pulledEntries, versionPrefix: recordVersions?.prefix)
    }
}

/// The seeded generator of a table's retry jitter, shared by the copies of its ``SyncTable``.
///
/// `@unchecked Sendable`: `generator` is only touched while `lock` is held.
final class JitterSource: @unchecked Sendable {
    private let lock = NSLock()
    private var generator: SplitMix64

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    /// The next seed drawn, for a generator of one fetch or push.
    func next() -> UInt64 {
        lock.withLock { generator.next() }
    }
}
