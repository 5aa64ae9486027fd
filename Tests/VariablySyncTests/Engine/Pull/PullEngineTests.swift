import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// What real servers send that used to stop a pull for good: children served before their parents
/// (across tables and within one), parents the server deleted while keeping their children, and
/// records the model could not decode. Each pull completes, with no broken reference and the cache
/// equal to the server's live rows.
@Suite struct PullEngineTests {
    /// Users, posts and comments on one database, each table with its own simulated server.
    struct Graph {
        let database: SQLiteDatabase
        let userServer: SimulatedServer<User>
        let postServer: SimulatedServer<Post>
        let commentServer: SimulatedServer<Comment>
        let users: Repository<User>
        let posts: Repository<Post>
        let comments: Repository<Comment>
        let store: SyncStore

        init(pageSize: Int = 1_000) async throws {
            database = try SQLiteDatabase.inMemory()
            let log = PushLog()
            userServer = try SimulatedServer(records: [User(id: 1, userName: "ada")], seed: 1)
            postServer = try SimulatedServer(records: [Post(id: 10, authorID: 1, title: "first")], seed: 2)
            commentServer = try SimulatedServer(records: [], seed: 3)
            users = try Repository(
                database: database, remote: LoggingRemote(userServer, log: log, table: "users"),
                configuration: SyncConfiguration(pageSize: pageSize, retryPolicy: quickRetries))
            posts = try Repository(
                database: database, remote: LoggingRemote(postServer, log: log, table: "posts"),
                configuration: SyncConfiguration(pageSize: pageSize, retryPolicy: quickRetries))
            comments = try Repository(
                database: database, remote: LoggingRemote(commentServer, log: log, table: "comments"),
                configuration: SyncConfiguration(pageSize: pageSize, retryPolicy: quickRetries))
            store = try SyncStore(comments, posts, users)
        }

        /// Expects the cache to hold exactly the servers' live records, and no broken reference.
        func expectCacheEqualsServers(sourceLocation: SourceLocation = #_sourceLocation) async throws {
            try await expectNoBrokenReferences(database, sourceLocation: sourceLocation)
            let cachedComments = try await comments.fetch().sorted { $0.id < $1.id }
            let liveComments = await commentServer.allRecords().sorted { $0.id < $1.id }
            #expect(cachedComments == liveComments, sourceLocation: sourceLocation)
            let cachedPosts = try await posts.fetch().sorted { $0.id < $1.id }
            let livePosts = await postServer.allRecords().sorted { $0.id < $1.id }
            #expect(cachedPosts == livePosts, sourceLocation: sourceLocation)
        }
    }

    /// A chain of replies, each to the one before, served newest-parent-last: edited later, every
    /// parent sorts after its reply, so each reply arrives before the comment it replies to, on a fresh
    /// device. Parking follows the chain as deep as it goes (six and fifty levels), whatever the page
    /// size (one record a page, ten, all at once).
    @Test(arguments: [(6, 1), (6, 1_000), (50, 10), (50, 1_000)])
    func aChainOfRepliesServedChildFirstIsCachedWhole(length: Int, pageSize: Int) async throws {
        let graph = try await Graph(pageSize: pageSize)
        let ids = Int64(100)...Int64(99 + length)
        for id in ids {
            _ = try await graph.commentServer.upsert(
                Comment(id: id, postID: 10, replyTo: id == 100 ? nil : id - 1, body: "comment \(id)"))
        }
        for id in ids.dropLast().reversed() {
            _ = try await graph.commentServer.upsert(
                Comment(id: id, postID: 10, replyTo: id == 100 ? nil : id - 1, body: "edited \(id)"))
        }
        let report = try await graph.store.sync()
        #expect(report.for(Comment.self)?.parked == 0)
        #expect(try await graph.comments.count() == length)
        #expect(try await graph.comments.fetch(id: ids.upperBound)?.replyTo == ids.upperBound - 1)
        try await graph.expectCacheEqualsServers()
    }

    /// Children whose parents come three pages later, from another table: the posts' pages are pulled
    /// alone, before their users.
    @Test func childrenWhoseParentsComeLaterFromAnotherTableWait() async throws {
        let graph = try await Graph(pageSize: 2)
        for id in Int64(2)...4 { _ = try await graph.userServer.upsert(User(id: id, userName: "user \(id)")) }
        for id in Int64(20)...25 {
            _ = try await graph.postServer.upsert(Post(id: id, authorID: 2 + id % 3, title: "post \(id)"))
        }
        let alone = try await graph.posts.sync()
        #expect(alone.parked == 0)  // looked up on the users' server, and applied
        try await graph.expectCacheEqualsServers()
        #expect(try await graph.users.fetch(id: 4)?.userName == "user 4")
    }

