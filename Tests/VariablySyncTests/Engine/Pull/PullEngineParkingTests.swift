import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A source that pulls and pushes through a simulated server but cannot read a single record, so
/// records waiting for a parent stay parked until a page brings it.
struct PagesOnlyRemote<Model: VariablyCodable & Identifiable & Sendable>: RemoteSource where Model.ID == Int64 {
    let server: SimulatedServer<Model>

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] { try await server.push(changes) }

    var feedIdentifier: String { "pages only \(Model.self)" }
}

/// How a batch treats a record it parks while it also applies parked records whose parents it
/// brought: the newest copy stays parked, and the cached row it replaces stays until then.
@Suite struct PullEngineParkingTests {
    /// A cached remark's new copy replies to a remark not served yet, in the same batch as the parent of
    /// a record parked before: the batch's second pass (the parked records it made ready) leaves the
    /// new copy parked, and neither parks the old cached copy over it nor takes the cached row, whose
    /// replies would lose their reference.
    /// A record parked for its parent keeps the server's bytes: members the model does not read, number
    /// forms and spacing included, so that what is applied later is what the server sent.
    @Test func aParkedRecordKeepsTheServersBytes() async throws {
        let database = try SQLiteDatabase.inMemory()
        let postServer = try SimulatedServer(records: [Post(id: 10, authorID: 1, title: "first")], seed: 2)
        let userServer = try SimulatedServer(records: [User(id: 1, userName: "ada")], seed: 1)
        let users = try Repository(database: database, remote: PagesOnlyRemote(server: userServer))
        let posts = try Repository(database: database, remote: PagesOnlyRemote(server: postServer))
        let served = #"{"id": 900, "post_id": 10, "reply_to": 901, "body": "early", "extra": {"kept": [1, 2.50]}}"#
        let comments = try Repository(
            database: database,
            remote: OnePageSource<Comment>(
                records: Data("[\(served), {\"id\": 902, \"post_id\": 10, \"body\": \"x\"}]".utf8)))
        try await SyncStore(comments, posts, users).sync()
        #expect(try await comments.fetch(id: 900) == nil)
        let stored = try await database.read { db in
            try db.fetchValue(sql: #"SELECT "record" FROM "variably_parked_records" WHERE "record_id" = '900'"#)
        }
        guard case .blob(let bytes)? = stored else {
            Issue.record("no parked record 900: \(String(describing: stored))")
            return
        }
        #expect(String(decoding: bytes, as: UTF8.self) == served)
    }

    @Test func aNewCopyParkedBesideReadyParkedRecordsIsTheOneAppliedLater() async throws {
        let database = try SQLiteDatabase.inMemory()
        let postServer = try SimulatedServer(records: [Post(id: 10, authorID: 1, title: "first")], seed: 2)
        let userServer = try SimulatedServer(records: [User(id: 1, userName: "ada")], seed: 1)
        let commentServer = try SimulatedServer<Comment>(records: [], seed: 3)
        let users = try Repository(database: database, remote: PagesOnlyRemote(server: userServer))
        let posts = try Repository(database: database, remote: PagesOnlyRemote(server: postServer))
        let comments = try Repository(database: database, remote: PagesOnlyRemote(server: commentServer))
        let store = try SyncStore(comments, posts, users)

        _ = try await commentServer.upsert(Comment(id: 500, postID: 10, body: "old"))
        _ = try await commentServer.upsert(Comment(id: 501, postID: 10, replyTo: 500, body: "a reply to 500"))
        _ = try await commentServer.upsert(Comment(id: 800, postID: 10, replyTo: 801, body: "served before 801"))
        try await store.sync()
        #expect(try await comments.fetch(id: 800) == nil)  // parked: 801 not served yet
        #expect(try await comments.fetch(id: 501)?.replyTo == 500)

        _ = try await commentServer.upsert(Comment(id: 500, postID: 10, replyTo: 600, body: "new"))
        _ = try await commentServer.upsert(Comment(id: 801, postID: 10, body: "the parent of 800"))
        try await store.sync()
        #expect(try await comments.fetch(id: 800)?.replyTo == 801)  // the second pass applied it
        let cached = try await comments.fetch(id: 500)
        #expect(cached?.body == "old")  // the old copy stays until its new parent comes
        #expect(try await comments.fetch(id: 501)?.replyTo == 500)
        try await expectNoBrokenReferences(database)

        _ = try await commentServer.upsert(Comment(id: 600, postID: 10, body: "the parent of the new 500"))
        try await store.sync()
        #expect(try await comments.fetch(id: 500) == Comment(id: 500, postID: 10, replyTo: 600, body: "new"))
        #expect(try await comments.fetch(id: 501)?.replyTo == 500)
        let cachedRemarks = try await comments.fetch().sorted { $0.id < $1.id }
        #expect(cachedRemarks == (await commentServer.allRecords()).sorted { $0.id < $1.id })
        #expect(try await comments.pendingChangeCount() == 0)
        try await expectNoBrokenReferences(database)
    }
}
