import Foundation
import Synchronization
import Testing
import UserSyncModels
import VariablyCodable
import VariablyHTTP
import VariablySQLite
import VariablySync

/// Serves one user (`GET /users?page=1` lists it, later pages are empty, `GET /users/1` reads it) and answers every write `200` with
/// `answer` of the body sent; records every request.
private final class RecordingServer: HTTPTransport {
    private let user: Data
    private let answer: @Sendable (Data) -> Data
    private let log = Mutex<[HTTPTransportRequest]>([])

    init(user: Data, answer: @escaping @Sendable (Data) -> Data = { $0 }) {
        self.user = user
        self.answer = answer
    }

    var requests: [HTTPTransportRequest] { log.withLock { $0 } }

    /// The first request with `method`, its body parsed.
    func body(of method: String) -> NSDictionary? {
        requests.first { $0.method == method }?.body.flatMap {
            try? JSONSerialization.jsonObject(with: $0) as? NSDictionary
        }
    }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        log.withLock { $0.append(request) }
        let body: Data =
            switch request.method {
            case "GET" where request.url.path.hasSuffix("/1"): user
            case "GET" where (request.url.query ?? "").contains("page=1"): Data("[".utf8) + user + Data("]".utf8)
            case "GET": Data("[]".utf8)
            case "DELETE": Data()
            default: answer(request.body ?? Data())
            }
        return HTTPTransportResponse(
            status: 200, headers: ["content-type": "application/json"],
            body: AsyncThrowingStream { continuation in
                continuation.yield(body)
                continuation.finish()
            })
    }
}

/// Every name the per-record endpoints take is a path, written as in key sets: `profile.score` is a
/// member of `profile`, and a `PATCH` of changed fields sends the changed leaf alone.
@Suite struct HTTPWritePathTests {
    private static let baseURL = URL(string: "http://127.0.0.1:1/api/")!
    private static let user = User(id: 1, userName: "ann")

    private static func users(
        _ endpoints: HTTPRecordEndpoints, server: RecordingServer
    ) throws -> Repository<User> {
        let api = HTTPAPI(
            pull: HTTPPullShape(path: "users", paging: .page(parameter: "page")), push: .perRecord(endpoints))
        return try Repository<User>(
            database: .inMemory(), remote: HTTPRemoteSource<User>(baseURL: baseURL, api: api, transport: server))
    }

