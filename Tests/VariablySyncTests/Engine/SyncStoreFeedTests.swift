import Foundation
import Testing
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A store that pulls writers, essays and remarks from one feed: batches of every table and one
/// cursor in one transaction, children that arrive before their parents held until they come.
@Suite struct SyncStoreFeedTests {
    struct Fixture {
        let folder: URL
        let database: SQLiteDatabase
        let clock = SimulatedClock()
        let writerServer: SimulatedServer<Writer>
        let essayServer: SimulatedServer<Essay>
        let remarkServer: SimulatedServer<Remark>
        let feed: SimulatedChangeFeed
        let writers: Repository<Writer>
        let essays: Repository<Essay>
        let remarks: Repository<Remark>
        let store: SyncStore

        /// `writerCount` writers with two essays each and a remark on each essay, on a file in a
        /// temporary folder (readers run beside the writer).
        init(writerCount: Int = 3, configuration: ChangeFeedConfiguration = ChangeFeedConfiguration(), faults: SimulatedFaults = SimulatedFaults()) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            database = try SQLiteDatabase(path: folder.appendingPathComponent("store.sqlite").path)
            let writers = (1...Int64(writerCount)).map { Writer(id: $0, name: "writer \($0)") }
            let essays = writers.flatMap { writer in
                [Essay(id: writer.id * 10, writerID: writer.id, title: "a"), Essay(id: writer.id * 10 + 1, writerID: writer.id, title: "b")]
            }
            let remarks = essays.map { Remark(id: $0.id * 10, essayID: $0.id, text: "on \($0.id)") }
            writerServer = try SimulatedServer(records: writers, seed: 1, clock: clock)
            essayServer = try SimulatedServer(records: essays, seed: 2, clock: clock)
            remarkServer = try SimulatedServer(records: remarks, seed: 3, clock: clock)
            feed = SimulatedChangeFeed(writerServer, essayServer, remarkServer, seed: 4, faults: faults)
            self.writers = try Repository(database: database, remote: writerServer, configuration: SyncConfiguration(retryPolicy: quickRetries))
            self.essays = try Repository(database: database, remote: essayServer, configuration: SyncConfiguration(retryPolicy: quickRetries))
            self.remarks = try Repository(database: database, remote: remarkServer, configuration: SyncConfiguration(retryPolicy: quickRetries))
            store = SyncStore(self.remarks, self.essays, self.writers, feed: feed, configuration: configuration)
        }

        func remove() {
            try? FileManager.default.removeItem(at: folder)
        }

