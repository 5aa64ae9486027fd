import Foundation
import Testing
import VariablySQLite
import VariablySync
import VariablyTestSupport

/// A store of writers, essays and remarks against a real HTTP server: one feed of every table
/// (``HTTPAPI/changeFeed``), pushes to each table's own envelope. These tests need `python3`.
@Suite(.timeLimit(.minutes(3)), .enabled(if: PythonScriptProcess.python != nil, "python3 is not installed"))
struct HTTPRemoteFeedTests {
    struct Fixture {
        let server: PythonFeedServer
        let database: SQLiteDatabase
        let writers: Repository<Writer>
        let essays: Repository<Essay>
        let remarks: Repository<Remark>
        let store: SyncStore

        init(failureRate: Double = 0, pageSize: Int = 4, batchSize: Int = 50_000) async throws {
            server = try await PythonFeedServer(failureRate: failureRate)
            database = try SQLiteDatabase.inMemory()
            let base = server.baseURL
            writers = try Repository(
                database: database, remote: HTTPRemoteSource<Writer>(baseURL: base.appendingPathComponent("store_writers"), timeout: 10))
            essays = try Repository(
                database: database, remote: HTTPRemoteSource<Essay>(baseURL: base.appendingPathComponent("store_essays"), timeout: 10))
            remarks = try Repository(
                database: database, remote: HTTPRemoteSource<Remark>(baseURL: base.appendingPathComponent("store_remarks"), timeout: 10))
            let configuration = ChangeFeedConfiguration(
                pageSize: pageSize, batchSize: batchSize,
                retryPolicy: RetryPolicy(maxAttempts: 30, initialDelay: .milliseconds(1), maxDelay: .milliseconds(5), seed: 3))
            store = SyncStore(
                writers, essays, remarks, feed: HTTPRemoteFeed(baseURL: base, api: .changeFeed, timeout: 10),
                configuration: configuration)
        }

        /// Writers 1...count, two essays each, a remark on each essay, written parents first.
        func seed(writers count: Int64) async throws {
            for writer in 1...count {
                try await server.write("store_writers", id: writer, record: ["id": writer, "name": "writer \(writer)"])
                for essay in [writer * 10, writer * 10 + 1] {
                    try await server.write("store_essays", id: essay, record: ["id": essay, "writer_id": writer, "title": "t\(essay)"])
                    try await server.write("store_remarks", id: essay * 10, record: ["id": essay * 10, "essay_id": essay, "text": "r"])
                }
            }
        }

