// The examples below are the documentation's own lines, kept as the documents have them.
// swift-format-ignore-file
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting
import VariablyTestSupport

// The examples of docs/http.md, compiled (DocumentationCoverageTests checks that every example's lines
// are here, in order); their behaviour against real servers is tested under Tests/VariablySyncTests/HTTP/.

/// docs/http.md's lines of the model side of a client reference, as the sample's `Comment` has them.
private struct ReferencedNote: VariablyCodable, Sendable {
    public var clientID: UUID?

    init(from container: DecodingContainer<ReferencedNote>) throws {
        clientID = try container.decode(\.clientID)
    }

    static let keySets = KeySets<ReferencedNote>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.clientID, "client_id")
        }
    }
}

/// Stands for the app's own credentials store in the request hook example.
private actor Session {
    private(set) var refreshes = 0
    func token() -> String { "token-\(refreshes)" }
    func refreshedToken() throws -> String {
        refreshes += 1
        return "token-\(refreshes)"
    }
}

@Suite struct HTTPDocumentationTests {
    /// A user's post, the record of the examples' post endpoints (nested, apart from the tests' own models).
    struct Post: VariablyCodable, Identifiable, Sendable {
        var id: Int64
        var title: String

        init(from container: DecodingContainer<Post>) throws {
            id = try container.decode(\.id)
            title = try container.decode(\.title)
        }

        static let keySets = KeySets<Post>(defaultSource: .remote) {
            KeySet(.remote) { Key(\.id, "id"); Key(\.title, "title") }
        }
    }

