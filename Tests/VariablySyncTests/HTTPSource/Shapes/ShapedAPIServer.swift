import Foundation
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablyHTTP
import VariablySync
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A real HTTP server on 127.0.0.1 that speaks two declared API shapes over in-memory tables, for
/// ``HTTPRemoteSource`` tests: Python's standard `http.server` on an ephemeral port.
///
/// - **Cursor API** (``cursorAPI``): `GET /items?cursor=…&limit=n` answers
///   `{"data": [...records (with "deleted": false)..., {"id": 7, "deleted": true}], "meta": {"next_cursor": "…",
///   "has_more": true}}`,
///   the cursor being the server's change sequence; `POST /items/changes` takes the package's batch envelope.
/// - **Page API** (``pageAPI``): `GET /users?updated_since=…&per_page=n` answers a JSON array of the users
///   with `updated_at >= updated_since`, sorted by `(updated_at, id)`, and `Link: <…>; rel="next"` while
///   pages follow; `POST /users`, `PUT /users/{id}` (`If-Match` required, `412` with the current user when
///   stale, a new `ETag` when accepted), `GET` and `DELETE /users/{id}`. Deletions are not listed anywhere.
///
/// Both collections hold ``User``s in their remote JSON. Every write stamps the record with two fields of
/// the server's own: the next integer `version` (which ``User`` does not map: the engine keeps it from the
/// raw JSON, as the page API's `versionField`) and, unless given, a new `updated_at` one second after the
/// last (the same as the last once ``freezeClock()`` was called), written as ISO 8601 text with fractions
/// and `Z` (`2026-01-02T03:46:40.000Z`), which ``User`` decodes into its `updatedAt`. A write with an
/// `Idempotency-Key` seen before is answered as the first time. ``answerConflicts(with:)`` and
/// ``writeLinks(withPrefix:)`` vary the 412 bodies and the `Link` targets.
///
/// The test drives the server through its standard input, one JSON command a line, each answered on
/// standard output with the server's state (see ``State``): server-side edits, faults for coming
/// requests, the one bearer token accepted. A fault (`mode`) hits the requests of a `method` under a
/// `path` after letting `skip` of them through, `times` times (`-1`: forever):
///
/// | mode | answer |
/// | --- | --- |
/// | `500` | 500 `{"error": "boom"}` |
/// | `429` | 429 with `Retry-After: 1` |
/// | `truncate` | the real answer (writes applied), half of its body, then the connection is closed |
/// | `slow` | the real answer's head, its body 3 seconds later |
/// | `repeat` | the last page of the collection again, as it was |
/// | `stuck` | the first page, with "more" and the same cursor (`stuck`) or a `next` link to itself |
///
/// The script exits after `lifetime` seconds or when its standard input closes, so a crashed test
/// cannot leave it running.
final class ShapedAPIServer {
    /// The server's root, e.g. `http://127.0.0.1:41234`.
    let baseURL: URL
    private let server: PythonScriptProcess

    /// The cursor API, pull-only: records and tombstones under `data`, the cursor and "has more" under `meta`.
    static let cursorAPI = HTTPAPI(
        pull: HTTPPullShape(
            path: "items", records: "data", paging: .token(parameter: "cursor", next: "meta.next_cursor"),
            hasMore: "meta.has_more", deletions: .tombstones(flag: "deleted")),
        push: .none)

    /// The cursor API with the package's batch push at `POST /items/changes`.
    static let cursorAPIWithBatchPush = HTTPAPI(pull: cursorAPI.pull, push: .changesEnvelope(path: "items/changes"))

    /// The page API: `updated_since`, `per_page`, `Link` paging, one request per change with `If-Match`.
    static let pageAPI = HTTPAPI(
        pull: HTTPPullShape(
            path: "users", paging: .nextLink,
            changedSince: .updatedSince(parameter: "updated_since", field: "updated_at"), limitParameter: "per_page"),
        push: .perRecord(
            HTTPRecordEndpoints(path: "users", update: .put, versionField: "version", concurrency: .ifMatch)))

    /// What the server holds and has been asked, after a command.
    struct State {
        /// The live items, by id, as a client decodes them.
        var items: [User]
        /// The users of the page API, by id, as a client decodes them.
        var users: [User]
        /// The live items, by id, with the server's own stamps.
        var serverItems: [ServerUser]
        /// The users of the page API, by id, with the server's own stamps.
        var serverUsers: [ServerUser]
        /// Every request so far, oldest first.
        var requests: [Request]
        /// Faults not yet served.
        var faultsLeft: Int
    }

    /// A user as the server holds it: the fields the tests edit, and the stamps the server writes.
    struct ServerUser: Decodable, Equatable {
        var id: Int64
        var userName: String
        /// The server's integer version, one more on each write (the page API's `ETag`).
        var version: Int
        /// The server's `updated_at`, as the ISO 8601 text it wrote.
        var updatedAt: String

        private enum CodingKeys: String, CodingKey {
            case id, version
            case userName = "user_name"
            case updatedAt = "updated_at"
        }
    }

    /// One request as the server saw it, and how it answered.
    struct Request: Decodable {
        var method: String
        var path: String
        var query: String
        var ifMatch: String?
        var idempotencyKey: String?
        var authorization: String?
        var status: Int
        var fault: String?
    }