        func orphans() async throws -> Int {
            try await database.read { db in
                let value = try db.fetchValue(
                    sql: #"""
                        SELECT (SELECT count(*) FROM "store_essays" WHERE "writer_id" NOT IN (SELECT "id" FROM "store_writers"))
                             + (SELECT count(*) FROM "store_remarks" WHERE "essay_id" NOT IN (SELECT "id" FROM "store_essays"))
                        """#)
                if case .integer(let count)? = value { return Int(count) }
                return -1
            }
        }
    }

    /// docs/relationships.md, "One feed, one checkpoint".
    @Test func theDocumentedFeed() async throws {
        let server = try await PythonFeedServer()
        defer { server.stop() }
        let apiURL = server.baseURL
        let database = try SQLiteDatabase.inMemory()
        try await server.write("store_essays", id: 70, record: ["id": 70, "writer_id": 7, "title": "hi"])
        try await server.write("store_writers", id: 7, record: ["id": 7, "name": "ada"])
        let writers = try Repository<Writer>(database: database, remote: HTTPRemoteSource(baseURL: apiURL.appendingPathComponent("store_writers")))
        let essays = try Repository<Essay>(database: database, remote: HTTPRemoteSource(baseURL: apiURL.appendingPathComponent("store_essays")))
        let remarks = try Repository<Remark>(database: database, remote: HTTPRemoteSource(baseURL: apiURL.appendingPathComponent("store_remarks")))
        let feed = HTTPRemoteFeed(baseURL: apiURL, api: .changeFeed)
        let store = SyncStore(remarks, essays, writers, feed: feed)
        let report = try await store.sync()
        print(report.for(Essay.self)?.waitingForParents ?? 0)
        #expect(report.for(Essay.self)?.waitingForParents == 0)
        #expect(try await essays.fetch(id: 70)?.writerID == 7)
    }

    @Test func everyTableArrivesThroughOneFeed() async throws {
        let fixture = try await Fixture()
        defer { fixture.server.stop() }
        try await fixture.seed(writers: 5)
        let report = try await fixture.store.sync()
        #expect(report.for(Writer.self)?.inserted == 5)
        #expect(report.for(Essay.self)?.inserted == 10)
        #expect(report.for(Remark.self)?.inserted == 10)
        #expect(try await fixture.orphans() == 0)
        #expect(try await fixture.store.feedCursor() == SyncCursor(rawValue: "25"))
        // Deletions of every table, children last on the server, in one page.
        try await fixture.server.write("store_writers", id: 1, record: nil)
        for essay in [Int64(10), 11] {
            try await fixture.server.write("store_essays", id: essay, record: nil)
            try await fixture.server.write("store_remarks", id: essay * 10, record: nil)
        }
        let second = try await fixture.store.sync()
        #expect(second.for(Writer.self)?.deleted == 1)
        #expect(try await fixture.writers.count() == 4)
        #expect(try await fixture.essays.count() == 8)
        #expect(try await fixture.remarks.count() == 8)
    }

    /// Essays written before their writer exists on the server come a page early: they are held, never
    /// shown, and applied when the writer arrives.
    @Test func childrenBeforeTheirParentAreHeld() async throws {
        let fixture = try await Fixture(pageSize: 1, batchSize: 1)
        defer { fixture.server.stop() }
        try await fixture.server.write("store_essays", id: 50, record: ["id": 50, "writer_id": 5, "title": "early"])
        try await fixture.server.write("store_remarks", id: 500, record: ["id": 500, "essay_id": 50, "text": "earlier"])
        let first = try await fixture.store.sync()
        #expect(first.for(Essay.self)?.waitingForParents == 1)
        #expect(first.for(Remark.self)?.waitingForParents == 1)
        #expect(try await fixture.essays.count() == 0)
        try await fixture.server.write("store_writers", id: 5, record: ["id": 5, "name": "late"])
        let second = try await fixture.store.sync()
        #expect(second.for(Essay.self)?.waitingForParents == 0)
        #expect(try await fixture.essays.fetch(id: 50)?.title == "early")
        #expect(try await fixture.remarks.fetch(id: 500)?.text == "earlier")
        #expect(try await fixture.orphans() == 0)
    }

    /// Local records go to each table's endpoint, parents first, and come back through the feed.
    @Test func localChangesArePushedPerTableAndPulledThroughTheFeed() async throws {
        let fixture = try await Fixture()
        defer { fixture.server.stop() }
        try await fixture.database.write { db in
            try db.upsert(Remark(id: 700, essayID: 70, text: "mine"))
            try db.upsert(Essay(id: 70, writerID: 7, title: "mine"))
            try db.upsert(Writer(id: 7, name: "me"))
        }
        let report = try await fixture.store.sync()
        #expect(report.for(Writer.self)?.pushed == 1)
        #expect(report.for(Remark.self)?.pushed == 1)
        #expect(try await fixture.server.rows("store_essays")[70]?["title"] as? String == "mine")
        #expect(try await fixture.remarks.pendingChangeCount() == 0)
        #expect(report.for(Essay.self)?.pulled == 1)
    }

    /// A writer the server refuses holds its essay and the essay's remark: neither is sent, both stay,
    /// and they go once the writer is fixed.
    @Test func aRefusedParentHoldsItsChildren() async throws {
        let fixture = try await Fixture()
        defer { fixture.server.stop() }
        try await fixture.database.write { db in
            try db.upsert(Writer(id: 3, name: "refused"))
            try db.upsert(Essay(id: 30, writerID: 3, title: "held"))
            try db.upsert(Remark(id: 300, essayID: 30, text: "held too"))
        }
        let report = try await fixture.store.sync()
        #expect(report.for(Writer.self)?.rejected.map(\.reason) == ["this name is refused"])
        #expect(report.for(Essay.self)?.held.map(\.id) == [30])
        #expect(report.for(Remark.self)?.held.map(\.id) == [300])
        #expect(try await fixture.server.rows("store_essays").isEmpty)
        #expect(try await fixture.essays.fetch(id: 30) != nil)

        try await fixture.writers.save(Writer(id: 3, name: "fixed"))
        let fixed = try await fixture.store.sync()
        #expect(fixed.for(Remark.self)?.pushed == 1)
        #expect(try await fixture.server.rows("store_remarks")[300]?["text"] as? String == "held too")
        #expect(try await fixture.orphans() == 0)
    }

    /// A writer and its favourite essay created together (a cycle through an optional reference): the
    /// writer goes without its favourite, then the essay, then the writer's favourite.
    @Test func aCycleIsCompletedOverHTTP() async throws {
        let fixture = try await Fixture()
        defer { fixture.server.stop() }
        try await fixture.database.write { db in
            try db.upsert(Essay(id: 40, writerID: 4, title: "loved"))
            try db.upsert(Writer(id: 4, name: "four", favoriteEssayID: 40))
        }
        try await fixture.store.sync()
        let writer = try #require(try await fixture.server.rows("store_writers")[4])
        #expect((writer["favorite_essay_id"] as? NSNumber)?.int64Value == 40)
        #expect(try await fixture.server.rows("store_essays")[40] != nil)
        #expect(try await fixture.writers.pendingChangeCount() == 0)
        #expect(try await fixture.writers.fetch(id: 4)?.favoriteEssayID == 40)
    }

    /// A fifth of the feed's requests answer 503: the pages are asked again, nothing is missing or orphaned.
    @Test func transientFailuresOfTheFeedAreRetried() async throws {
        let fixture = try await Fixture(failureRate: 0.2, pageSize: 3, batchSize: 6)
        defer { fixture.server.stop() }
        try await fixture.seed(writers: 6)
        let report = try await fixture.store.sync()
        #expect(report.feedRetries > 0)
        #expect(try await fixture.remarks.count() == 12)
        #expect(try await fixture.essays.count() == 12)
        #expect(try await fixture.orphans() == 0)
    }

    @Test func aForgottenCursorStartsTheFeedOver() async throws {
        let fixture = try await Fixture()
        defer { fixture.server.stop() }
        try await fixture.seed(writers: 1)
        try await fixture.store.sync()
        try await SyncStateStoreProbe(database: fixture.database).setFeedCursor("999")
        let report = try await fixture.store.sync()
        #expect(report.for(Writer.self)?.pulled == 1)
        #expect(try await fixture.store.feedCursor() == SyncCursor(rawValue: "5"))
    }
}
