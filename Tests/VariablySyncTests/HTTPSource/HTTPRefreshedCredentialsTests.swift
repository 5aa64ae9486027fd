import Foundation
import Synchronization
import Testing
import VariablyCodable
import VariablyHTTP
import VariablySQLite
import VariablySync

/// A server that reads a token it no longer accepts as no token at all (PocketBase: a guest's empty
/// list, `404` for a write), with a request hook that refreshes the token on a `401`: the credentials
/// check is refused, the hook refreshes, and the check passes on its second attempt. The answer that
/// prompted the check was given to the stale token all the same, so it is asked again with the fresh
/// one, never read as the server's.
@Suite struct HTTPRefreshedCredentialsTests {
    /// Notes as `GuestReadingServer` serves them, with a hook that takes the server's current token on
    /// a `401`.
    static func notes(_ server: GuestReadingServer, database: SQLiteDatabase) throws -> Repository<LockedNote> {
        let api = HTTPAPI(
            pull: HTTPPullShape(path: "notes", records: "results", paging: .page(parameter: "page")),
            push: .perRecord(HTTPRecordEndpoints(path: "notes", update: .patch, readOnlyFields: ["id"])),
            credentials: HTTPCredentialsCheck(method: "POST", path: "auth-refresh"))
        let remote = HTTPRemoteSource<LockedNote>(baseURL: GuestReadingServer.baseURL, api: api, transport: server) {
            request, attempt in
            if attempt.isRetryAfterUnauthorized { server.deviceRefreshes() }
            request.setValue(server.deviceToken, forHTTPHeaderField: "Authorization")
        }
        return try Repository(
            database: database, remote: remote, configuration: SyncConfiguration(retryPolicy: quickRetries))
    }

    @Test func anEditAnsweredNotFoundForAStaleTokenIsSentAgainWithTheFreshOne() async throws {
        let server = GuestReadingServer([LockedNote(id: 1, title: "first")])
        let notes = try Self.notes(server, database: .inMemory())
        try await notes.sync()
        var note = try #require(try await notes.fetch(id: 1))
        note.title = "edited here"
        try await notes.save(note)
        server.expireToken()

        let report = try await notes.sync()
        #expect(server.notes.first?.title == "edited here")
        #expect(try await notes.fetch(id: 1)?.title == "edited here")
        #expect(report.conflicts.isEmpty)
        #expect(report.pushed == 1)
    }

    /// A later sync is no different: a pull that brings nothing is checked too, so an expired token's
    /// empty list is never a "complete" sync that missed the server's changes.
    @Test func aLaterPullAnsweredEmptyForAStaleTokenIsAskedAgain() async throws {
        let server = GuestReadingServer([LockedNote(id: 1, title: "first")])
        let notes = try Self.notes(server, database: .inMemory())
        try await notes.sync()
        server.add(LockedNote(id: 2, title: "written there"))
        server.expireToken()
        let report = try await notes.sync()
        #expect(report.pulled >= 1)
        #expect(try await notes.fetch(id: 2)?.title == "written there")
    }

    @Test func aFirstPageAnsweredEmptyForAStaleTokenIsAskedAgain() async throws {
        let server = GuestReadingServer([LockedNote(id: 1, title: "first"), LockedNote(id: 2, title: "second")])
        let notes = try Self.notes(server, database: .inMemory())
        server.expireToken()
        try await notes.sync()
        #expect(try await notes.count() == 2)
    }
}

/// An in-process server whose token expires: `expireToken()` issues a new one. A request with the old
/// token is read as a guest's, as PocketBase reads a token it cannot verify: `GET /notes` lists
/// nothing, `PATCH /notes/{id}` answers `404`; only `POST /auth-refresh` says `401`.
final class GuestReadingServer: HTTPTransport {
    static let baseURL = URL(string: "http://127.0.0.1:9/api/")!
    private struct State {
        var notes: [Int64: LockedNote] = [:]
        var serverToken = "token-1"
        var deviceToken = "token-1"
    }
    private let state = Mutex(State())

    init(_ notes: [LockedNote]) {
        state.withLock { state in for note in notes { state.notes[note.id] = note } }
    }

    var notes: [LockedNote] { state.withLock { $0.notes.values.sorted { $0.id < $1.id } } }
    /// The token the device sends now.
    var deviceToken: String { state.withLock { $0.deviceToken } }
    /// The device signs in again: it gets the server's current token.
    func deviceRefreshes() { state.withLock { $0.deviceToken = $0.serverToken } }
    /// Another client's write.
    func add(_ note: LockedNote) { state.withLock { $0.notes[note.id] = note } }
    /// The token expires: the server issues another.
    func expireToken() { state.withLock { $0.serverToken += "+" } }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let path = String(request.url.path.dropFirst("/api/".count))
        let body = request.body.flatMap { try? JSONDecoder().decode([String: JSONValue].self, from: $0) } ?? [:]
        let token = request.headers.first { $0.name.lowercased() == "authorization" }?.value
        let (status, json): (Int, Data) = state.withLock { state in
            let isSignedIn = token == state.serverToken
            let encoder = JSONEncoder(source: .remote)
            func record(_ note: LockedNote) -> String {
                String(decoding: (try? encoder.encode(note)) ?? Data(), as: UTF8.self)
            }
            switch (request.method, path) {
            case ("POST", "auth-refresh"):
                return isSignedIn ? (200, Data(#"{"token": "…"}"#.utf8)) : (401, Data(#"{"message": "no auth"}"#.utf8))
            case ("GET", "notes"):
                let page = request.url.query?.contains("page=1") ?? true
                let listed = isSignedIn && page ? state.notes.values.sorted { $0.id < $1.id } : []
                return (200, Data(("{\"results\": [" + listed.map(record).joined(separator: ",") + "]}").utf8))
            case ("PATCH", _) where path.hasPrefix("notes/"):
                guard isSignedIn, let id = Int64(path.dropFirst("notes/".count)), var note = state.notes[id] else {
                    return (404, Data(#"{"message": "not found"}"#.utf8))
                }
                if let title = body["title"]?.stringValue { note.title = title }
                state.notes[id] = note
                return (200, Data(record(note).utf8))
            default:
                return (405, Data())
            }
        }
        return HTTPTransportResponse(
            status: status, headers: ["content-type": "application/json"],
            body: AsyncThrowingStream { continuation in
                continuation.yield(json)
                continuation.finish()
            })
    }
}
