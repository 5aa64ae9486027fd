import Foundation
import Testing
import UserSyncModels

/// A real, unmodified Django REST Framework backend on 127.0.0.1, for tests against the API shapes DRF
/// users actually have: Django and DRF configured in-process by a python3 script, an SQLite file in the
/// script's folder, served by `wsgiref` on an ephemeral port.
///
/// The example domain's three related models (`UserSyncModels`' `User`, `Post` and `Comment`), speaking
/// their remote JSON, each with a read-only `updated_at` stamped by the server (microseconds, written by
/// DRF as `2026-11-26T12:44:56.647898Z`) and `deleted`: `users` (`id`, `user_name` — one live user per
/// name, `"forbidden"` refused with `400 {"user_name": ["This name is not allowed."]}` —, `email_address`,
/// `profile` = `{"age", "score"}`, a nested serializer over the user's own columns whose members a `PATCH`
/// may leave out, `is_active`, `tags`, `nick_name`, and `favorite_post_id`, a nullable post emptied when
/// the post goes), `posts` (`id`, `author_id` — the author's id, a foreign key that DRF validates —,
/// `title` and `body`; deleting a user marks its posts deleted too) and `comments` (`id`, `post_id`,
/// `author_id` — a nullable user —, `reply_to` — another comment, a nullable self-reference —, `body`
/// and a unique `client_id`, which `?client_id=` looks up, deleted comments included).
///
/// All three under `graph/` with page-number pagination, each on a stock `ModelViewSet` of a
/// `DefaultRouter` (trailing slashes) under ``baseURL``. `graph/unordered-comments/` serves the same
/// comments as a stock view without `OrderingFilter` does: in id order, whatever ordering is asked for.
/// The users also under each of DRF's paginations, and with the `If-Match` mixin below, for the tests of
/// one table:
///
/// | path | pagination | parameters |
/// | --- | --- | --- |
/// | `cursor/users/` | `CursorPagination`, ordering `(updated_at, id)` | `cursor`, `limit` |
/// | `limit/users/` | `LimitOffsetPagination` | `limit`, `offset` |
/// | `page/users/` | `PageNumberPagination` | `page`, `page_size` |
/// | `checked/users/` | as `page/users/`, plus the `If-Match` mixin below | `page`, `page_size` |
///
/// Pages are `{"count": n, "next": url, "previous": url, "results": [...]}` (cursor pages have no
/// `count`), `next` an absolute URL or `null`; the page after the last answers `404 {"detail": "Invalid page."}`.
/// Lists are sorted by `(updated_at, id)` (`?ordering=` may change that).
/// Without `updated_since`, lists leave deleted rows out; `?updated_since=<ISO 8601>` lists the rows
/// with `updated_at >= updated_since`, tombstones (`"deleted": true`) included; an unreadable one answers
/// 400. `DELETE` only marks the row deleted (a new `updated_at`) and answers 204; a deleted row is 404
/// for `GET`, `PUT`, `PATCH`, `DELETE`. `POST` answers 201 with the row. Every request needs
/// `Authorization: Token <token>` (``token``), else 401 with `WWW-Authenticate: Token`. A write without
/// the trailing slash, e.g. `PATCH page/users/5`, is answered by Django's `CommonMiddleware` with `301`
/// and `Location: /api/page/users/5/`.
///
/// The `If-Match` mixin of `checked/users/` (the recipe of docs/http.md): every answer carrying one user
/// has `ETag: "<its updated_at as DRF writes it>"`; a `PUT`, `PATCH` or `DELETE` whose `If-Match` is not
/// the current `ETag` is answered `412` with the current user and its `ETag`, the check and the write in
/// one transaction; without `If-Match`, the last write wins.
///
/// Server-side writes, as another client would: ``create(_:)``, ``update(id:fields:)`` and
/// ``delete(id:)`` of users, and ``graph(_:_:id:fields:)`` of any of the three, which can soft-delete a
/// row alone, keeping its children, as many backends do.
///
/// The test drives the server through its standard input, one JSON command a line, each answered on
/// standard output with the server's state (see ``State``): server-side writes, as another client would,
/// and the log of the requests. The script exits after `lifetime` seconds or when its standard input
/// closes, so a crashed test cannot leave it running.
final class DRFServer {
    /// The API's root, e.g. `http://127.0.0.1:41234/api/`; the endpoints are relative to it.
    let baseURL: URL
    /// The one token the server accepts, as `Authorization: Token <token>`.
    let token: String
    private let server: DjangoProcess

    /// A python3 that imports Django and DRF (see ``DjangoProcess/python(importing:)``); `nil` if none.
    static let python = DjangoProcess.python(importing: "django, rest_framework")

    /// Whether tests can start the server: a python3 imports Django and DRF (see ``python``).
    static let isAvailable = python != nil

    /// Why suites that need the server are skipped when ``isAvailable`` is false: a `Testing.Comment` (its
    /// `rawValue` is the text), so that it goes straight into
    /// `.enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason)`.
    static let unavailableReason: Testing.Comment =
        "Django REST Framework is not installed: python3 -m pip install django djangorestframework"

    /// One request as the server saw it, and how it answered.
    typealias Request = DjangoProcess.Request

    /// What the server holds and has been asked, after a command.
    struct State {
        /// Every request since the start or the last ``clearLog()``, oldest first.
        var requests: [Request]
        /// The users (of `graph/users/` and the four user endpoints), deleted ones included, by id.
        var users: [ServerUser] = []
        /// The posts of `graph/posts/`, each referencing a user, deleted ones included, by id.
        var posts: [ServerPost] = []
        /// The comments of `graph/comments/`, each on a post and maybe replying to another, deleted
        /// ones included, by id.
        var comments: [ServerComment] = []
    }

