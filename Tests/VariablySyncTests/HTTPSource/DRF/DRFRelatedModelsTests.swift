import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync

/// Related models against a real Django REST Framework with a real foreign key: users and their
/// posts, created offline with provisional ids, pushed through a `SyncStore`.
// One test at a time, and one server across the suites (DRFServer.start waits its turn, hence the
// time limit): each starts its own Django, which takes a core for a second or more.
@Suite(.serialized, .timeLimit(.minutes(15)), .enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason))
struct DRFRelatedModelsTests {
    /// The users' and posts' repositories on one in-memory cache, and their store.
    static func graph(on server: DRFServer) throws -> (Repository<User>, Repository<Post>, SyncStore) {
        let database = try SQLiteDatabase.inMemory()
        let users = try server.makeGraphRepository(User.self, "users", database: database)
        let posts = try server.makeGraphRepository(Post.self, "posts", database: database)
        return (users, posts, try SyncStore(posts, users))
    }

    /// A user and two posts created offline: the author is posted first, the id DRF assigns
    /// replaces the provisional one in the posts, and DRF accepts them (it checks the foreign key).
    @Test func offlineParentsAndChildrenReachTheServerWithItsIDs() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let (users, posts, store) = try Self.graph(on: server)
        try await store.sync()

        let author = try await users.create { User(id: $0, userName: "ada") }
        _ = try await posts.create { Post(id: $0, authorID: author.id, title: "notes") }
        _ = try await posts.create { Post(id: $0, authorID: author.id, title: "more notes") }
        let report = try await store.sync()
        #expect(report.for(User.self)?.pushed == 1)
        #expect(report.for(Post.self)?.pushed == 2)

        let state = try server.state()
        let stored = try #require(state.users.first)
        #expect(state.users.map(\.user_name) == ["ada"])
        #expect(state.posts.map(\.author_id) == [stored.id, stored.id])
        #expect(
            state.requests.filter { $0.method == "POST" }.map(\.path) == [
                "/api/graph/users/", "/api/graph/posts/", "/api/graph/posts/",
            ])
        let cachedPosts = try await posts.fetch(sortedBy: [SortDescriptor(\.id)])
        #expect(cachedPosts.map(\.authorID) == [stored.id, stored.id])
        #expect(cachedPosts.map(\.id) == state.posts.map(\.id))
        #expect(try await users.fetch().map(\.id) == [stored.id])
        #expect(try await posts.pendingChangeCount() + users.pendingChangeCount() == 0)
    }

    /// DRF refuses the author: its post is held, not sent, reported with the refusal; fixed, both go.
    @Test func aRefusedUserHoldsItsPost() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let (users, posts, store) = try Self.graph(on: server)

        var author = try await users.create { User(id: $0, userName: "forbidden") }
        let authorID = author.id
        _ = try await posts.create { Post(id: $0, authorID: authorID, title: "waits") }
        let report = try await store.sync()
        #expect(report.for(User.self)?.failed.first?.reason.hasPrefix("HTTP 400") == true)
        let held = try #require(report.for(Post.self)?.waitingForParent.first)
        #expect(held.reason.contains("which the server refused: HTTP 400"))
        #expect(try server.state().posts.isEmpty)
        #expect(
            try server.state().requests.filter { $0.path.hasPrefix("/api/graph/posts/") && $0.method == "POST" }.isEmpty
        )

        author.userName = "allowed"
        try await users.save(author)
        try await store.sync()
        let state = try server.state()
        #expect(state.users.map(\.user_name) == ["allowed"])
        #expect(state.posts.map(\.title) == ["waits"])
        #expect(state.posts.first?.author_id == state.users.first?.id)
    }

    /// Deleting a user here deletes its posts (cascade): the posts' deletions go first, then
    /// the author's; the server's tombstones come back without re-deleting anything.
    @Test func aCascadedLocalDeletionGoesChildrenFirst() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let (users, posts, store) = try Self.graph(on: server)
        let author = try await users.create { User(id: $0, userName: "ada") }
        _ = try await posts.create { Post(id: $0, authorID: author.id, title: "one") }
        try await store.sync()
        let stored = try #require(try await users.fetch().first)

        try server.clearLog()
        try await users.delete(id: stored.id)
        #expect(try await posts.count() == 0)

        try await store.sync()
        let state = try server.state()
        #expect(
            state.requests.filter { $0.method == "DELETE" }.map(\.path).first?.hasPrefix("/api/graph/posts/") == true)
        #expect(state.users.allSatisfy { $0.deleted })
        #expect(state.posts.allSatisfy { $0.deleted })
        #expect(try await users.pendingChangeCount() + posts.pendingChangeCount() == 0)
    }

    /// A user's `age` and `score` are one nested `profile` object in its JSON: an edit of the age alone
    /// sends `profile.age` alone in the PATCH (the changed leaf, inside its object), and DRF's nested
    /// serializer keeps the score it has.
    @Test func anEditedProfileMemberIsPatchedAlone() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let (users, _, store) = try Self.graph(on: server)
        _ = try await users.create { id in
            var user = User(id: id, userName: "ada")
            user.score = 2.5
            return user
        }
        try await store.sync()
        var ada = try #require(try await users.fetch().first)
        #expect(try server.state().users.map(\.profile) == [.init(age: 30, score: 2.5)])

        try server.clearLog()
        ada.age = 41
        try await users.save(ada)
        try await store.sync()
        let state = try server.state()
        let patch = try #require(state.requests.first { $0.method == "PATCH" })
        #expect(patch.path == "/api/graph/users/\(ada.id)/")
        let body = try #require(
            try JSONSerialization.jsonObject(with: Data((patch.body ?? "").utf8)) as? [String: Any])
        #expect(body.keys.sorted() == ["profile"])
        let profile = try #require(body["profile"] as? [String: Any])
        // The changed leaf alone: the server keeps the score it has.
        #expect(profile["age"] as? Int == 41)
        #expect(profile["score"] == nil)
        #expect(state.users.map(\.profile) == [.init(age: 41, score: 2.5)])
        let cached = try #require(try await users.fetch(id: ada.id))
        #expect((cached.age, cached.score) == (41, 2.5))
        #expect(try await users.pendingChangeCount() == 0)
    }

    /// DRF keeps one live author per name. The author `bob` is deleted, then another `bob` is created
    /// in a later transaction: the deletion goes first, so DRF accepts the new `bob`; sent saves first,
    /// DRF would refuse it.
    @Test func aDeletionGoesBeforeALaterTransactionsCreate() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let (users, _, store) = try Self.graph(on: server)
        _ = try await users.create { User(id: $0, userName: "bob") }
        try await store.sync()
        let first = try #require(try await users.fetch().first)

        try await users.delete(id: first.id)
        _ = try await users.create { User(id: $0, userName: "bob") }
        let report = try await store.sync()
        #expect(report.for(User.self)?.failed.isEmpty == true)
        #expect(report.for(User.self)?.pushed == 2)
        let state = try server.state()
        #expect(state.users.filter { !$0.deleted }.map(\.user_name) == ["bob"])
        #expect(state.users.filter(\.deleted).map(\.id) == [first.id])
        #expect(try await users.fetch().map(\.userName) == ["bob"])
        #expect(try await users.pendingChangeCount() == 0)
    }
}
