import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync

/// What a stock Django REST Framework with real foreign keys serves that used to stop a pull for good:
/// replies before the comments they reply to, comments of a post deleted on the server, and a view
/// that ignores the ordering it is asked for. Each pull completes with no broken reference and the cache
/// equal to the server's live rows, or stops with an error that says how to fix the server.
// One test at a time, and one server across the suites (DRFServer.start waits its turn, hence the
// time limit): each starts its own Django, which takes a core for a second or more.
@Suite(.serialized, .timeLimit(.minutes(15)), .enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason))
struct DRFPullEngineTests {
    struct Device {
        let database: SQLiteDatabase
        let users: Repository<User>
        let posts: Repository<Post>
        let comments: Repository<Comment>
        let store: SyncStore

        init(_ server: DRFServer) throws {
            database = try SQLiteDatabase.inMemory()
            users = try server.makeGraphRepository(User.self, "users", database: database)
            posts = try server.makeGraphRepository(Post.self, "posts", database: database)
            comments = try server.makeGraphRepository(Comment.self, "comments", database: database)
            store = try SyncStore(comments, posts, users)
        }

        /// Expects the cached comments to be the server's live ones, and every reference to hold.
        func expectMirrors(_ server: DRFServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            try await expectNoBrokenReferences(database, sourceLocation: sourceLocation)
            let live = try server.state().comments.filter { comment in
                !comment.deleted && (try? server.state().posts.first { $0.id == comment.post_id }?.deleted) == false
            }
            let cached = try await comments.fetch(sortedBy: [SortDescriptor(\.id)])
            #expect(cached.map(\.id) == live.map(\.id), sourceLocation: sourceLocation)
            #expect(cached.map(\.replyTo) == live.map(\.reply_to), sourceLocation: sourceLocation)
            #expect(cached.map(\.body) == live.map(\.body), sourceLocation: sourceLocation)
        }
    }

    /// One author and two posts on the server.
    private func seed(_ server: DRFServer) throws {
        try server.graph("users", "create", fields: ["id": 1, "user_name": "ada"])
        try server.graph("posts", "create", fields: ["id": 1, "author_id": 1, "title": "kept"])
        try server.graph("posts", "create", fields: ["id": 2, "author_id": 1, "title": "deleted later"])
    }

    /// A chain of twelve replies, each parent edited after its reply: DRF serves every reply before the
    /// comment it replies to, over three pages. A fresh device's first sync gets them all.
    @Test func repliesServedBeforeTheirParentsArriveOnAFreshDevice() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try seed(server)
        for id in Int64(1)...12 {
            var fields: [String: Any] = ["id": id, "post_id": 1, "body": "comment \(id)"]
            if id > 1 { fields["reply_to_id"] = id - 1 }
            try server.graph("comments", "create", fields: fields)
        }
        for id in (Int64(1)...11).reversed() {
            try server.graph("comments", "update", id: id, fields: ["body": "edited \(id)"])
        }
        let device = try Device(server)
        let report = try await device.store.sync()
        #expect(report.for(Comment.self)?.parked == 0)
        try await device.expectMirrors(server)
    }

    /// Another client soft-deletes a post (that row only); one of its comments is edited later. A
    /// fresh device and a device that had them both complete their syncs: the comments follow the
    /// post by their reference's rule (cascade), the other post's comments arrive.
    @Test func commentsOfAPostDeletedOnTheServerDoNotStopThePull() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try seed(server)
        try server.graph("comments", "create", fields: ["id": 20, "post_id": 2, "body": "on the deleted one"])
        try server.graph("comments", "create", fields: ["id": 21, "post_id": 2, "body": "also"])
        try server.graph("comments", "create", fields: ["id": 22, "post_id": 1, "body": "on the kept one"])
        let before = try Device(server)
        try await before.store.sync()
        #expect(try await before.comments.count() == 3)

        try server.graph("posts", "soft_delete", id: 2)
        try server.graph("comments", "update", id: 20, fields: ["body": "edited after the post went"])
        try server.graph("comments", "create", fields: ["id": 23, "post_id": 1, "body": "after"])
        try await before.store.sync()
        try await before.expectMirrors(server)

        let fresh = try Device(server)
        try await fresh.store.sync()
        try await fresh.expectMirrors(server)
        #expect(try await fresh.comments.fetch(id: 23)?.body == "after")
        // And the next sync is not stopped either.
        try server.graph("comments", "create", fields: ["id": 24, "post_id": 1, "body": "later"])
        try await fresh.store.sync()
        try await fresh.expectMirrors(server)
    }

    /// A stock view without `OrderingFilter` pages by id: a comment edited after a later one is served
    /// first. The pull stops with an error that names the endpoint, the records and the fix, instead of
    /// missing writes made during a pull.
    @Test func aViewThatIgnoresTheOrderingIsAClearError() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try seed(server)
        try server.graph("comments", "create", fields: ["id": 1, "post_id": 1, "body": "first"])
        try server.graph("comments", "create", fields: ["id": 2, "post_id": 1, "body": "second"])
        try server.graph("comments", "update", id: 1, fields: ["body": "edited later"])
        let database = try SQLiteDatabase.inMemory()
        _ = try server.makeGraphRepository(Post.self, "posts", database: database)
        let comments = try server.makeGraphRepository(Comment.self, "unordered-comments", database: database)
        do {
            try await comments.sync()
            Issue.record("a view that ignores the ordering should stop the pull")
        } catch {
            let message = "\(error)"
            #expect(message.contains("unordered-comments"))
            #expect(message.contains("record 2"))
            #expect(message.contains("OrderingFilter"))
        }
    }
}