    /// Starts the server; it exits by itself after `lifetime` seconds.
    init(lifetime: Int = 600) async throws {
        server = try await PythonScriptProcess.start(
            script: Self.script, arguments: [String(lifetime)], name: "shaped-http")
        baseURL = URL(string: "http://127.0.0.1:\(server.port)")!
    }

    func stop() {
        server.stop()
    }

    // MARK: - Clients

    /// A repository on an in-memory cache, synced with this server through `api`; quick retries.
    func makeRepository(
        _ api: HTTPAPI, pageSize: Int = 10, timeout: TimeInterval = 5,
        conflicts: ConflictPolicy<User> = .serverWins,
        vault: TokenVault? = nil, throughURLSession: Bool = false
    ) throws -> Repository<User> {
        let remote = HTTPRemoteSource<User>(
            baseURL: baseURL, api: api, timeout: timeout,
            transport: throughURLSession
                ? URLSessionTransport(configuration: .ephemeral) : HTTPTransports.platformDefault,
            prepare: vault?.hook)
        return try Repository(
            database: .inMemory(), remote: remote,
            configuration: SyncConfiguration(pageSize: pageSize, retryPolicy: quickRetries, conflictPolicy: conflicts))
    }

    // MARK: - Commands

    /// How a server-side write stamps `updated_at`.
    enum Stamp {
        /// Each record one second after the last write.
        case eachNext
        /// All records of the write with one new timestamp, as one transaction would.
        case oneForAll
        /// This ISO 8601 text, e.g. a write that commits late with an earlier timestamp.
        case at(String)
    }

    /// Writes `records` (in their remote JSON) on the server's side, as another client would: each gets
    /// the next version and an `updated_at` as `stamp` says.
    @discardableResult
    func put(_ collection: String, _ records: [User], stamp: Stamp = .eachNext) throws -> State {
        let objects = try records.map {
            try JSONSerialization.jsonObject(with: JSONEncoder().encode($0, source: .remote))
        }
        var command: [String: Any] = ["op": "put", "collection": collection, "records": objects]
        switch stamp {
        case .eachNext: break
        case .oneForAll: command["one_timestamp"] = true
        case .at(let text): command["updated_at"] = text
        }
        return try self.command(command)
    }

    /// Deletes records on the server's side: a tombstone for items, nothing left for users.
    @discardableResult
    func delete(_ collection: String, ids: [Int64]) throws -> State {
        try command(["op": "delete", "collection": collection, "ids": ids])
    }

    /// Queues a fault for coming requests (see the table above).
    @discardableResult
    func fault(
        _ mode: String, method: String = "GET", path: String = "/", skip: Int = 0, times: Int = 1
    ) throws -> State {
        try command([
            "op": "faults", "faults": [["mode": mode, "method": method, "path": path, "skip": skip, "times": times]],
        ])
    }

    /// From now on, only `Authorization: Bearer <token>` is accepted; other requests are answered 401.
    @discardableResult
    func requireToken(_ token: String) throws -> State {
        try command(["op": "token", "token": token])
    }

    /// What a stale `If-Match` is answered with, besides 412 and the current `ETag`: `"record"` (the
    /// current user, the default), `"empty"` or `"error"` (`{"error": "precondition_failed"}`).
    @discardableResult
    func answerConflicts(with body: String) throws -> State {
        try command(["op": "option", "name": "conflict_body", "value": body])
    }

    /// Writes the `Link` targets as `prefix` followed by the query, e.g. `"?"` for links relative to the
    /// page's own URL, instead of absolute URLs.
    @discardableResult
    func writeLinks(withPrefix prefix: String) throws -> State {
        try command(["op": "option", "name": "link_prefix", "value": prefix])
    }

    /// Stops the server's clock: every later write gets the `updated_at` of the last one, as a server
    /// whose timestamps have a coarse resolution gives writes of the same second.
    @discardableResult
    func freezeClock() throws -> State {
        try command(["op": "option", "name": "frozen_clock", "value": true])
    }

    /// The server's state.
    func state() throws -> State {
        try command(["op": "state"])
    }

    private func command(_ object: [String: Any]) throws -> State {
        var line = try JSONSerialization.data(withJSONObject: object)
        line.append(UInt8(ascii: "\n"))
        try server.input.write(contentsOf: line)
        let answer = server.readLine()
        guard let state = try JSONSerialization.jsonObject(with: answer) as? [String: Any],
            let items = state["items"], let users = state["users"], let requests = state["requests"],
            let faultsLeft = state["faults"] as? Int
        else {
            throw CocoaError(
                .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the shaped server did not answer"])
        }
        let itemsJSON = try JSONSerialization.data(withJSONObject: items)
        let usersJSON = try JSONSerialization.data(withJSONObject: users)
        let client = JSONDecoder(source: .remote)
        return State(
            items: try client.decode([User].self, from: itemsJSON),
            users: try client.decode([User].self, from: usersJSON),
            serverItems: try JSONDecoder().decode([ServerUser].self, from: itemsJSON),
            serverUsers: try JSONDecoder().decode([ServerUser].self, from: usersJSON),
            requests: try JSONDecoder().decode([Request].self, from: JSONSerialization.data(withJSONObject: requests)),
            faultsLeft: faultsLeft)
    }
}

extension User {
    /// Users `ids`, named `"<prefix> <id>"`, as the server has never seen them.
    static func drafts(_ ids: ClosedRange<Int64>, prefix: String = "user") -> [User] {
        ids.map { User(id: $0, userName: "\(prefix) \($0)") }
    }
}