    /// A comment as the server stores it: `post_id`, `author_id` and `reply_to` are ids (foreign keys).
    struct ServerComment: Decodable, Equatable {
        var id: Int64
        var post_id: Int64
        var author_id: Int64?
        var reply_to: Int64?
        var body: String
        var client_id: String?
        var deleted: Bool
    }

    /// A user as the server stores it, written as DRF's serializer writes it.
    struct ServerUser: Decodable, Equatable {
        var id: Int64
        var user_name: String
        var email_address: String
        var profile: Profile
        var nick_name: String?
        var deleted: Bool
        /// `updated_at` as DRF writes it, e.g. `2026-11-26T12:44:56.647898Z` (no fraction when the
        /// microseconds are 0); quoted, it is the user's `ETag` on `checked/users/`.
        var updated_at: String

        /// A user's nested `profile` object.
        struct Profile: Decodable, Equatable {
            var age: Int
            var score: Double
        }
    }

    /// A post as the server stores it: `author_id` is the author's id (a foreign key).
    struct ServerPost: Decodable, Equatable {
        var id: Int64
        var author_id: Int64
        var title: String
        var body: String
        var deleted: Bool
    }

    /// Starts the server when it is its turn, without holding one of Swift's cooperative threads (see
    /// ``DjangoProcess/start(script:name:lifetime:python:_:)``): one Django runs at a time across the
    /// suites, and the next test's server starts after ``stop()``. It exits by itself after `lifetime`
    /// seconds.
    static func start(lifetime: Int = 600) async throws -> DRFServer {
        guard let python else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: Self.unavailableReason.rawValue])
        }
        return try await DjangoProcess.start(script: script, name: "drf", lifetime: lifetime, python: python) {
            try DRFServer(server: $0)
        }
    }

    /// The server of `process`, once it answered its first command.
    private init(server: DjangoProcess) throws {
        self.server = server
        baseURL = URL(string: "http://127.0.0.1:\(server.port)/api/")!
        token = try Self.decode(server.send(["op": "state"])).token
    }

    /// Kills the server and removes its folder (the database with it).
    func stop() {
        server.stop()
    }

    // MARK: - Commands

    /// Creates `users` on the server's side, as another client would, with their ids and values; the
    /// server stamps `updated_at`.
    @discardableResult
    func create(_ users: [User]) throws -> State {
        try command(["op": "create", "users": users.map(\.modelFields)])
    }

    /// Sets `fields` of user `id` on the server's side, as the model names them (`user_name`,
    /// `nick_name`, `age`, `score`, ...), and saves it: a new `updated_at`.
    @discardableResult
    func update(id: Int64, fields: [String: Any]) throws -> State {
        try command(["op": "update", "id": id, "fields": fields])
    }

    /// Deletes user `id` on the server's side the way the API does: a tombstone with a new `updated_at`
    /// (its posts marked deleted too).
    @discardableResult
    func delete(id: Int64) throws -> State {
        try command(["op": "delete", "id": id])
    }

    /// Writes a graph record on the server's side, as another client would: `action` is `create` (with
    /// its id among `fields`, model fields as Django names them: `user_name`, foreign keys as
    /// `author_id`, `post_id`, `reply_to_id`), `update`, or `soft_delete`, which marks that row deleted
    /// and keeps its children.
    @discardableResult
    func graph(_ model: String, _ action: String, id: Int64? = nil, fields: [String: Any] = [:]) throws -> State {
        var command: [String: Any] = ["op": "graph", "model": model, "action": action, "fields": fields]
        if let id { command["id"] = id }
        return try self.command(command)
    }

    /// The token the server accepts now: ``token`` until ``rotateToken()``.
    func currentToken() throws -> String {
        try Self.decode(server.send(["op": "token"])).token
    }

    /// Replaces the server's token with a new one, as when a token expires: requests that carry the old
    /// one are answered `401`, and ``currentToken()`` gives the new one.
    func rotateToken() throws {
        _ = try command(["op": "rotate_token"])
    }

    /// Empties the request log.
    @discardableResult
    func clearLog() throws -> State {
        try command(["op": "clear_log"])
    }

    /// The server's state.
    func state() throws -> State {
        try command(["op": "state"])
    }

    private func command(_ object: [String: Any]) throws -> State {
        try Self.decode(server.send(object)).state
    }

    /// The state and token in an answer; throws the script's error if it answered one.
    private static func decode(_ answer: Data) throws -> (state: State, token: String) {
        guard let object = try? JSONSerialization.jsonObject(with: answer) as? [String: Any],
            let requests = object["requests"], let token = object["token"] as? String
        else {
            throw CocoaError(
                .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the DRF server did not answer"])
        }
        if let error = object["error"] as? String {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the DRF server: \(error)"])
        }
        let decoder = JSONDecoder()
        let state = State(
            requests: try decoder.decode([Request].self, from: JSONSerialization.data(withJSONObject: requests)),
            users: try decoder.decode(
                [ServerUser].self, from: JSONSerialization.data(withJSONObject: object["users"] ?? [])),
            posts: try decoder.decode(
                [ServerPost].self, from: JSONSerialization.data(withJSONObject: object["posts"] ?? [])),
            comments: try decoder.decode(
                [ServerComment].self, from: JSONSerialization.data(withJSONObject: object["comments"] ?? [])))
        return (state, token)
    }
}
