import Foundation
import Testing
import UserSyncModels
import VariablyHTTP
import VariablySQLite
import VariablySync

/// A transport whose first write of a method is applied by the server and its answer lost, as a
/// timeout after the server's commit would: the caller sees `timedOut`.
struct LosingFirstAnswerTransport: HTTPTransport {
    let base: any HTTPTransport
    let method: String
    let lost = Once()

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let response = try await base.send(request)
        if request.method == method, (200..<300).contains(response.status), await lost.first() {
            for try await _ in response.body {}
            throw HTTPTransportError.timedOut(request: "\(request.method) \(request.url.path)", seconds: 10)
        }
        return response
    }
}

/// Against a real DRF, which ignores `Idempotency-Key`: a write whose answer is lost inside a sync is
/// sent again by that sync's own retry, as a write that may have been applied.
@Suite(.serialized, .timeLimit(.minutes(15)), .enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason))
struct DRFLostAnswerTests {
    @Test func aCreateWhoseAnswerIsLostIsAdoptedByTheSyncsOwnRetry() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.graph("users", "create", fields: ["id": 1, "user_name": "ada"])
        try server.graph("posts", "create", fields: ["id": 1, "author_id": 1, "title": "kept"])
        let database = try SQLiteDatabase.inMemory()
        let (comments, store) = try DRFKilledPush.comments(
            baseURL: server.baseURL, token: server.token, database: database,
            transport: LosingFirstAnswerTransport(base: HTTPTransports.platformDefault, method: "POST"))
        try await store.sync()
        let clientID = UUID()
        _ = try await comments.create { Comment(id: $0, postID: 1, body: "written offline", clientID: clientID) }

        let report = try await comments.sync()
        #expect(report.failed.isEmpty)
        #expect(report.retries >= 1)
        let state = try server.state()
        #expect(state.comments.filter { $0.client_id?.lowercased() == clientID.uuidString.lowercased() }.count == 1)
        #expect(state.requests.filter { $0.method == "POST" }.count == 1)
        #expect(try await comments.unsentChanges().isEmpty)
        #expect(try await comments.fetch().map(\.clientID) == [clientID])
    }

    /// An edit of a user under `If-Match` whose answer is lost: sent again, it meets its own write (`412`, the
    /// server's copy holding what was sent), which is no conflict.
    @Test func anEditWhoseAnswerIsLostIsNotAConflictWithItself() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(2)
        let database = try SQLiteDatabase.inMemory()
        let users = try Repository(
            database: database,
            remote: HTTPRemoteSource<User>(
                baseURL: server.baseURL, api: DRFServer.api(.page, endpoint: "checked", concurrency: .ifMatch),
                headers: ["Authorization": "Token \(server.token)"],
                transport: LosingFirstAnswerTransport(base: HTTPTransports.platformDefault, method: "PATCH")),
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        try await users.sync()
        var user = try #require(try await users.fetch(id: 1))
        user.userName = "edited here"
        try await users.save(user)

        let report = try await users.sync()
        #expect(report.conflicts.isEmpty)
        #expect(report.retries >= 1)
        #expect(try server.state().users.first { $0.id == 1 }?.user_name == "edited here")
        #expect(try await users.fetch(id: 1)?.userName == "edited here")
        #expect(try await users.unsentChanges().isEmpty)
    }

    /// A comment deleted here while its create was in doubt (sent, its answer lost, the sync given up):
    /// the server's copy is found by its client reference and deleted, not left behind.
    @Test func aRecordDeletedWhileItsCreateWasInDoubtIsDeletedOnTheServer() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.graph("users", "create", fields: ["id": 1, "user_name": "ada"])
        try server.graph("posts", "create", fields: ["id": 1, "author_id": 1, "title": "kept"])
        let database = try SQLiteDatabase.inMemory()
        let users = try server.makeGraphRepository(User.self, "users", database: database)
        let posts = try server.makeGraphRepository(Post.self, "posts", database: database)
        let comments = try Repository(
            database: database,
            remote: HTTPRemoteSource<Comment>(
                baseURL: server.baseURL, api: DRFExactlyOnceTests.commentsAPI(clientReference: true),
                headers: ["Authorization": "Token \(server.token)"], timeout: 10,
                transport: LosingFirstAnswerTransport(base: HTTPTransports.platformDefault, method: "POST")),
            configuration: SyncConfiguration(
                retryPolicy: RetryPolicy(
                    maxAttempts: 1, initialDelay: .microseconds(10), maxDelay: .microseconds(50), seed: 1)))
        let store = try SyncStore(comments, posts, users)
        try await store.sync()
        let clientID = UUID()
        let local = try await comments.create {
            Comment(id: $0, postID: 1, body: "written offline", clientID: clientID)
        }
        await #expect(throws: (any Error).self) { try await comments.sync() }
        #expect(try server.state().comments.filter { !$0.deleted }.count == 1)  // the server has it

        try await comments.delete(id: local.id)
        try await comments.sync()
        let state = try server.state()
        #expect(state.comments.filter { !$0.deleted }.isEmpty)
        #expect(state.requests.filter { $0.method == "POST" }.count == 1)
        #expect(try await comments.unsentChanges().isEmpty)
        #expect(try await comments.fetch().isEmpty)
    }
}
