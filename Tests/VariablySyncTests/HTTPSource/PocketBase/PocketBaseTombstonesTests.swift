import Foundation
import Testing
import VariablyHTTP
import VariablySQLite
import VariablySync

/// Deletions against a real PocketBase, for good (as it deletes) and kept as tombstones by the hook of
/// docs/http.md's recipe (``PocketBaseServer/tombstoneHook``), declared `deletions: .tombstones(flag:
/// "deleted")`. PocketBase keeps no trace of a record deleted for good: a device whose create is in doubt
/// cannot tell a create never applied from one another client deleted since, and sends it again. A
/// tombstone tells them apart.
// One test at a time: each starts its own PocketBase.
@Suite(
    .serialized, .timeLimit(.minutes(10)),
    .enabled(if: PocketBaseServer.isAvailable, PocketBaseServer.unavailableReason))
struct PocketBaseTombstonesTests {
    /// A `comments` record as PocketBase writes it, its `deleted` flag with it.
    struct ServerComment: Decodable, Equatable {
        var id: String
        var reply_to: String
        var body: String
        var deleted: Bool
    }

    /// A server keeping comments as `deletions` says, a post on it, and a device that has synced it.
    private func start(_ deletions: PocketBaseServer.CommentDeletions, transport: any HTTPTransport)
        async throws -> (
            server: PocketBaseServer, post: String, comments: Repository<PocketBaseComment>, store: SyncStore
        )
    {
        let server = try await PocketBaseServer.start(commentDeletions: deletions)
        let author = try await server.create("users", fields: ["user_name": "ada"])
        let post = try await server.create("posts", fields: ["author": author, "title": "first"])
        let (comments, store) = try server.graph(on: .inMemory(), transport: transport, retryPolicy: .never)
        try await store.sync()
        return (server, post, comments, store)
    }

    /// A comment created on the device whose `POST` answer is lost; another client deletes it before the
    /// device syncs again. Returns the next sync's report and the comment's id.
    private func deleteWhileInDoubt(_ deletions: PocketBaseServer.CommentDeletions) async throws -> (
        server: PocketBaseServer, comments: Repository<PocketBaseComment>, report: SyncStoreReport, id: String
    ) {
        let losing = LosingFirstWriteTransport(
            base: HTTPTransports.platformDefault, method: "POST", path: "/api/collections/comments/records")
        let (server, post, comments, store) = try await start(deletions, transport: losing)
        let comment = try await comments.create { PocketBaseComment(id: $0, postID: post, replyTo: nil, body: "mine") }
        await #expect(throws: (any Error).self) { try await store.sync() }
        #expect(try await server.records("comments", as: ServerComment.self).map(\.body) == ["mine"])

        try await server.delete("comments", id: comment.id)
        let report = try await store.sync()
        return (server, comments, report, comment.id)
    }

    /// Without tombstones the deletion is undone: the device finds no record of its id and creates it
    /// again, as docs/http.md says ("Deletions").
    @Test func aCreateInDoubtDeletedForGoodIsCreatedAgain() async throws {
        let (server, comments, report, id) = try await deleteWhileInDoubt(.forGood)
        defer { server.stop() }
        #expect(report.for(PocketBaseComment.self)?.conflicts.isEmpty == true)
        #expect(try await server.records("comments", as: ServerComment.self).map(\.id) == [id])
        #expect(try await comments.fetch(id: id) != nil)
    }

    /// With tombstones the device finds its create deleted: a conflict with that deletion, reported, which
    /// the server wins. The comment stays deleted and leaves the device's cache.
    @Test func aCreateInDoubtDeletedByAnotherClientStaysDeletedWithTombstones() async throws {
        let (server, comments, report, id) = try await deleteWhileInDoubt(.keptAsTombstones)
        defer { server.stop() }
        #expect(report.for(PocketBaseComment.self)?.conflicts.map(\.id) == [id])
        #expect(report.for(PocketBaseComment.self)?.failed.isEmpty == true)
        let onServer = try await server.records("comments", as: ServerComment.self)
        #expect(onServer.map(\.id) == [id])
        #expect(onServer.map(\.deleted) == [true])
        #expect(try await comments.fetch(id: id) == nil)
        #expect(try await comments.pendingChangeCount() == 0)
    }

    /// A deletion through the hook answers as PocketBase's own (`204`), empties the replies' `reply_to`,
    /// and reaches another device as a tombstone in its next incremental sync, without a listing of ids.
    /// An edit of the deleted comment queued on that device meets the deletion: the server wins.
    @Test func aDeletionReachesAnotherDeviceAsATombstone() async throws {
        let (server, post, comments, store) = try await start(
            .keptAsTombstones, transport: HTTPTransports.platformDefault)
        defer { server.stop() }
        let parent = try await comments.create { PocketBaseComment(id: $0, postID: post, replyTo: nil, body: "parent") }
        let reply = try await comments.create {
            PocketBaseComment(id: $0, postID: post, replyTo: parent.id, body: "reply")
        }
        try await store.sync()
        let (other, otherStore) = try server.graph(on: .inMemory())
        try await otherStore.sync()
        #expect(try await other.fetch(id: reply.id)?.replyTo == parent.id)

        try await comments.delete(id: parent.id)
        try await store.sync()
        var edited = try #require(try await other.fetch(id: parent.id))
        edited.body = "edited after its deletion"
        try await other.save(edited)
        let report = try await otherStore.sync()

        #expect(report.for(PocketBaseComment.self)?.failed.isEmpty == true)
        let onServer = try await server.records("comments", as: ServerComment.self).sorted { $0.body < $1.body }
        #expect(onServer.map(\.body) == ["parent", "reply"])
        #expect(onServer.map(\.deleted) == [true, false])
        #expect(onServer.map(\.reply_to) == ["", ""])
        for repository in [comments, other] {
            #expect(try await repository.fetch().map(\.id) == [reply.id])
            #expect(try await repository.fetch(id: reply.id)?.replyTo == nil)
            #expect(try await repository.pendingChangeCount() == 0)
        }
    }

    /// The hook these tests run is the one docs/http.md shows, line for line.
    @Test func theHookIsTheOneTheDocsShow() throws {
        let root = URL(fileURLWithPath: #filePath)
        let docs = try String(
            contentsOf: (0..<5).reduce(root) { url, _ in url.deletingLastPathComponent() }
                .appendingPathComponent("docs/http.md"),
            encoding: .utf8)
        let shown = PocketBaseServer.tombstoneHook.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
        #expect(docs.contains("  ```js\n" + shown + "\n  ```"))
    }
}