    private static func json(_ text: String) -> NSDictionary? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
    }

    /// An optional set back to `nil` is a change like any other: the `PATCH` of changed fields says so
    /// with `null`, not by leaving the member out (which a server reads as "unchanged").
    @Test func anOptionalClearedIsPatchedAsNull() async throws {
        var named = Self.user
        named.nickname = "annie"
        let server = RecordingServer(user: try JSONEncoder().encode(named, source: .remote))
        let users = try Self.users(
            HTTPRecordEndpoints(path: "users", update: .patch, body: .changedFields), server: server)
        _ = try await users.sync()
        var cleared = try #require(try await users.fetch(id: 1))
        #expect(cleared.nickname == "annie")
        cleared.nickname = nil
        try await users.save(cleared)
        #expect(try await users.sync().failed.isEmpty)
        #expect(server.body(of: "PATCH") == Self.json(#"{"nick_name": null}"#))
    }

    @Test func aPatchOfOneNestedPropertySendsThatLeafInsideItsObject() async throws {
        let server = RecordingServer(user: try JSONEncoder().encode(Self.user, source: .remote))
        let users = try Self.users(
            HTTPRecordEndpoints(path: "users", update: .patch, body: .changedFields), server: server)
        _ = try await users.sync()
        var edited = Self.user
        edited.age = 31
        try await users.save(edited)
        #expect(try await users.sync().failed.isEmpty)
        // Only `profile.age`: not `profile.score`, which did not change.
        #expect(server.body(of: "PATCH") == Self.json(#"{"profile": {"age": 31}}"#))
    }

    /// A key with alternatives (`["user_name", "username"]`) is written at its first: a change of it
    /// sends that member alone, not `null` at the others.
    @Test func aPatchSendsAChangedKeyAtThePathItIsWrittenAt() async throws {
        let server = RecordingServer(user: try JSONEncoder().encode(Self.user, source: .remote))
        let endpoints = HTTPRecordEndpoints(path: "users", update: .patch, body: .changedFields)
        let users = try Self.users(endpoints, server: server)
        _ = try await users.sync()
        var edited = Self.user
        edited.userName = "anna"
        try await users.save(edited)
        #expect(try await users.sync().failed.isEmpty)
        #expect(server.body(of: "PATCH") == Self.json(#"{"user_name": "anna"}"#))
    }

    @Test func readOnlyFieldsAndTheVersionAreFoundAtTheirPaths() async throws {
        let server = RecordingServer(user: try JSONEncoder().encode(Self.user, source: .remote))
        let endpoints = HTTPRecordEndpoints(
            path: "users", update: .put, readOnlyFields: ["id", "profile.score", "updated_at"],
            versionField: "profile.age", concurrency: .ifMatch)
        let users = try Self.users(endpoints, server: server)
        _ = try await users.sync()
        var edited = Self.user
        edited.userName = "anna"
        try await users.save(edited)
        #expect(try await users.sync().failed.isEmpty)
        let put = try #require(server.requests.first { $0.method == "PUT" })
        // The version pulled at `profile.age` is the `If-Match` of the update.
        #expect(put.headers.contains { $0.name == "If-Match" && $0.value == "\"30\"" })
        let body = try #require(server.body(of: "PUT"))
        #expect(body["id"] == nil)
        #expect(body["updated_at"] == nil)
        #expect(body["profile"] as? NSDictionary == ["age": 30])
        #expect(body["user_name"] as? String == "anna")
    }

    @Test func aClientReferenceAtAPathIsReadThere() throws {
        let endpoints = HTTPRecordEndpoints(
            path: "users", clientReference: .init(field: "profile.score", query: "score"))
        let api = HTTPAPI(
            pull: HTTPPullShape(path: "users", paging: .page(parameter: "page")), push: .perRecord(endpoints))
        // Carried by the model's remote key set at `profile.score`: accepted when the repository opens.
        _ = try Repository<User>(database: .inMemory(), remote: HTTPRemoteSource<User>(baseURL: Self.baseURL, api: api))
    }

    @Test func aPlainJSONShapeTakesAMediaTypePerMethod() async throws {
        let server = RecordingServer(user: try JSONEncoder().encode(Self.user, source: .remote))
        let endpoints = HTTPRecordEndpoints(
            path: "users", update: .patch, body: .changedFields,
            writes: HTTPWriteShape(mediaType: .init(patch: "application/merge-patch+json")))
        let users = try Self.users(endpoints, server: server)
        _ = try await users.sync()
        var edited = Self.user
        edited.nickname = "an"
        try await users.save(edited)
        #expect(try await users.sync().failed.isEmpty)
        let patch = try #require(server.requests.first { $0.method == "PATCH" })
        #expect(patch.headers.contains { $0.name == "Content-Type" && $0.value == "application/merge-patch+json" })
        #expect(patch.headers.contains { $0.name == "Accept" && $0.value == "application/merge-patch+json" })
        #expect(server.body(of: "PATCH") == Self.json(#"{"nick_name": "an"}"#))
    }

    /// The media type the deprecated `patchContentType:` named is the write shape's `PATCH` type.
    @available(*, deprecated)
    @Test func theDeprecatedPatchContentTypeIsThePatchMediaType() {
        let endpoints = HTTPRecordEndpoints(
            path: "users", update: .patch, patchContentType: "application/merge-patch+json")
        #expect(endpoints.writes == HTTPWriteShape(mediaType: .init(patch: "application/merge-patch+json")))
    }

    /// `Accept` follows the declared media type unless the source's headers set one.
    @Test func theSourcesOwnAcceptWins() async throws {
        let server = RecordingServer(user: try JSONEncoder().encode(Self.user, source: .remote))
        let api = HTTPAPI(
            pull: HTTPPullShape(path: "users", paging: .page(parameter: "page")),
            push: .perRecord(HTTPRecordEndpoints(path: "users", writes: .jsonAPI(type: "users"))))
        let users = try Repository<User>(
            database: .inMemory(),
            remote: HTTPRemoteSource<User>(
                baseURL: Self.baseURL, api: api, headers: ["accept": "application/vnd.api+json; ext=x"],
                transport: server))
        _ = try await users.sync()
        try await users.delete(id: 1)
        _ = try await users.sync()
        let delete = try #require(server.requests.first { $0.method == "DELETE" })
        #expect(
            delete.headers.filter { $0.name.lowercased() == "accept" }.map(\.value) == [
                "application/vnd.api+json; ext=x"
            ])
    }
}
