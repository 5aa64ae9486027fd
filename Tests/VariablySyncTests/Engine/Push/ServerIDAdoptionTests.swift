import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A source that fails every push with `500` while `failing` is set, and otherwise hands it to a
/// numbering `LoggingRemote`.
struct FailingPushesRemote: RemoteSource {
    typealias Model = Comment
    let inner: LoggingRemote<Comment>
    let failing: Switch

    /// A flag a test turns.
    actor Switch {
        var isOn = true
        func turnOff() { isOn = false }
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await inner.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        if await failing.isOn { throw RemoteSourceError.httpStatus(500, body: "down") }
        return try await inner.push(changes)
    }

    var feedIdentifier: String { inner.feedIdentifier }
}

/// The server's copy of a record created here may be cached before the create is answered (pulled
/// while the create waited): adopting the server's id keeps every reference to that copy.
@Suite struct ServerIDAdoptionTests {
    /// Users, posts and comments on one database; the comments' pushes fail until `failing` is
    /// turned off, and their server numbers the creates it gets from 500.
    struct Graph {
        let database: SQLiteDatabase
        let commentServer: SimulatedServer<Comment>
        let comments: Repository<Comment>
        let store: SyncStore
        let failing = FailingPushesRemote.Switch()

        init() async throws {
            database = try SQLiteDatabase.inMemory()
            let log = PushLog()
            let userServer = try SimulatedServer(records: [User(id: 1, userName: "ada")], seed: 1)
            let postServer = try SimulatedServer(records: [Post(id: 10, authorID: 1, title: "first")], seed: 2)
            commentServer = try SimulatedServer(records: [Comment](), seed: 3)
            let retries = RetryPolicy(
                maxAttempts: 2, initialDelay: .microseconds(10), maxDelay: .microseconds(50), seed: 4)
            let users = try Repository(database: database, remote: LoggingRemote(userServer, log: log, table: "users"))
            let posts = try Repository(database: database, remote: LoggingRemote(postServer, log: log, table: "posts"))
            comments = try Repository(
                database: database,
                remote: FailingPushesRemote(
                    inner: LoggingRemote(commentServer, log: log, table: "comments", numbering: .init(from: 500)),
                    failing: failing),
                configuration: SyncConfiguration(retryPolicy: retries))
            store = try SyncStore(comments, posts, users)
            try await store.sync()
        }

        /// Lets the failed pushes go, now.
        func mend() async throws {
            await failing.turnOff()
            try await database.write { try $0.execute(sql: #"UPDATE "variably_pending_changes" SET "retry_at" = 0"#) }
        }
    }

    @Test func aCachedServerCopyGivesWayWithoutEmptyingItsReplies() async throws {
        let graph = try await Graph()
        let (database, commentServer, comments, store) = (
            graph.database, graph.commentServer, graph.comments, graph.store
        )
        // Created here; its push fails, and meanwhile the server has it (as 500) with a reply from
        // another client, which this sync pulls.
        _ = try await comments.create { Comment(id: $0, postID: 10, body: "mine") }
        _ = try await commentServer.upsert(Comment(id: 500, postID: 10, body: "mine"))
        _ = try await commentServer.upsert(Comment(id: 501, postID: 10, replyTo: 500, body: "a reply"))
        let first = try await store.sync()
        #expect(first.for(Comment.self)?.retrying.count == 1)
        #expect(try await comments.fetch(id: 501)?.replyTo == 500)

        // The create goes, is numbered 500, and takes the cached copy's place: the reply keeps it.
        try await graph.mend()
        try await store.sync()
        #expect(try await comments.fetch().map(\.id).sorted() == [500, 501])
        #expect(try await comments.fetch(id: 501)?.replyTo == 500)
        #expect(try await comments.pendingChangeCount() == 0)
        try await expectNoBrokenReferences(database)
    }

    /// The cached server copy was edited here while the create waited: when the copy gives way to the
    /// created row, the edit is carried over and pushed, not lost with the copy.
    @Test func anEditOfTheCachedServerCopyIsKeptWhenItGivesWay() async throws {
        let graph = try await Graph()
        let (database, commentServer, comments, store) = (
            graph.database, graph.commentServer, graph.comments, graph.store
        )
        _ = try await comments.create { Comment(id: $0, postID: 10, body: "mine") }
        _ = try await commentServer.upsert(Comment(id: 500, postID: 10, body: "mine"))
        try await store.sync()
        // Two rows for one record here: the created one, and the server's copy, which is edited.
        var copy = try #require(try await comments.fetch(id: 500))
        copy.body = "edited on the copy"
        try await comments.save(copy)

        try await graph.mend()
        let report = try await store.sync()
        #expect(report.for(Comment.self)?.conflicts.isEmpty == true)
        #expect(try await comments.fetch().map(\.id) == [500])
        #expect(try await comments.fetch(id: 500)?.body == "edited on the copy")
        #expect(await commentServer.record(id: 500)?.body == "edited on the copy")
        #expect(try await comments.pendingChangeCount() == 0)
        try await expectNoBrokenReferences(database)
    }
}
