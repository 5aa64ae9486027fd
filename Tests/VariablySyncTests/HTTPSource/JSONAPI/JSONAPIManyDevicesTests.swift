import Foundation
import Testing
import VariablySQLite
import VariablySync

/// Several devices, one stock djangorestframework-jsonapi server (``JSONAPIServer``) declared as the
/// JSON:API recipe of docs/http.md declares it: each device creates comments (with a client reference in
/// `attributes.client_id`, creates in doubt looked up many a request by `filter[client_id.in]`), edits,
/// deletes and replies to comments offline; another client edits and soft-deletes comments and whole
/// articles (keeping their comments); syncs run in random order and are killed at random moments
/// (their task cancelled mid-push or mid-pull). Midway, one device turns concurrency on for its
/// existing cache (`If-Match` on `attributes.updated_at`), and the server's token expires now and then
/// (each device refreshes it on the `401`). After the runs every device holds the server's live
/// comments, the server holds each created comment once, every edit and deletion reached it or was
/// reported as a conflict, nothing is left unsent, no sync failed and no reference is broken
/// (``ManyDevices/Scenario``).
///
/// `VARIABLY_JSONAPI_DEVICE_RUNS=60 swift test --filter JSONAPIManyDevicesTests` runs more seeds on one
/// server; `VARIABLY_JSONAPI_DEVICE_FIRST_SEED` is the first seed, so that a long run can be split
/// between processes (each with its own server); `VARIABLY_JSONAPI_DEVICE_TRACE=1` prints every
/// operation and sync of a run.
// One test at a time, and one Django across the suites (JSONAPIServer.start waits its turn).
@Suite(
    .serialized, .timeLimit(.minutes(60)), .enabled(if: JSONAPIServer.isAvailable, JSONAPIServer.unavailableReason))
struct JSONAPIManyDevicesTests {
    static let settings = ManyDevices.Settings(prefix: "VARIABLY_JSONAPI_DEVICE")

    /// The JSON:API server as the scenario drives it: its people, articles (the posts) and comments.
    struct Backend: ManyDevices.Backend {
        let server: JSONAPIServer
        var name: String { "JSON:API" }
        var postsTable: String { "articles" }

        func clearLog() throws { try server.clearLog() }
        func createPost(id: Int64) throws {
            try server.write("articles", "create", fields: ["id": id, "author_id": 1, "title": "article \(id)"])
        }
        func currentToken() throws -> String { try server.currentToken() }
        func rotateToken() throws { try server.rotateToken() }

        func snapshot() throws -> ManyDevices.Snapshot {
            let state = try server.state()
            return ManyDevices.Snapshot(
                requests: state.requests, posts: state.articles.map { ($0.id, $0.deleted) },
                comments: state.comments.map {
                    ManyDevices.ServerComment(
                        id: $0.id, post: $0.article_id, replyTo: $0.reply_to_id, body: $0.body,
                        clientID: $0.client_id, deleted: $0.deleted)
                })
        }

        func replyAndEdit(_ target: ManyDevices.ServerComment) throws {
            try server.write(
                "comments", "create", fields: ["article_id": target.post, "reply_to_id": target.id, "body": "there"])
            try server.write("comments", "update", id: target.id, fields: ["body": "edited there"])
        }
        func softDeleteComment(id: Int64) throws { try server.write("comments", "soft_delete", id: id) }
        func softDeletePost(id: Int64) throws { try server.write("articles", "soft_delete", id: id) }

        func makeDevice(credentials: ManyDevices.Credentials, versioned: Bool, database: SQLiteDatabase?) throws
            -> ManyDevices.Device<JSONAPIRecipeTests.Comment>
        {
            let database = try database ?? SQLiteDatabase.inMemory()
            let blog = try JSONAPIRecipeTests.blog(
                on: server.baseURL, database: database, comments: commentsAPI(versioned: versioned),
                hook: credentials.requestHook)
            return ManyDevices.Device(
                comments: blog.comments, store: blog.store, database: database, credentials: credentials,
                isVersioned: versioned)
        }

        /// The recipe's comments' API; `versioned`, with `If-Match` on `attributes.updated_at`, as the
        /// server's mixin takes it.
        func commentsAPI(versioned: Bool) -> HTTPAPI {
            let api = JSONAPIRecipeTests.commentsAPI()
            guard versioned else { return api }
            return HTTPAPI(
                pull: api.pull,
                push: .perRecord(
                    HTTPRecordEndpoints(
                        path: "comments", update: .patch, body: .changedFields, readOnlyFields: ["id"],
                        versionField: "attributes.updated_at", concurrency: .ifMatch,
                        clientReference: .init(
                            field: "attributes.client_id", lookUp: .list(parameter: "filter[client_id.in]")),
                        writes: .jsonAPI(
                            type: "comments",
                            relationships: ["article": "articles", "author": "people", "reply_to": "comments"]))))
        }
    }

    @Test func devicesConvergeOnTheServerWithNothingDoubledOrLost() async throws {
        let server = try await JSONAPIServer.start(lifetime: 3_600)
        defer { server.stop() }
        try server.write("people", "create", fields: ["id": 1, "name": "ada"])
        let tally = try await ManyDevices.Scenario(server: Backend(server: server), settings: Self.settings).runAll()
        tally.expectConvergence()
        #expect(tally.failedSyncs == 0)
    }
}

extension JSONAPIRecipeTests.Comment: ManyDevices.DeviceComment {
    var post: Int64 { Int64(articleID) ?? 0 }

    static func create(
        in comments: Repository<JSONAPIRecipeTests.Comment>, post: Int64, replyTo: String?, clientID: UUID
    ) async throws {
        _ = try await comments.create {
            JSONAPIRecipeTests.Comment(
                id: $0, articleID: String(post), replyTo: replyTo, body: "new", clientID: clientID)
        }
    }
}