    /// The server deletes a post but keeps its comments (a soft delete that marks the parent only);
    /// one comment is edited later. A fresh device's pull completes: the post's deletion settles the
    /// comments by their reference's rule (`.cascade`), and the other posts' comments arrive.
    @Test func childrenOfAParentTheServerDeletedAreSettledByTheirRule() async throws {
        let graph = try await Graph()
        _ = try await graph.postServer.upsert(Post(id: 11, authorID: 1, title: "second"))
        _ = try await graph.commentServer.upsert(Comment(id: 200, postID: 11, body: "on the deleted post"))
        _ = try await graph.commentServer.upsert(Comment(id: 201, postID: 10, body: "on the kept post"))
        await graph.postServer.delete(id: 11)
        _ = try await graph.commentServer.upsert(Comment(id: 200, postID: 11, body: "edited after the deletion"))
        let report = try await graph.store.sync()
        #expect(report.for(Comment.self)?.parked == 0)
        #expect(try await graph.comments.fetch(id: 200) == nil)
        #expect(try await graph.comments.fetch(id: 201)?.body == "on the kept post")
        try await expectNoBrokenReferences(graph.database)
        // A later sync is not stopped either.
        _ = try await graph.commentServer.upsert(Comment(id: 202, postID: 10, body: "later"))
        try await graph.store.sync()
        #expect(try await graph.comments.fetch(id: 202)?.body == "later")
    }

    /// A reply whose comment the server deleted: its `.setNull` reference is emptied, and it is kept.
    @Test func aReplyToACommentTheServerDeletedIsKeptWithTheReferenceEmptied() async throws {
        let graph = try await Graph()
        _ = try await graph.commentServer.upsert(Comment(id: 300, postID: 10, body: "deleted later"))
        _ = try await graph.commentServer.upsert(Comment(id: 301, postID: 10, replyTo: 300, body: "a reply"))
        await graph.commentServer.delete(id: 300)
        try await graph.store.sync()
        let reply = try await graph.comments.fetch(id: 301)
        #expect(reply?.body == "a reply")
        #expect(reply?.replyTo == nil)
        // Settled here as the server's data, not queued as a local edit to push back.
        #expect(try await graph.comments.pendingChangeCount() == 0)
        try await expectNoBrokenReferences(graph.database)
    }

    /// A device that has a post and its comments pulls the post's deletion while the server keeps the
    /// comments: the deletion cascades here, and the pull goes on.
    @Test func aPulledDeletionOfAParentWithLiveChildrenDoesNotStopThePull() async throws {
        let graph = try await Graph()
        _ = try await graph.commentServer.upsert(Comment(id: 400, postID: 10, body: "kept by the server"))
        try await graph.store.sync()
        #expect(try await graph.comments.fetch(id: 400) != nil)
        await graph.postServer.delete(id: 10)
        _ = try await graph.commentServer.upsert(Comment(id: 400, postID: 10, body: "edited on the server"))
        try await graph.store.sync()
        #expect(try await graph.posts.fetch(id: 10) == nil)
        #expect(try await graph.comments.fetch(id: 400) == nil)
        try await expectNoBrokenReferences(graph.database)
    }
}

// MARK: - Records skipped, then decodable

/// An item as the first version of an app decodes it: its score under the key `points`, which the
/// server stopped sending for some records.
struct ScoredItemV1: VariablyCodable, SQLiteStorable, Identifiable, Equatable, Sendable {
    var id: Int64
    var score: Int

    init(from container: DecodingContainer<ScoredItemV1>) throws {
        id = try container.decode(\.id)
        score = try container.decode(\.score)
    }

    static let keySets = KeySets<ScoredItemV1>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id"); Key(\.score, "points")
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    static let sqliteTable = SQLiteTable<ScoredItemV1>("scored_items", primaryKey: \.id)
}

/// The same item after an app update: the score under `score`, with `points` as an older alternative.
struct ScoredItemV2: VariablyCodable, SQLiteStorable, Identifiable, Equatable, Sendable {
    var id: Int64
    var score: Int

    init(from container: DecodingContainer<ScoredItemV2>) throws {
        id = try container.decode(\.id)
        score = try container.decode(\.score)
    }

    static let keySets = KeySets<ScoredItemV2>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id"); Key(\.score, ["score", "points"])
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    static let sqliteTable = SQLiteTable<ScoredItemV2>("scored_items", primaryKey: \.id)
}

/// A server that serves one fixed page of JSON records, then nothing new.
struct OnePageSource<Model: VariablyCodable & Identifiable & Sendable>: RemoteSource where Model.ID == Int64 {
    let records: Data

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        guard cursor == nil else {
            return RemotePage(records: Data("[]".utf8), deletedIDs: [], nextCursor: "1", hasMore: false)
        }
        return RemotePage(records: records, deletedIDs: [], nextCursor: "1", hasMore: false)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] { [] }

    /// One feed, whichever model reads it.
    var feedIdentifier: String { "scored items" }
}

extension PullEngineTests {
    /// A record the first model could not decode is kept with the server's JSON; once the model's key
    /// set is fixed, the next sync applies it, though the cursor passed it long ago.
    @Test func aSkippedRecordIsAppliedOnceTheModelDecodesIt() async throws {
        let database = try SQLiteDatabase.inMemory()
        let records = Data(#"[{"id": 1, "points": 5, "score": 5}, {"id": 2, "score": 7}]"#.utf8)
        let first = try Repository(
            database: database, remote: OnePageSource<ScoredItemV1>(records: records),
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        let skipped = try await first.sync()
        #expect(skipped.skipped.map(\.id) == [2])
        #expect(skipped.undecodable == 1)
        #expect(try await first.fetch(id: 2) == nil)
        #expect(try await first.sync().undecodable == 1)

        let updated = try Repository(
            database: database, remote: OnePageSource<ScoredItemV2>(records: records),
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        let report = try await updated.sync()
        #expect(report.pulled == 0)
        #expect(report.undecodable == 0)
        #expect(try await updated.fetch(id: 2)?.score == 7)
    }
}
