import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync

/// Several devices, one real Django REST Framework with foreign keys: each device creates (with a
/// client reference, creates in doubt looked up many a request), edits, deletes and replies to
/// comments offline; another client edits and soft-deletes comments and whole posts (keeping their
/// comments); syncs run in random order and are killed at random moments (their task cancelled
/// mid-push or mid-pull). Midway, one device turns
/// concurrency on for its existing cache (`If-Match` on `updated_at`), and the server's token expires
/// now and then (each device refreshes it on the `401`). After the runs every device holds the
/// server's live comments, the server holds each created comment once, every edit and deletion
/// reached it or was reported as a conflict, nothing is left unsent and no reference is broken
/// (``ManyDevices/Scenario``).
///
/// `VARIABLY_DRF_DEVICE_RUNS=500 swift test --filter DRFManyDevicesTests` runs more seeds on one server;
/// `VARIABLY_DRF_DEVICE_FIRST_SEED` is the first seed, so that a long run can be split between
/// processes (each with its own server); `VARIABLY_DRF_DEVICE_TRACE=1` prints every operation and sync
/// of a run.
// One test at a time: it starts its own Django, which takes a core for a second or more.
@Suite(.serialized, .timeLimit(.minutes(60)), .enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason))
struct DRFManyDevicesTests {
    static let settings = ManyDevices.Settings(prefix: "VARIABLY_DRF_DEVICE")

    /// The DRF server as the scenario drives it: the graph's users, posts and comments.
    struct Backend: ManyDevices.Backend {
        let server: DRFServer
        var name: String { "DRF" }
        var postsTable: String { "posts" }

        func clearLog() throws { _ = try server.clearLog() }
        func createPost(id: Int64) throws {
            try server.graph("posts", "create", fields: ["id": id, "author_id": 1, "title": "post \(id)"])
        }
        func currentToken() throws -> String { try server.currentToken() }
        func rotateToken() throws { try server.rotateToken() }

        func snapshot() throws -> ManyDevices.Snapshot {
            let state = try server.state()
            return ManyDevices.Snapshot(
                requests: state.requests, posts: state.posts.map { ($0.id, $0.deleted) },
                comments: state.comments.map {
                    ManyDevices.ServerComment(
                        id: $0.id, post: $0.post_id, replyTo: $0.reply_to, body: $0.body, clientID: $0.client_id,
                        deleted: $0.deleted)
                })
        }

        func replyAndEdit(_ target: ManyDevices.ServerComment) throws {
            try server.graph(
                "comments", "create", fields: ["post_id": target.post, "reply_to_id": target.id, "body": "there"])
            try server.graph("comments", "update", id: target.id, fields: ["body": "edited there"])
        }
        func softDeleteComment(id: Int64) throws { try server.graph("comments", "soft_delete", id: id) }
        func softDeletePost(id: Int64) throws { try server.graph("posts", "soft_delete", id: id) }

        func makeDevice(credentials: ManyDevices.Credentials, versioned: Bool, database: SQLiteDatabase?) throws
            -> ManyDevices.Device<Comment>
        {
            let database = try database ?? SQLiteDatabase.inMemory()
            let hook = credentials.requestHook
            func source<Model: SQLiteStorable & Identifiable & Sendable>(_: Model.Type, _ api: HTTPAPI)
                -> HTTPRemoteSource<Model>
            {
                HTTPRemoteSource<Model>(baseURL: server.baseURL, api: api, timeout: 10) { request, attempt in
                    try await hook(&request, attempt)
                }
            }
            let users = try Repository(
                database: database, remote: source(User.self, DRFServer.graphAPI("users")),
                configuration: SyncConfiguration(pageSize: 5, retryPolicy: quickRetries))
            let posts = try Repository(
                database: database, remote: source(Post.self, DRFServer.graphAPI("posts")),
                configuration: SyncConfiguration(pageSize: 5, retryPolicy: quickRetries))
            let comments = try Repository(
                database: database, remote: source(Comment.self, commentsAPI(versioned: versioned)),
                configuration: SyncConfiguration(retryPolicy: quickRetries))
            return ManyDevices.Device(
                comments: comments, store: try SyncStore(comments, posts, users), database: database,
                credentials: credentials, isVersioned: versioned)
        }

        /// The comments' API; `versioned`, with `If-Match` on `updated_at`, as the server's mixin takes it.
        func commentsAPI(versioned: Bool) -> HTTPAPI {
            let api = DRFExactlyOnceTests.commentsAPI(clientReference: true, manyAtOnce: true)
            guard versioned else { return api }
            return HTTPAPI(
                pull: api.pull,
                push: .perRecord(
                    HTTPRecordEndpoints(
                        path: "graph/comments", trailingSlash: true, update: .patch, body: .changedFields,
                        readOnlyFields: ["id", "updated_at", "deleted"], versionField: "updated_at",
                        concurrency: .ifMatch,
                        clientReference: .init(field: "client_id", lookUp: .list(parameter: "client_id__in")))))
        }
    }

    @Test func devicesConvergeOnTheServerWithNothingDoubledOrLost() async throws {
        let server = try await DRFServer.start(lifetime: 3_600)
        defer { server.stop() }
        try server.graph("users", "create", fields: ["id": 1, "user_name": "ada"])
        let tally = try await ManyDevices.Scenario(server: Backend(server: server), settings: Self.settings).runAll()
        tally.expectConvergence()
    }
}

extension Comment: ManyDevices.DeviceComment {
    var post: Int64 { postID }

    static func create(in comments: Repository<Comment>, post: Int64, replyTo: Int64?, clientID: UUID) async throws {
        _ = try await comments.create {
            Comment(id: $0, postID: post, replyTo: replyTo, body: "new", clientID: clientID)
        }
    }
}
