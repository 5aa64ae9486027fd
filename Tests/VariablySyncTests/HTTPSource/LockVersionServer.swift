import Foundation
import Synchronization
import VariablyCodable
import VariablyHTTP
import VariablySQLite
import VariablySync

/// A note of a Rails-style API with optimistic locking: `lock_version` goes up by one on each write,
/// and a client reference the client may leave empty.
struct LockedNote: VariablyCodable, SQLiteStorable, Identifiable, Equatable, Sendable {
    var id: Int64
    var title: String
    var lockVersion: Int
    var clientID: String?

    init(id: Int64, title: String, lockVersion: Int = 0, clientID: String? = nil) {
        (self.id, self.title, self.lockVersion, self.clientID) = (id, title, lockVersion, clientID)
    }

    init(from container: DecodingContainer<LockedNote>) throws {
        id = try container.decode(\.id)
        title = try container.decode(\.title)
        lockVersion = try container.decode(\.lockVersion)
        clientID = try container.decode(\.clientID)
    }

    static let keySets = KeySets<LockedNote>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.title, "title")
            Key(\.lockVersion, "lock_version")
            Key(\.clientID, "client_id")
        }
        KeySet(.sqlite, style: .snakeCase)
    }

    static let sqliteTable = SQLiteTable<LockedNote>("locked_notes", primaryKey: \.id)
}

/// An in-process server that answers as Rails does with `lock_version`: `PATCH /notes/{id}` with a
/// `lock_version` other than the record's is refused with `409` (without one, the write is applied,
/// whatever happened since; an empty title is refused with `422`); `DELETE /notes/{id}` likewise, the version in the query
/// (`?lock_version=3`) or a JSON body. `GET /notes?page=1` lists the notes, `?client_id=` finds one,
/// and `POST /notes` creates one under the next id.
final class LockVersionServer: HTTPTransport {
    struct Request: Sendable {
        var method: String
        var path: String
        var query: String
        var body: [String: JSONValue]
    }

    private struct State {
        var notes: [Int64: LockedNote] = [:]
        var requests: [Request] = []
        var nextID: Int64 = 100
    }

    private let state = Mutex(State())
    static let baseURL = URL(string: "http://127.0.0.1:9/api/")!

    init(_ notes: [LockedNote]) {
        state.withLock { state in for note in notes { state.notes[note.id] = note } }
    }

    var notes: [LockedNote] { state.withLock { $0.notes.values.sorted { $0.id < $1.id } } }
    var requests: [Request] { state.withLock { $0.requests } }

    /// Another client's deletion.
    func remove(_ id: Int64) {
        state.withLock { _ = $0.notes.removeValue(forKey: id) }
    }

    /// Another client's write: the title changes and the version goes up.
    func edit(_ id: Int64, title: String) {
        state.withLock { state in
            state.notes[id]?.title = title
            state.notes[id]?.lockVersion += 1
        }
    }

    /// The API: pages of `results`, per-record writes with `lock_version` in the body.
    static func api(
        concurrency: HTTPRecordEndpoints.Concurrency = .versionInBody,
        deleteVersion: HTTPRecordEndpoints.DeleteVersion? = .query("lock_version"), clientReference: Bool = false
    ) -> HTTPAPI {
        HTTPAPI(
            pull: HTTPPullShape(path: "notes", records: "results", paging: .page(parameter: "page")),
            push: .perRecord(
                HTTPRecordEndpoints(
                    path: "notes", update: .patch, readOnlyFields: ["id"],
                    versionField: concurrency == .none ? nil : "lock_version", concurrency: concurrency,
                    clientReference: clientReference ? .init(field: "client_id") : nil,
                    deleteVersion: concurrency == .versionInBody ? deleteVersion : nil)))
    }

    /// A repository on `database` through `api`; quick retries.
    func repository(
        _ api: HTTPAPI, database: SQLiteDatabase, conflicts: ConflictPolicy<LockedNote> = .serverWins
    ) throws -> Repository<LockedNote> {
        try Repository(
            database: database, remote: HTTPRemoteSource<LockedNote>(baseURL: Self.baseURL, api: api, transport: self),
            configuration: SyncConfiguration(retryPolicy: quickRetries, conflictPolicy: conflicts))
    }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let body = request.body.flatMap { try? JSONDecoder().decode([String: JSONValue].self, from: $0) } ?? [:]
        let path = String(request.url.path.dropFirst("/api/".count))
        let query = request.url.query ?? ""
        let (status, json) = state.withLock { state in
            state.requests.append(Request(method: request.method, path: path, query: query, body: body))
            return Self.answer(request.method, path: path, query: query, body: body, &state)
        }
        return HTTPTransportResponse(
            status: status, headers: ["content-type": "application/json"],
            body: AsyncThrowingStream { continuation in
                continuation.yield(json)
                continuation.finish()
            })
    }

    private static func answer(
        _ method: String, path: String, query: String, body: [String: JSONValue], _ state: inout State
    ) -> (Int, Data) {
        let encoder = JSONEncoder(source: .remote)
        func record(_ note: LockedNote) -> Data { (try? encoder.encode(note)) ?? Data() }
        func page(_ notes: [LockedNote]) -> Data {
            let records = notes.map { String(decoding: record($0), as: UTF8.self) }
            return Data(("{\"results\": [" + records.joined(separator: ",") + "]}").utf8)
        }
        let parts = path.split(separator: "/").map(String.init)
        if parts == ["notes"], method == "GET" {
            let all = state.notes.values.sorted { $0.id < $1.id }
            if let reference = query.split(separator: "&").first(where: { $0.hasPrefix("client_id=") }) {
                let value = String(reference.dropFirst("client_id=".count)).removingPercentEncoding
                return (200, page(all.filter { $0.clientID != nil && $0.clientID == value }))
            }
            return (200, page(query.contains("page=1") || !query.contains("page=") ? all : []))
        }
        if parts == ["notes"], method == "POST" {
            var note = LockedNote(id: state.nextID, title: body["title"]?.stringValue ?? "")
            note.clientID = body["client_id"]?.stringValue
            state.nextID += 1
            state.notes[note.id] = note
            return (201, record(note))
        }
        guard parts.count == 2, parts[0] == "notes", let id = Int64(parts[1]), let current = state.notes[id] else {
            return (404, Data(#"{"error": "not found"}"#.utf8))
        }
        // Rails: a lock_version sent (body or query) must be the record's; none sent, no check.
        let sent =
            body["lock_version"].flatMap { $0.intValue }
            ?? query.split(separator: "&").first { $0.hasPrefix("lock_version=") }
            .flatMap { Int($0.dropFirst("lock_version=".count)) }
        if method != "GET", let sent, sent != current.lockVersion {
            return (409, Data(#"{"error": "StaleObjectError"}"#.utf8))
        }
        switch method {
        case "GET": return (200, record(current))
        case "DELETE":
            state.notes[id] = nil
            return (204, Data())
        case "PATCH" where body["title"]?.stringValue?.isEmpty == true:
            return (422, Data(#"{"title": ["can't be blank"]}"#.utf8))
        case "PATCH":
            var note = current
            if let title = body["title"]?.stringValue { note.title = title }
            note.lockVersion += 1
            state.notes[id] = note
            return (200, record(note))
        default: return (405, Data())
        }
    }
}
