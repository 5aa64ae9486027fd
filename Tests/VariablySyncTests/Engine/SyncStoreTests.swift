import Foundation
import Testing
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Writers, essays and remarks synced as one graph: pushes follow the references, a refused parent
/// holds its children, and a server-assigned id reaches the children before they are sent.
@Suite struct SyncStoreTests {
    struct Fixture {
        let database: SQLiteDatabase
        let log = PushLog()
        let writers: Repository<Writer>
        let essays: Repository<Essay>
        let remarks: Repository<Remark>
        let writerServer: SimulatedServer<Writer>
        let essayServer: SimulatedServer<Essay>
        let remarkServer: SimulatedServer<Remark>
        let store: SyncStore

        /// One writer (1) with one essay (10) and one remark (100) on both sides; writers named
        /// "refused" are refused by the server.
        init(numbering: LoggingRemote<Writer>.Numbering? = nil) async throws {
            database = try SQLiteDatabase.inMemory()
            writerServer = try SimulatedServer(records: [Writer(id: 1, name: "ada")], seed: 1) {
                $0.name == "refused" ? "this name is refused" : nil
            }
            essayServer = try SimulatedServer(records: [Essay(id: 10, writerID: 1, title: "first")], seed: 2)
            remarkServer = try SimulatedServer(records: [Remark(id: 100, essayID: 10, text: "nice")], seed: 3)
            let configuration = SyncConfiguration<Writer>(retryPolicy: quickRetries)
            writers = try Repository(
                database: database, remote: LoggingRemote(writerServer, log: log, table: "writers", numbering: numbering),
                configuration: configuration)
            essays = try Repository(
                database: database, remote: LoggingRemote(essayServer, log: log, table: "essays"),
                configuration: SyncConfiguration(retryPolicy: quickRetries))
            remarks = try Repository(
                database: database, remote: LoggingRemote(remarkServer, log: log, table: "remarks"),
                configuration: SyncConfiguration(retryPolicy: quickRetries))
            // Given children first: the store orders them.
            store = SyncStore(remarks, essays, writers)
            try await store.sync()
        }
    }

