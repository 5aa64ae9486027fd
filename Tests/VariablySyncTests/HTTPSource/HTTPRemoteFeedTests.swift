import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablyTestSupport

/// A store of users, posts and comments against a real HTTP server: one feed of every table
/// (``HTTPAPI/changeFeed``), pushes to each table's own envelope. These tests need `python3`.
@Suite(.timeLimit(.minutes(3)), .enabled(if: PythonScriptProcess.python != nil, "python3 is not installed"))
struct HTTPRemoteFeedTests {
    struct Fixture {
        let server: PythonFeedServer
        let database: SQLiteDatabase
        let users: Repository<User>
        let posts: Repository<Post>
        let comments: Repository<Comment>
        let store: SyncStore

        init(failureRate: Double = 0, pageSize: Int = 4, batchSize: Int = 50_000) async throws {
            server = try await PythonFeedServer(failureRate: failureRate)
            database = try SQLiteDatabase.inMemory()
            let base = server.baseURL
            users = try Repository(
                database: database,
                remote: HTTPRemoteSource<User>(baseURL: base.appendingPathComponent("users"), timeout: 10))
            posts = try Repository(
                database: database,
                remote: HTTPRemoteSource<Post>(baseURL: base.appendingPathComponent("posts"), timeout: 10))
            comments = try Repository(
                database: database,
                remote: HTTPRemoteSource<Comment>(
                    baseURL: base.appendingPathComponent("comments"), timeout: 10))
            let configuration = ChangeFeedConfiguration(
                pageSize: pageSize, batchSize: batchSize,
                retryPolicy: RetryPolicy(
                    maxAttempts: 30, initialDelay: .milliseconds(1), maxDelay: .milliseconds(5), seed: 3))
            store = try SyncStore(
                users, posts, comments, feed: HTTPRemoteFeed(baseURL: base, api: .changeFeed, timeout: 10),
                configuration: configuration)
        }

        /// Users 1...count, two posts each, a comment on each post, written parents first.
        func seed(users count: Int64) async throws {
            for user in 1...count {
                try await server.write("users", id: user, record: User.remoteObject(id: user, userName: "user \(user)"))
                for post in [user * 10, user * 10 + 1] {
                    try await server.write(
                        "posts", id: post, record: ["id": post, "author_id": user, "title": "t\(post)"])
                    try await server.write(
                        "comments", id: post * 10, record: ["id": post * 10, "post_id": post, "body": "r"])
                }
            }
        }

