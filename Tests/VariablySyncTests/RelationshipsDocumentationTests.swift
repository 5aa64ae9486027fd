// The examples below are the documentation's own lines, kept as the documents have them.
// swift-format-ignore-file
import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

// The examples of docs/relationships.md, compiled and run (DocumentationCoverageTests checks that every
// example's lines are here, in order). The models are nested in the suite so that they never meet the
// tests' own models of the same names. The behaviour behind each example is tested under Engine/.

@Suite struct RelationshipsDocumentationTests {
    struct User: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
        var id: Int64
        var userName: String

        init(id: Int64, userName: String) { (self.id, self.userName) = (id, userName) }
        init(from container: DecodingContainer<User>) throws {
            id = try container.decode(\.id)
            userName = try container.decode(\.userName)
        }

        static let keySets = KeySets<User>(defaultSource: .remote) {
            KeySet(.remote) { Key(\.id, "id"); Key(\.userName, "user_name") }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<User>("users", primaryKey: \.id)
    }

    struct Post: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
        var id: Int64
        var authorID: Int64
        var title: String

        init(id: Int64, authorID: Int64, title: String) { (self.id, self.authorID, self.title) = (id, authorID, title) }
        init(from container: DecodingContainer<Post>) throws {
            id = try container.decode(\.id)
            authorID = try container.decode(\.authorID)
            title = try container.decode(\.title)
        }

        static let keySets = KeySets<Post>(defaultSource: .remote) {
            KeySet(.remote) { Key(\.id, "id"); Key(\.authorID, "author_id"); Key(\.title, "title") }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<Post>(
            "posts", primaryKey: \.id, [.references(\.authorID, User.self, onDelete: .cascade)])
    }

    struct Comment: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
        var id: Int64
        var postID: Int64
        var replyTo: Int64?
        var body: String

        init(id: Int64, postID: Int64, replyTo: Int64? = nil, body: String) {
            (self.id, self.postID, self.replyTo, self.body) = (id, postID, replyTo, body)
        }
        init(from container: DecodingContainer<Comment>) throws {
            id = try container.decode(\.id)
            postID = try container.decode(\.postID)
            replyTo = try container.decode(\.replyTo)
            body = try container.decode(\.body)
        }

        static let keySets = KeySets<Comment>(defaultSource: .remote) {
            KeySet(.remote) { Key(\.id, "id"); Key(\.postID, "post_id"); Key(\.replyTo, "parent_id"); Key(\.body, "body") }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<Comment>(
            "comments", primaryKey: \.id,
            [.references(\.postID, Post.self, onDelete: .cascade), .references(\.replyTo, Comment.self, onDelete: .setNull)])
    }

    /// A fresh folder for one test's database file.
    private static func withFolder<T>(_ body: (String) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("relationships-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder.appendingPathComponent("blog.sqlite").path)
    }

    /// "Syncing the graph", "Transactions and push order" and "Reading a record with its children".
    @Test func theStoreExamples() async throws {
        try await Self.withFolder { databasePath in
            let usersRemote = try SimulatedServer(records: [User(id: 1, userName: "ada")])
            let postsRemote = try SimulatedServer(records: [Post(id: 10, authorID: 1, title: "first")])
            let commentsRemote = try SimulatedServer(
                records: [Comment(id: 100, postID: 10, body: "nice"), Comment(id: 101, postID: 10, replyTo: 100, body: "thanks")])

            let database = try SQLiteDatabase(path: databasePath)
            let users = try Repository<User>(database: database, remote: usersRemote)
            let posts = try Repository<Post>(database: database, remote: postsRemote)
            let comments = try Repository<Comment>(database: database, remote: commentsRemote)
            let store = try SyncStore(comments, posts, users)   // any order: the references give it
            let progress = store.progressUpdates()
            Task { for await event in progress { print(event) } }   // .started, .pushed, .applied, … .finished once
            let report = try await store.sync()
            print(report.for(Post.self)?.waitingForParent ?? [])
            #expect(report.for(Comment.self)?.inserted == 2)

            let bob = User(id: 8, userName: "bob")
            try await users.save(bob)
            try await store.sync()
            try await users.delete(id: bob.id)                                   // transaction 1: a deletion
            try await database.write { db in                                     // transaction 2: saves
                try db.upsert(User(id: 7, userName: "bob"))
                try db.upsert(Post(id: 70, authorID: 7, title: "hello again"))
            }
            try await store.sync()   // round 1: delete user bob; round 2: save user 7, then post 70
            #expect(await usersRemote.record(id: 8) == nil)
            #expect(await postsRemote.record(id: 70)?.authorID == 7)

            let threads = try await posts.fetch(
                where: #Predicate { $0.authorID == 1 }, sortedBy: [SortDescriptor(\.id)], including: Comment.self, by: \.postID)
            for thread in threads { print(thread.parent.title, thread.children.count) }
            #expect(threads.map(\.parent.id) == [10])
            #expect(threads.first?.children.map(\.id) == [100, 101])
        }
    }

    /// "One feed, one batch": compiled only; HTTPRemoteFeedTests syncs a feed from a loopback server.
    func theFeedExample(database: SQLiteDatabase, apiURL: URL) async throws {
        let users = try Repository<User>(database: database, remote: HTTPRemoteSource(baseURL: apiURL.appendingPathComponent("users")))
        let posts = try Repository<Post>(database: database, remote: HTTPRemoteSource(baseURL: apiURL.appendingPathComponent("posts")))
        let comments = try Repository<Comment>(database: database, remote: HTTPRemoteSource(baseURL: apiURL.appendingPathComponent("comments")))
        let feed = HTTPRemoteFeed(baseURL: apiURL, api: .changeFeed)
        let store = try SyncStore(comments, posts, users, feed: feed)
        let report = try await store.sync()
        print(report.for(Post.self)?.parked ?? 0)
    }
}