    @Test func savesGoParentsFirstAndDeletionsChildrenFirst() async throws {
        let fixture = try await Fixture()
        // Written children first, in one transaction: the references are checked when it commits.
        try await fixture.database.write { db in
            try db.upsert([Remark(id: 200, essayID: 20, text: "reply"), Remark(id: 201, essayID: 20, replyTo: 200, text: "re")])
            try db.upsert(Essay(id: 20, writerID: 2, title: "second"))
            try db.upsert(Writer(id: 2, name: "grace"))
        }
        // Deleting the first essay deletes its remark too (cascade): both deletions are queued.
        try await fixture.essays.delete(id: 10)
        #expect(try await fixture.remarks.fetch(id: 100) == nil)

        let report = try await fixture.store.sync()
        let log = await fixture.log.entries
        #expect(
            log == [
                "writers save 2", "essays save 20", "remarks save 200", "remarks save 201", "remarks delete 100",
                "essays delete 10",
            ])
        #expect(report.for(Writer.self)?.pushed == 1)
        #expect(report.for(Essay.self)?.pushed == 2)
        #expect(report.for(Remark.self)?.pushed == 3)
        #expect(await fixture.remarkServer.record(id: 201)?.replyTo == 200)
        #expect(await fixture.essayServer.record(id: 10) == nil)
        #expect(await fixture.remarkServer.record(id: 100) == nil)
        #expect(try await fixture.remarks.pendingChangeCount() == 0)
    }

    /// A writer the server refuses holds its essay, and the essay its remark: neither is sent nor
    /// deleted, both are reported with the writer's refusal, and they go once the writer is fixed.
    @Test func aRefusedParentHoldsItsChildren() async throws {
        let fixture = try await Fixture()
        try await fixture.database.write { db in
            try db.upsert(Writer(id: 3, name: "refused"))
            try db.upsert(Essay(id: 30, writerID: 3, title: "held"))
            try db.upsert(Remark(id: 300, essayID: 30, text: "held too"))
        }
        let report = try await fixture.store.sync()
        #expect(report.for(Writer.self)?.rejected.map(\.reason) == ["this name is refused"])
        let held = try #require(report.for(Essay.self)?.held.first)
        #expect(held.id == 30)
        #expect(held.reason == "held: it references store_writers 3, which the server refused: this name is refused")
        #expect(report.for(Remark.self)?.held.map(\.id) == [300])
        #expect(await fixture.log.entries == ["writers save 3"])
        #expect(try await fixture.essays.fetch(id: 30) != nil)
        #expect(try await fixture.remarks.pendingChangeCount() == 1)

        try await fixture.writers.save(Writer(id: 3, name: "fixed"))
        let fixed = try await fixture.store.sync()
        #expect(fixed.for(Essay.self)?.held.isEmpty == true)
        #expect(await fixture.log.entries == ["writers save 3", "writers save 3", "essays save 30", "remarks save 300"])
        #expect(await fixture.remarkServer.record(id: 300)?.text == "held too")
    }

    /// The server wins a conflict over a writer whose favourite essay was deleted here, that deletion
    /// still to push: the writer's copy comes back with its favourite emptied (what the deletion does
    /// there too), and the writer's other essays stay: dropping the writer would have taken them with it.
    @Test func aServerCopyReferencingARecordDeletedHereKeepsTheOtherChildren() async throws {
        let database = try SQLiteDatabase.inMemory()
        let writerServer = try SimulatedServer(records: [Writer(id: 1, name: "ada")], seed: 1)
        let essayServer = try SimulatedServer(
            records: [Essay(id: 10, writerID: 1, title: "first"), Essay(id: 11, writerID: 1, title: "favourite")], seed: 2)
        let remarkServer = try SimulatedServer(records: [Remark(id: 100, essayID: 10, text: "nice")], seed: 3)
        // The servers' own foreign keys: the essay's deletion empties the writer's favourite there.
        let cascade = ServerCascade(writers: writerServer, essays: essayServer, remarks: remarkServer)
        let configuration = SyncConfiguration<Writer>(retryPolicy: quickRetries)
        let writers = try Repository(database: database, remote: CascadingRemote(writerServer, cascade: cascade), configuration: configuration)
        let essays = try Repository(database: database, remote: CascadingRemote(essayServer, cascade: cascade))
        let remarks = try Repository(database: database, remote: CascadingRemote(remarkServer, cascade: cascade))
        let store = SyncStore(remarks, essays, writers)
        try await store.sync()
        try await writerServer.update(id: 1) { $0.favoriteEssayID = 11 }
        try await store.sync()
        #expect(try await writers.fetch(id: 1)?.favoriteEssayID == 11)

        try await writers.save(Writer(id: 1, name: "edited here", favoriteEssayID: 11))
        try await essays.delete(id: 11)
        try await writerServer.update(id: 1) { $0.name = "renamed there" }
        let report = try await store.sync()
        #expect(report.for(Writer.self)?.conflicts.map(\.resolution) == [.keptServer])
        #expect(try await writers.fetch(id: 1) == Writer(id: 1, name: "renamed there"))
        #expect(try await essays.fetch(id: 10)?.title == "first")
        #expect(try await remarks.fetch(id: 100) != nil)
        #expect(await essayServer.record(id: 11) == nil)
        #expect(Set(try await writers.fetch()) == Set(await writerServer.allRecords()))
        #expect(Set(try await essays.fetch()) == Set(await essayServer.allRecords()))
    }

    /// Another client writes a writer and its essay after this sync pulled the writers and before it
    /// pulls the essays: the essay's page is refused (no orphan is ever committed), the writers are
    /// pulled again, then the essays.
    @Test func aChildPulledBeforeItsParentWaitsForIt() async throws {
        let database = try SQLiteDatabase.inMemory()
        let log = PushLog()
        let writerServer = try SimulatedServer(records: [Writer(id: 1, name: "ada")], seed: 1)
        let essayServer = try SimulatedServer(records: [Essay(id: 10, writerID: 1, title: "first")], seed: 2)
        let raced = Once()
        let writers = try Repository(
            database: database, remote: LoggingRemote(writerServer, log: log, table: "writers"),
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        let essays = try Repository(
            database: database,
            remote: LoggingRemote(essayServer, log: log, table: "essays") {
                guard await raced.first() else { return }
                _ = try await writerServer.upsert(Writer(id: 7, name: "late"))
                _ = try await essayServer.upsert(Essay(id: 70, writerID: 7, title: "by a late writer"))
            },
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        let store = SyncStore(essays, writers)
        let report = try await store.sync()
        #expect(try await essays.fetch(id: 70)?.writerID == 7)
        #expect(try await writers.fetch(id: 7)?.name == "late")
        #expect(report.for(Essay.self)?.waitingForParents == 0)
        try await expectNoBrokenReferences(database)
        // Synced alone, a child whose parent the server does not have (a server without foreign keys)
        // is parked, unseen, and the cursor moves on; the look-up of its parent answers "none", and the
        // reference's rule (`.cascade`) settles it: not kept.
        _ = try await essayServer.upsert(Essay(id: 71, writerID: 8, title: "orphan on the server"))
        _ = try await essayServer.upsert(Essay(id: 72, writerID: 1, title: "after the orphan"))
        let alone = try await essays.sync()
        #expect(alone.waitingForParents == 0)
        #expect(try await essays.fetch(id: 71) == nil)
        #expect(try await essays.fetch(id: 72)?.title == "after the orphan")
        try await expectNoBrokenReferences(database)
    }

    /// docs/relationships.md, "Syncing the graph", on a file in a temporary folder.
    @Test func theRelationshipsPageExample() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let databasePath = folder.appendingPathComponent("blog.sqlite").path
        let writersRemote = try SimulatedServer(records: [Writer(id: 1, name: "ada")])
        let essaysRemote = try SimulatedServer(records: [Essay(id: 10, writerID: 1, title: "first")])
        let remarksRemote = try SimulatedServer(records: [Remark(id: 100, essayID: 10, text: "nice")])

        let database = try SQLiteDatabase(path: databasePath)
        let writers = try Repository<Writer>(database: database, remote: writersRemote)
        let essays = try Repository<Essay>(database: database, remote: essaysRemote)
        let remarks = try Repository<Remark>(database: database, remote: remarksRemote)
        let store = SyncStore(remarks, essays, writers)   // any order: the references give it
        let report = try await store.sync()
        print(report.for(Essay.self)?.held ?? [])

        #expect(report.for(Remark.self)?.inserted == 1)
        #expect(try await remarks.fetch(id: 100)?.essayID == 10)
    }

    /// A writer and an essay created offline that reference each other: the writer is created with its
    /// favourite empty, then the essay, then the writer's favourite is set.
    @Test func aCycleThroughAnOptionalReferenceIsCreatedEmptyThenCompleted() async throws {
        let fixture = try await Fixture()
        try await fixture.database.write { db in
            try db.upsert(Writer(id: 5, name: "cyclic", favoriteEssayID: 50))
            try db.upsert(Essay(id: 50, writerID: 5, title: "favourite"))
        }
        let report = try await fixture.store.sync()
        #expect(await fixture.log.entries == ["writers save 5", "essays save 50", "writers save 5"])
        #expect(report.for(Writer.self)?.held.isEmpty == true)
        #expect(report.for(Essay.self)?.held.isEmpty == true)
        #expect(await fixture.writerServer.record(id: 5)?.favoriteEssayID == 50)
        #expect(await fixture.essayServer.record(id: 50)?.writerID == 5)
        #expect(try await fixture.writers.pendingChangeCount() == 0)
        #expect(try await fixture.writers.fetch(id: 5)?.favoriteEssayID == 50)
    }

    /// The server deletes an essay (and its remarks, as declared): the pull's deletion cascades to the
    /// cached remarks, and nothing of it is pushed back.
    @Test func aServerDeletionCascadesHereWithoutBeingPushedBack() async throws {
        let fixture = try await Fixture()
        await fixture.essayServer.delete(id: 10)
        await fixture.remarkServer.delete(id: 100)
        try await fixture.essays.sync()
        #expect(try await fixture.remarks.fetch(id: 100) == nil)
        #expect(try await fixture.remarks.pendingChangeCount() == 0)
        try await fixture.store.sync()
        #expect(await fixture.log.entries.isEmpty)
    }

    /// A remark edited here whose essay the server deleted, pulled first: the cascade removed it, and
    /// its queued edit is reported as a conflict the server won, not dropped silently.
    @Test func anEditCascadedAwayByAPulledDeletionIsReported() async throws {
        let fixture = try await Fixture()
        try await fixture.remarks.save(Remark(id: 100, essayID: 10, text: "edited here"))
        await fixture.essayServer.delete(id: 10)
        try await fixture.essays.sync()
        #expect(try await fixture.remarks.fetch(id: 100) == nil)
        let report = try await fixture.remarks.sync()
        #expect(report.conflicts.map(\.id) == [100])
        #expect(report.conflicts.first?.resolution == .keptServer)
        #expect(try await fixture.remarks.pendingChangeCount() == 0)
    }

    /// Essays with their remarks in one snapshot, through the declared reference.
    @Test func essaysComeWithTheirRemarks() async throws {
        let fixture = try await Fixture()
        try await fixture.database.write { db in
            try db.upsert(Essay(id: 11, writerID: 1, title: "second"))
            try db.upsert([Remark(id: 103, essayID: 10, text: "c"), Remark(id: 102, essayID: 10, replyTo: 103, text: "b")])
        }
        let essays = fixture.essays
        let feed = try await essays.fetch(
            where: #Predicate { $0.writerID == 1 }, sortedBy: [SortDescriptor(\.id)], including: Remark.self, by: \.essayID)
        for entry in feed { print(entry.parent.title, entry.children.count) }
        #expect(feed.map(\.parent.id) == [10, 11])
        #expect(feed.map { $0.children.map(\.id) } == [[100, 102, 103], []])
        // Through an optional reference: the replies of each remark.
        let threads = try await fixture.remarks.fetch(including: Remark.self, by: \.replyTo)
        #expect(threads.first { $0.parent.id == 103 }?.children.map(\.id) == [102])
    }

    /// An observed feed of essays with their remarks: a new remark on one of them is a new value.
    @Test func anObservedFeedFollowsItsChildren() async throws {
        let fixture = try await Fixture()
        let essays = fixture.essays
        var updates = essays.observe(where: #Predicate { $0.writerID == 1 }, including: Remark.self, by: \.essayID)
            .makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.map { $0.children.map(\.id) } == [[100]])
        try await fixture.remarks.save(Remark(id: 101, essayID: 10, text: "another"))
        let second = try #require(try await updates.next())
        #expect(second.map { $0.children.map(\.id) } == [[100, 101]])
    }

    /// A reply to a remark created in the same sync: the repository alone sends the remark first.
    @Test func aSelfReferenceGoesParentFirstInOneSync() async throws {
        let fixture = try await Fixture()
        try await fixture.database.write { db in
            try db.upsert(Remark(id: 402, essayID: 10, replyTo: 401, text: "second"))
            try db.upsert(Remark(id: 401, essayID: 10, replyTo: 400, text: "first"))
            try db.upsert(Remark(id: 400, essayID: 10, text: "root"))
        }
        let report = try await fixture.remarks.sync()
        #expect(report.pushed == 3)
        #expect(report.held.isEmpty)
        #expect(await fixture.log.entries == ["remarks save 400", "remarks save 401", "remarks save 402"])
    }

    /// A writer created here with a provisional id: the server's id replaces it in the essay before the
    /// essay is sent, and the essay's server copy names the writer by the server's id.
    @Test func aServerAssignedIDReachesTheChildrenBeforeTheyAreSent() async throws {
        let numbering = LoggingRemote<Writer>.Numbering(from: 500)
        let fixture = try await Fixture(numbering: numbering)
        let writer = try await fixture.writers.create { Writer(id: $0, name: "new") }
        #expect(writer.id == -1)
        try await fixture.essays.save(Essay(id: 50, writerID: writer.id, title: "by a new writer"))
        // Synced alone, the essay waits for its writer.
        let alone = try await fixture.essays.sync()
        #expect(alone.held.map(\.id) == [50])
        #expect(alone.held.first?.reason == "held: it references store_writers -1, which the server does not have yet")

        try await fixture.store.sync()
        #expect(await fixture.essayServer.record(id: 50)?.writerID == 500)
        #expect(try await fixture.writers.fetch(id: 500)?.name == "new")
        #expect(try await fixture.writers.fetch(id: -1) == nil)
        #expect(try await fixture.essays.fetch(id: 50)?.writerID == 500)
        #expect(try await fixture.essays.pendingChangeCount() == 0)
        #expect(try await fixture.writers.pendingChangeCount() == 0)
    }
}

/// True the first time only.
actor Once {
    private var isUsed = false

    func first() -> Bool {
        defer { isUsed = true }
        return !isUsed
    }
}