        /// Essays without their writer and remarks without their essay, as a reader sees the cache.
        func orphans() async throws -> Int {
            try await database.read { db in
                let essays = try db.fetchValue(
                    sql: #"SELECT count(*) FROM "store_essays" WHERE "writer_id" NOT IN (SELECT "id" FROM "store_writers")"#)
                let remarks = try db.fetchValue(
                    sql: #"SELECT count(*) FROM "store_remarks" WHERE "essay_id" NOT IN (SELECT "id" FROM "store_essays")"#)
                guard case .integer(let a)? = essays, case .integer(let b)? = remarks else { return -1 }
                return Int(a + b)
            }
        }
    }

    static var quickFeed: ChangeFeedConfiguration {
        ChangeFeedConfiguration(retryPolicy: RetryPolicy(maxAttempts: 8, initialDelay: .microseconds(10), maxDelay: .microseconds(50)))
    }

    @Test func aSyncPullsEveryTableInOneCheckpoint() async throws {
        var configuration = Self.quickFeed
        configuration.pageSize = 4
        let fixture = try Fixture(configuration: configuration)
        defer { fixture.remove() }
        let report = try await fixture.store.sync()
        #expect(try await fixture.writers.count() == 3)
        #expect(try await fixture.essays.count() == 6)
        #expect(try await fixture.remarks.count() == 6)
        #expect(report.for(Writer.self)?.inserted == 3)
        #expect(report.for(Essay.self)?.inserted == 6)
        #expect(report.for(Remark.self)?.pulled == 6)
        #expect(try await fixture.store.feedCursor() == SyncCursor(rawValue: "15"))
        // Each table is at the feed's position: the base of the changes queued from now on.
        #expect(try await fixture.essays.cursor() == SyncCursor(rawValue: "15"))
        let again = try await fixture.store.sync()
        #expect(again.for(Essay.self)?.pulled == 0)
        #expect(await fixture.feed.pulls == 5)  // 4 pages of 4, 4, 4, 3, then one empty page
    }

    /// The writer was written again after its essay: the feed sends the essay first (page 1) and the
    /// writer in page 2. With a batch per page, the essay waits, unseen, for the next batch.
    @Test func aChildBeforeItsParentIsHeldUntilTheParentArrives() async throws {
        var configuration = Self.quickFeed
        (configuration.pageSize, configuration.batchSize) = (1, 1)
        let fixture = try Fixture(writerCount: 1, configuration: configuration)
        defer { fixture.remove() }
        try await fixture.store.sync()
        _ = try await fixture.essayServer.upsert(Essay(id: 50, writerID: 5, title: "early"))
        _ = try await fixture.remarkServer.upsert(Remark(id: 500, essayID: 50, text: "earlier still"))
        let first = try await fixture.store.sync()
        #expect(first.for(Essay.self)?.waitingForParents == 1)
        #expect(first.for(Remark.self)?.waitingForParents == 1)
        #expect(try await fixture.essays.fetch(id: 50) == nil)
        #expect(try await fixture.remarks.fetch(id: 500) == nil)
        #expect(try await fixture.orphans() == 0)

        _ = try await fixture.writerServer.upsert(Writer(id: 5, name: "late"))
        let second = try await fixture.store.sync()
        #expect(second.for(Essay.self)?.waitingForParents == 0)
        #expect(try await fixture.essays.fetch(id: 50)?.title == "early")
        #expect(try await fixture.remarks.fetch(id: 500)?.text == "earlier still")
        #expect(try await fixture.orphans() == 0)
    }

    /// A held record deleted by the server before its parent came is not applied later.
    @Test func aParkedRecordDeletedMeanwhileIsNeverApplied() async throws {
        let fixture = try Fixture(writerCount: 1, configuration: Self.quickFeed)
        defer { fixture.remove() }
        _ = try await fixture.essayServer.upsert(Essay(id: 70, writerID: 7, title: "gone soon"))
        #expect(try await fixture.store.sync().for(Essay.self)?.waitingForParents == 1)
        await fixture.essayServer.delete(id: 70)
        _ = try await fixture.writerServer.upsert(Writer(id: 7, name: "seven"))
        let report = try await fixture.store.sync()
        #expect(report.for(Essay.self)?.waitingForParents == 0)
        #expect(try await fixture.essays.fetch(id: 70) == nil)
        #expect(try await fixture.writers.fetch(id: 7) != nil)
    }

    /// A reader polling the cache while pages of every table arrive, parents written again between
    /// pages, never sees a child without its parent.
    @Test func aReaderNeverSeesAnOrphan() async throws {
        var configuration = Self.quickFeed
        (configuration.pageSize, configuration.batchSize) = (7, 7)
        let fixture = try Fixture(writerCount: 40, configuration: configuration)
        defer { fixture.remove() }
        // Writers written again after their essays: the feed serves them late.
        for id in Int64(1)...40 { try await fixture.writerServer.update(id: id) { $0.name += "!" } }
        let watching = Task {
            var worst = 0
            var looks = 0
            while !Task.isCancelled {
                guard let seen = try? await fixture.orphans() else { break }
                worst = max(worst, seen)
                looks += 1
                await Task.yield()
            }
            return (worst, looks)
        }
        let report = try await fixture.store.sync()
        watching.cancel()
        let (worst, looks) = await watching.value
        #expect(worst == 0)
        #expect(looks > 0)
        #expect(try await fixture.essays.count() == 80)
        #expect(try await fixture.remarks.count() == 80)
        #expect(report.for(Essay.self)?.waitingForParents == 0)
        #expect(try await fixture.orphans() == 0)
    }

    @Test func deletionsOfEveryTableApplyTogether() async throws {
        let fixture = try Fixture(configuration: Self.quickFeed)
        defer { fixture.remove() }
        try await fixture.store.sync()
        // The server deletes writer 2 with its essays and their remarks, children last.
        await fixture.writerServer.delete(id: 2)
        for essay in [Int64(20), 21] {
            await fixture.essayServer.delete(id: essay)
            await fixture.remarkServer.delete(id: essay * 10)
        }
        let report = try await fixture.store.sync()
        #expect(report.for(Writer.self)?.deleted == 1)
        #expect(try await fixture.writers.fetch(id: 2) == nil)
        #expect(try await fixture.essays.count() == 4)
        #expect(try await fixture.remarks.count() == 4)
        #expect(try await fixture.orphans() == 0)
    }

    /// A record changed in several pages of one batch ends as its last change says: written with
    /// its last values, or deleted; a record created and deleted within the batch never shows.
    @Test func aRecordChangedTwiceWithinACheckpointEndsAsItsLastChange() async throws {
        let fixture = try Fixture(writerCount: 1, configuration: Self.quickFeed)
        defer { fixture.remove() }
        func changes(_ records: String, deleted: [Int64] = []) -> RemoteFeedChanges {
            RemoteFeedChanges(records: Data(records.utf8), deletedIDs: deleted.map { .int($0) })
        }
        let feed = ScriptedFeed(pages: [
            RemoteFeedPage(
                tables: [
                    "store_writers": changes(#"[{"id": 1, "name": "first"}, {"id": 2, "name": "gone"}]"#),
                    "store_essays": changes(#"[{"id": 10, "writer_id": 1, "title": "draft"}]"#),
                ],
                nextCursor: "1", hasMore: true),
            RemoteFeedPage(
                tables: [
                    "store_writers": changes(#"[{"id": 1, "name": "second"}]"#, deleted: [2]),
                    "store_essays": changes(#"[{"id": 11, "writer_id": 1, "title": "kept"}]"#, deleted: [10]),
                ],
                nextCursor: "2", hasMore: true),
            RemoteFeedPage(
                tables: ["store_writers": changes(#"[{"id": 1, "name": "last"}]"#)], nextCursor: "3", hasMore: false),
        ])
        let store = SyncStore(fixture.remarks, fixture.essays, fixture.writers, feed: feed, configuration: Self.quickFeed)
        let report = try await store.sync()
        #expect(try await fixture.writers.fetch() == [Writer(id: 1, name: "last")])
        #expect(try await fixture.essays.fetch().map(\.id) == [11])
        #expect(report.for(Writer.self)?.pulled == 4)
        #expect(report.for(Writer.self)?.inserted == 1)
        #expect(try await fixture.orphans() == 0)
    }

    /// A first sync is applied in growing batches (one page, then twice as many records each time),
    /// so one cut short keeps what it applied; a later sync gathers a whole batch before applying
    /// any of it, so readers see a small one whole.
    @Test func aFirstSyncIsAppliedInGrowingStepsAndALaterOneWhole() async throws {
        var configuration = Self.quickFeed
        (configuration.pageSize, configuration.batchSize) = (4, 1_000)
        let fixture = try Fixture(writerCount: 1, configuration: configuration)
        defer { fixture.remove() }
        let cut = RemoteSourceError.unavailable("the server went away")
        // Pages 1 to 5 of 4 writers, then a failure: batches of 4 (page 1) and 8 (pages 2 and 3)
        // are applied; pages 4 and 5 wait for a batch of 16 that never completes.
        let first = ScriptedFeed(pages: ScriptedFeed.writerPages(1...5, size: 4), thenFailingWith: cut)
        let firstStore = SyncStore(fixture.remarks, fixture.essays, fixture.writers, feed: first, configuration: configuration)
        await #expect(throws: RemoteSourceError.self) { try await firstStore.sync() }
        #expect(try await firstStore.feedCursor() == "3")
        #expect(try await fixture.writers.count() == 12)
        // Pages 6 and 7, then a failure: nothing of them is applied.
        let later = ScriptedFeed(pages: ScriptedFeed.writerPages(6...7, size: 4), thenFailingWith: cut)
        let laterStore = SyncStore(fixture.remarks, fixture.essays, fixture.writers, feed: later, configuration: configuration)
        await #expect(throws: RemoteSourceError.self) { try await laterStore.sync() }
        #expect(try await laterStore.feedCursor() == "3")
        #expect(try await fixture.writers.count() == 12)
    }

    /// Local changes are pushed to each table's own server first; the feed then brings them back as the
    /// server's, and a record with a queued change is left alone by the pull.
    @Test func pushesGoToEachSourceAndQueuedChangesAreKept() async throws {
        let fixture = try Fixture(configuration: Self.quickFeed)
        defer { fixture.remove() }
        try await fixture.store.sync()
        try await fixture.database.write { db in
            try db.upsert(Writer(id: 9, name: "new"))
            try db.upsert(Essay(id: 90, writerID: 9, title: "fresh"))
        }
        let report = try await fixture.store.sync()
        #expect(report.for(Writer.self)?.pushed == 1)
        #expect(report.for(Essay.self)?.pushed == 1)
        #expect(await fixture.essayServer.record(id: 90)?.title == "fresh")
        #expect(try await fixture.essays.pendingChangeCount() == 0)

        // An edit waiting to be pushed while the server changes the same essay: the pull keeps the edit.
        try await fixture.essays.save(Essay(id: 10, writerID: 1, title: "mine"))
        try await fixture.essayServer.update(id: 10) { $0.title = "theirs" }
        try await fixture.store.sync()
        let merged = try await fixture.essays.fetch(id: 10)
        #expect(merged?.title == "mine" || merged?.title == "theirs")
        #expect(try await fixture.essays.pendingChangeCount() == 0)
        #expect(await fixture.essayServer.record(id: 10)?.title == merged?.title)
    }

    /// A local edit made before the server's edit of the same essay was pulled is a conflict: the
    /// queued change is based on the feed's position, which the server's version is after.
    @Test func aLocalEditBasedOnAnOlderPositionIsAConflict() async throws {
        let fixture = try Fixture(configuration: Self.quickFeed)
        defer { fixture.remove() }
        try await fixture.store.sync()
        try await fixture.essayServer.update(id: 10) { $0.title = "theirs" }
        try await fixture.essays.save(Essay(id: 10, writerID: 1, title: "mine"))
        let report = try await fixture.store.sync()
        #expect(report.for(Essay.self)?.conflicts.map(\.id) == [10])
        #expect(try await fixture.essays.fetch(id: 10)?.title == "theirs")
        #expect(await fixture.essayServer.record(id: 10)?.title == "theirs")
    }

    @Test func transientFaultsOfTheFeedAreRetried() async throws {
        var faults = SimulatedFaults()
        faults.transientErrorRate = 0.2
        var configuration = Self.quickFeed
        configuration.pageSize = 3
        let fixture = try Fixture(writerCount: 10, configuration: configuration, faults: faults)
        defer { fixture.remove() }
        let report = try await fixture.store.sync()
        #expect(report.feedRetries > 0)
        #expect(try await fixture.remarks.count() == 20)
        #expect(try await fixture.orphans() == 0)
    }

    @Test func anUnknownCursorStartsTheFeedOver() async throws {
        let fixture = try Fixture(configuration: Self.quickFeed)
        defer { fixture.remove() }
        try await fixture.store.sync()
        let state = SyncStateStoreProbe(database: fixture.database)
        try await state.setFeedCursor("999999")
        let report = try await fixture.store.sync()
        #expect(report.for(Writer.self)?.pulled == 3)
        #expect(try await fixture.store.feedCursor() == SyncCursor(rawValue: "15"))
    }
}

/// Writes the store's feed cursor as a file from elsewhere would: a cursor the server never made.
struct SyncStateStoreProbe {
    let database: SQLiteDatabase

    func setFeedCursor(_ cursor: String) async throws {
        try await database.write { db in
            try db.execute(sql: #"UPDATE "variably_sync_state" SET "cursor" = ? WHERE "table_name" LIKE 'variably_feed:%'"#, arguments: [cursor])
        }
    }
}

/// A feed that answers fixed pages, one after the other, whatever the cursor, then `failure` if any.
actor ScriptedFeed: RemoteChangeFeed {
    private var pages: [RemoteFeedPage]
    private let failure: RemoteSourceError?

    init(pages: [RemoteFeedPage], thenFailingWith failure: RemoteSourceError? = nil) {
        self.pages = pages
        self.failure = failure
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemoteFeedPage {
        guard !pages.isEmpty else {
            if let failure { throw failure }
            return RemoteFeedPage(tables: [:], nextCursor: cursor ?? "0", hasMore: false)
        }
        return pages.removeFirst()
    }

    /// Pages `numbers`, each of `size` new writers (ids from `size × (number - 1) + 1`), all with more
    /// to come.
    static func writerPages(_ numbers: ClosedRange<Int>, size: Int) -> [RemoteFeedPage] {
        numbers.map { number in
            let ids = (size * (number - 1) + 1)...(size * number)
            let records = "[" + ids.map { #"{"id": \#($0), "name": "w\#($0)"}"# }.joined(separator: ",") + "]"
            return RemoteFeedPage(
                tables: ["store_writers": RemoteFeedChanges(records: Data(records.utf8))],
                nextCursor: SyncCursor(rawValue: String(number)), hasMore: true)
        }
    }
}
