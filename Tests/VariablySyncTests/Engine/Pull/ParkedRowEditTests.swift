import Foundation
import Testing
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A cached row whose parent the server deleted, while keeping the row, leaves the cache through a
/// restricting reference (it cannot stay without its parent); an edit made here before that pull is
/// still sent, from the values the row had here, never dropped as a conflict the server won.
@Suite struct ParkedRowEditTests {
    struct Post: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
        var id: Int64
        var title: String

        init(id: Int64, title: String) { (self.id, self.title) = (id, title) }
        init(from container: DecodingContainer<Post>) throws {
            id = try container.decode(\.id)
            title = try container.decode(\.title)
        }

        static let keySets = KeySets<Post>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id"); Key(\.title, "title")
            }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<Post>("restricted_posts", primaryKey: \.id)
    }

    /// A comment whose post cannot be deleted under it (`.restrict`, the default rule).
    struct Comment: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
        var id: Int64
        var postID: Int64
        var text: String

        init(id: Int64, postID: Int64, text: String) { (self.id, self.postID, self.text) = (id, postID, text) }
        init(from container: DecodingContainer<Comment>) throws {
            id = try container.decode(\.id)
            postID = try container.decode(\.postID)
            text = try container.decode(\.text)
        }

        static let keySets = KeySets<Comment>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id"); Key(\.postID, "post_id"); Key(\.text, "text")
            }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<Comment>(
            "restricted_comments", primaryKey: \.id, [.references(\.postID, Post.self)])
    }

    @Test func anEditOfARowParkedForItsDeletedParentIsStillSent() async throws {
        let database = try SQLiteDatabase.inMemory()
        let postServer = try SimulatedServer(
            records: [Post(id: 1, title: "kept"), Post(id: 2, title: "deleted")], seed: 1)
        let commentServer = try SimulatedServer(
            records: [Comment(id: 10, postID: 2, text: "first"), Comment(id: 11, postID: 1, text: "other")], seed: 2)
        let posts = try Repository(database: database, remote: postServer)
        let comments = try Repository(database: database, remote: commentServer)
        let store = try SyncStore(comments, posts)
        try await store.sync()
        #expect(try await comments.fetch(id: 10)?.text == "first")

        try await comments.save(Comment(id: 10, postID: 2, text: "edited here"))
        await postServer.delete(id: 2)  // the server keeps the post's comments
        // The posts pulled alone: the deletion takes the comment out of the cache, parked with its values.
        try await posts.sync()
        #expect(try await comments.fetch(id: 10) == nil)
        #expect(try await comments.fetch(id: 11)?.text == "other")
        #expect(try await comments.unsentChanges().map { $0.id(as: Int64.self) } == [10])
        try await expectNoBrokenReferences(database)

        let report = try await comments.sync()
        #expect(report.pushed == 1)
        #expect(report.conflicts.isEmpty)
        #expect(await commentServer.record(id: 10)?.text == "edited here")
        #expect(try await comments.unsentChanges().isEmpty)
        #expect(try await comments.fetch(id: 10) == nil)  // still without its post, out of readers' sight
        try await expectNoBrokenReferences(database)
        // Later syncs are not stopped by it.
        _ = try await commentServer.upsert(Comment(id: 12, postID: 1, text: "later"))
        try await store.sync()
        #expect(try await comments.fetch(id: 12)?.text == "later")
    }
}