        func orphans() async throws -> Int {
            try await database.read { db in
                let value = try db.fetchValue(
                    sql: #"""
                        SELECT (SELECT count(*) FROM "posts" WHERE "author_id" NOT IN (SELECT "id" FROM "users"))
                             + (SELECT count(*) FROM "comments" WHERE "post_id" NOT IN (SELECT "id" FROM "posts"))
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
        try await server.write("posts", id: 70, record: ["id": 70, "author_id": 7, "title": "hi"])
        try await server.write("users", id: 7, record: User.remoteObject(id: 7, userName: "ada"))
        let users = try Repository<User>(
            database: database, remote: HTTPRemoteSource(baseURL: apiURL.appendingPathComponent("users")))
        let posts = try Repository<Post>(
            database: database, remote: HTTPRemoteSource(baseURL: apiURL.appendingPathComponent("posts")))
        let comments = try Repository<Comment>(
            database: database, remote: HTTPRemoteSource(baseURL: apiURL.appendingPathComponent("comments")))
        let feed = HTTPRemoteFeed(baseURL: apiURL, api: .changeFeed)
        let store = try SyncStore(comments, posts, users, feed: feed)
        let report = try await store.sync()
        print(report.for(Post.self)?.parked ?? 0)
        #expect(report.for(Post.self)?.parked == 0)
        #expect(try await posts.fetch(id: 70)?.authorID == 7)
    }

    @Test func everyTableArrivesThroughOneFeed() async throws {
        let fixture = try await Fixture()
        defer { fixture.server.stop() }
        try await fixture.seed(users: 5)
        let report = try await fixture.store.sync()
        #expect(report.for(User.self)?.inserted == 5)
        #expect(report.for(Post.self)?.inserted == 10)
        #expect(report.for(Comment.self)?.inserted == 10)
        #expect(try await fixture.orphans() == 0)
        #expect(try await fixture.store.feedCursor() == SyncCursor(rawValue: "25"))
        // Deletions of every table, children last on the server, in one page.
        try await fixture.server.write("users", id: 1, record: nil)
        for post in [Int64(10), 11] {
            try await fixture.server.write("posts", id: post, record: nil)
            try await fixture.server.write("comments", id: post * 10, record: nil)
        }
        let second = try await fixture.store.sync()
        #expect(second.for(User.self)?.deleted == 1)
        #expect(try await fixture.users.count() == 4)
        #expect(try await fixture.posts.count() == 8)
        #expect(try await fixture.comments.count() == 8)
    }

    /// Posts written before their user exists on the server come a page early: they are held, never
    /// shown, and applied when the user arrives.
    @Test func childrenBeforeTheirParentAreHeld() async throws {
        let fixture = try await Fixture(pageSize: 1, batchSize: 1)
        defer { fixture.server.stop() }
        try await fixture.server.write("posts", id: 50, record: ["id": 50, "author_id": 5, "title": "early"])
        try await fixture.server.write(
            "comments", id: 500, record: ["id": 500, "post_id": 50, "body": "earlier"])
        let first = try await fixture.store.sync()
        #expect(first.for(Post.self)?.parked == 1)
        #expect(first.for(Comment.self)?.parked == 1)
        #expect(try await fixture.posts.count() == 0)
        try await fixture.server.write("users", id: 5, record: User.remoteObject(id: 5, userName: "late"))
        let second = try await fixture.store.sync()
        #expect(second.for(Post.self)?.parked == 0)
        #expect(try await fixture.posts.fetch(id: 50)?.title == "early")
        #expect(try await fixture.comments.fetch(id: 500)?.body == "earlier")
        #expect(try await fixture.orphans() == 0)
    }

    /// Local records go to each table's endpoint, parents first, and come back through the feed.
    @Test func localChangesArePushedPerTableAndPulledThroughTheFeed() async throws {
        let fixture = try await Fixture()
        defer { fixture.server.stop() }
        try await fixture.database.write { db in
            try db.upsert(Comment(id: 700, postID: 70, body: "mine"))
            try db.upsert(Post(id: 70, authorID: 7, title: "mine"))
            try db.upsert(User(id: 7, userName: "me"))
        }
        let report = try await fixture.store.sync()
        #expect(report.for(User.self)?.pushed == 1)
        #expect(report.for(Comment.self)?.pushed == 1)
        #expect(try await fixture.server.rows("posts")[70]?["title"] as? String == "mine")
        #expect(try await fixture.comments.pendingChangeCount() == 0)
        #expect(report.for(Post.self)?.pulled == 1)
    }

    /// A user the server refuses holds its post and the post's comment: neither is sent, both stay,
    /// and they go once the user is fixed.
    @Test func aRefusedParentHoldsItsChildren() async throws {
        let fixture = try await Fixture()
        defer { fixture.server.stop() }
        try await fixture.database.write { db in
            try db.upsert(User(id: 3, userName: "refused"))
            try db.upsert(Post(id: 30, authorID: 3, title: "held"))
            try db.upsert(Comment(id: 300, postID: 30, body: "held too"))
        }
        let report = try await fixture.store.sync()
        #expect(report.for(User.self)?.failed.map(\.reason) == ["this name is refused"])
        #expect(report.for(Post.self)?.waitingForParent.map(\.id) == [30])
        #expect(report.for(Comment.self)?.waitingForParent.map(\.id) == [300])
        #expect(try await fixture.server.rows("posts").isEmpty)
        #expect(try await fixture.posts.fetch(id: 30) != nil)

        try await fixture.users.save(User(id: 3, userName: "fixed"))
        let fixed = try await fixture.store.sync()
        #expect(fixed.for(Comment.self)?.pushed == 1)
        #expect(try await fixture.server.rows("comments")[300]?["body"] as? String == "held too")
        #expect(try await fixture.orphans() == 0)
    }

    /// A user and its favourite post created together (a cycle through an optional reference): the
    /// user goes without its favourite, then the post, then the user's favourite.
    @Test func aCycleIsCompletedOverHTTP() async throws {
        let fixture = try await Fixture()
        defer { fixture.server.stop() }
        try await fixture.database.write { db in
            try db.upsert(Post(id: 40, authorID: 4, title: "loved"))
            try db.upsert(User(id: 4, userName: "four", favoritePostID: 40))
        }
        try await fixture.store.sync()
        let user = try #require(try await fixture.server.rows("users")[4])
        #expect((user["favorite_post_id"] as? NSNumber)?.int64Value == 40)
        #expect(try await fixture.server.rows("posts")[40] != nil)
        #expect(try await fixture.users.pendingChangeCount() == 0)
        #expect(try await fixture.users.fetch(id: 4)?.favoritePostID == 40)
    }

    /// A fifth of the feed's requests answer 503: the pages are asked again, nothing is missing or orphaned.
    @Test func transientFailuresOfTheFeedAreRetried() async throws {
        let fixture = try await Fixture(failureRate: 0.2, pageSize: 3, batchSize: 6)
        defer { fixture.server.stop() }
        try await fixture.seed(users: 6)
        let report = try await fixture.store.sync()
        #expect(report.feedRetries > 0)
        #expect(try await fixture.comments.count() == 12)
        #expect(try await fixture.posts.count() == 12)
        #expect(try await fixture.orphans() == 0)
    }

    @Test func aForgottenCursorStartsTheFeedOver() async throws {
        let fixture = try await Fixture()
        defer { fixture.server.stop() }
        try await fixture.seed(users: 1)
        try await fixture.store.sync()
        try await SyncStateStoreProbe(database: fixture.database).setFeedCursor("999")
        let report = try await fixture.store.sync()
        #expect(report.for(User.self)?.pulled == 1)
        #expect(try await fixture.store.feedCursor() == SyncCursor(rawValue: "5"))
    }
}