    @Test func theThreeShapesOfConnectYourAPI() async throws {
        let session = Session()
        // 1. The package's own envelope.
        let remote = HTTPRemoteSource<User>(baseURL: URL(string: "https://api.example.com/v1/users")!)
        #expect(remote.acceptsPushes)
        if case .changesEnvelope(let path) = remote.api.push { #expect(path == "changes") } else { Issue.record("not the envelope") }

        // 2. A cursor-token API, records under `data`, deletions as tombstones.
        let tokenAPI = HTTPAPI(
            pull: HTTPPullShape(
                path: "items", records: "data", paging: .token(parameter: "cursor", next: "meta.next_cursor"),
                hasMore: "meta.has_more", deletions: .tombstones(flag: "deleted")),
            push: .none)
        let items = HTTPRemoteSource<User>(baseURL: URL(string: "https://api.example.com/v2")!, api: tokenAPI)
        #expect(!items.acceptsPushes)
        #expect(items.api.pull.records == DataPath(["data"]))

        // 3. A page API with `Link` headers and `updated_since`, written record by record.
        let postsAPI = HTTPAPI(
            pull: HTTPPullShape(
                path: "posts", paging: .nextLink,
                changedSince: .updatedSince(parameter: "updated_since", field: "updated_at"), limitParameter: "per_page"),
            push: .perRecord(HTTPRecordEndpoints(path: "posts", update: .put, versionField: "version", concurrency: .ifMatch)))
        let posts = HTTPRemoteSource<Post>(
            baseURL: URL(string: "https://api.example.com")!, api: postsAPI,
            prepare: { request, attempt in
                let token = attempt.isRetryAfterUnauthorized ? try await session.refreshedToken() : await session.token()
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            })
        var request = URLRequest(url: posts.baseURL)
        try await posts.prepare?(&request, HTTPRequestAttempt(isRetryAfterUnauthorized: true))
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer token-1")

        let everyArgument = HTTPPullShape(
            path: "posts/", records: "results", paging: .page(parameter: "page", first: 1), hasMore: nil,
            deletions: .tombstones(flag: "deleted"),
            changedSince: .updatedSince(parameter: "updated_since", field: "updated_at", lookBack: .seconds(5)),
            limitParameter: "page_size", idKey: "id", query: ["ordering": "updated_at,id"], endsOnNotFound: true)
        #expect(everyArgument.endsOnNotFound)
    }

    /// docs/http.md, "Exactly-once creates"; DRFExactlyOnceTests pushes through it against a real DRF.
    /// docs/http.md, 2: every name the shape takes is a path (JSON:API's `attributes`).
    @Test func namesArePaths() {
        let shape =
  HTTPPullShape(
      path: "people", records: "data", paging: .nextURL(at: "links.next"),
      deletions: .tombstones(flag: "attributes.deleted"),
      changedSince: .updatedSince(parameter: "filter[updated_since]", field: "attributes.updated_at"),
      limitParameter: "page[size]")
        #expect(shape.records == "data")
    }

    @Test func theClientReferenceDeclaration() {
        let comments = HTTPRecordEndpoints(
            path: "comments", trailingSlash: true, update: .patch, body: .changedFields,
            readOnlyFields: ["id", "updated_at"],
            clientReference: .init(field: "client_id", lookUp: .list(parameter: "client_id__in")))
        #expect(comments.clientReference == .init(field: "client_id", lookUp: .list(parameter: "client_id__in")))
        #expect(comments.readOnlyFields == ["id", "updated_at"])
    }

    /// docs/http.md, the Swift side of the client reference (the sample's `Comment`, whose remote key set
    /// has `Key(\.clientID, "client_id")`); DRFExactlyOnceTests creates comments this way on a real DRF.
    @Test func theClientReferenceIsSetAtCreate() async throws {
        let database = try SQLiteDatabase.inMemory()
        let users = try Repository(
            database: database, remote: try SimulatedServer(records: [User(id: 1, userName: "ada")], seed: 1))
        let posts = try Repository(
            database: database, remote: try SimulatedServer(records: [UserSyncModels.Post(id: 1, authorID: 1, title: "t")], seed: 1))
        let comments = try Repository(
            database: database, remote: try SimulatedServer<Comment>(records: [], seed: 1))
        try await users.sync()
        try await posts.sync()
        _ = try await comments.create { Comment(id: $0, postID: 1, body: "written offline", clientID: UUID()) }
        #expect(try await comments.fetch().first?.clientID != nil)
        let keys = Comment.keySets[.remote]?.entries.first { $0.keyPath == \Comment.clientID }
        #expect(keys?.key.alternatives.first == DataPath(dotted: "client_id"))
        #expect(ReferencedNote.keySets[.remote]?.entries.count == 1)
    }

    /// docs/http.md, "4. Django REST Framework"; DRFSyncTests syncs this declaration with a real DRF.
    @Test func theDjangoRESTFrameworkRecipe() {
        let drfAPI = HTTPAPI(
            pull: HTTPPullShape(
                path: "users/", records: "results", paging: .page(parameter: "page"),
                deletions: .tombstones(flag: "deleted"),
                changedSince: .updatedSince(parameter: "updated_since", field: "updated_at", lookBack: .seconds(5)),
                limitParameter: "page_size", query: ["ordering": "updated_at,id"], endsOnNotFound: true),
            push: .perRecord(
                HTTPRecordEndpoints(
                    path: "users", trailingSlash: true, update: .patch, body: .changedFields,
                    readOnlyFields: ["id", "updated_at"], versionField: "updated_at", concurrency: .ifMatch)))
        let drf = HTTPRemoteSource<User>(
            baseURL: URL(string: "https://api.example.com/api/")!, api: drfAPI,
            headers: ["Authorization": "Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"])
        #expect(drf.acceptsPushes)
        #expect(drf.recordVersionField == "updated_at")
    }

    /// docs/http.md, "5. PocketBase"; PocketBaseRecipeTests syncs this declaration (PocketBaseUser.api)
    /// with a real PocketBase.
    @Test func thePocketBaseRecipe() {
        let pocketBaseToken = "eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl"
        let pocketBaseAPI = HTTPAPI(
            pull: HTTPPullShape(
                path: "api/collections/users/records", records: "items", paging: .page(parameter: "page"),
                hasMore: .totalPages(at: "totalPages"),
                changedSince: .filter(
                    parameter: "filter", expression: "(updated>={value})", quoting: .singleQuotes, field: "updated"),
                limitParameter: "perPage", query: ["sort": "updated,id"]),
            push: .perRecord(
                HTTPRecordEndpoints(
                    path: "api/collections/users/records", update: .patch, body: .changedFields,
                    readOnlyFields: ["updated"], newIDs: .pocketBase
                )
                .lookingUpChosenIDs(.filter(parameter: "filter", each: "id='{value}'", separator: "||"))),
            credentials: HTTPCredentialsCheck(method: "POST", path: "api/collections/members/auth-refresh"))
        let pocketBase = HTTPRemoteSource<User>(
            baseURL: URL(string: "https://pb.example.com/")!, api: pocketBaseAPI,
            headers: ["Authorization": pocketBaseToken])
        #expect(pocketBase.acceptsPushes)
        // The tests' copy is the same declaration.
        let tested = PocketBaseUser.api.pull
        #expect(tested.path == pocketBaseAPI.pull.path)
        #expect(tested.records == pocketBaseAPI.pull.records)
        #expect(tested.limitParameter == pocketBaseAPI.pull.limitParameter)
        #expect(tested.query == pocketBaseAPI.pull.query)
        if case .perRecord(let endpoints) = PocketBaseUser.api.push, case .perRecord(let documented) = pocketBaseAPI.push {
            #expect(endpoints.chosenIDLookUp == documented.chosenIDLookUp)
        } else {
            Issue.record("both recipes push record by record")
        }
    }
}
