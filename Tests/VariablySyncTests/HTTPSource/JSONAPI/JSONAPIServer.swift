import Foundation
import Testing

/// A stock JSON:API backend on 127.0.0.1: Django REST Framework with djangorestframework-jsonapi (DJA)
/// and django-filter, configured as DJA's documentation shows, in-process by a python3 script, an SQLite
/// file in the script's folder, served by `wsgiref` on an ephemeral port (``DjangoProcess``).
///
/// Three related resources under ``baseURL``, each on a DJA `ModelViewSet` of a `DefaultRouter` without
/// trailing slashes (`people`, `people/7`): `people` (`name`), `articles` (`title`, not blank; `body`;
/// the relationship `author` to `people`, nullable) and `comments` (`body`; `client_id`, a unique UUID;
/// the relationships `article`, `author`, nullable, and `reply_to`, a nullable self-reference), each
/// with the read-only attributes `deleted` and `updated_at` (stamped on every save, written as
/// `2026-11-28T12:43:49.641450Z`). Ids are strings (`"7"`), assigned by the server.
///
/// Stock DJA throughout: `application/vnd.api+json` both ways (DJA's `JSONParser` refuses a `type`
/// other than the collection's, or a `PATCH` whose `data.id` is not the URL's, with `409`), DJA's
/// serializers with `ResourceRelatedField`, its `JsonApiPageNumberPagination` (`page[number]`,
/// `page[size]` up to 100, 10 by default, absolute `links.next` or `null`; the page after the last is
/// `404`), its `OrderingFilter` (`sort=updated_at,id`, also the default), its django-filter backend
/// (`filter[updated_at.gte]=<ISO 8601>` on every collection, `filter[client_id]=<UUID>` and `filter[client_id.in]=<UUID>,<UUID>` on comments),
/// its `QueryParameterValidationFilter` (an unknown parameter is `400`), its exception handler
/// (`{"errors": [{"detail", "status", "source": {"pointer": "/data/attributes/title"}, "code"}]}`;
/// a validation error is `400`), `POST` answered `201` with the document, `DELETE` `204`, and DRF's
/// `TokenAuthentication`: every request needs `Authorization: Token <token>` (``token``), else `401`.
///
/// The custom code, each piece because the stock classes have none for it:
/// - `SoftDeletingViewSet.perform_destroy`: a `DELETE` marks the row `deleted` (a new `updated_at`)
///   instead of removing it, so that other clients learn of the deletion as a tombstone.
/// - `SoftDeletingViewSet.get_queryset`: deleted rows are `404` and left out of lists, but for lists
///   with a `filter[...]` parameter (a client's changes since, a look-up by client reference), which
///   carry them as tombstones (`"deleted": true`).
/// - `IfMatchMixin` on the comments, the `If-Match` recipe of docs/http.md as ``DRFServer`` has it: every
///   answer carrying one comment has `ETag: "<its updated_at>"`; a `PATCH` or `DELETE` whose `If-Match` is
///   not the current `ETag` is answered `412` (a JSON:API error), the check and the write in one
///   transaction; without `If-Match`, the last write wins.
/// - The test's own instruments, outside the API: the settings and the app module built in memory, the
///   request log middleware (``DjangoProcess/serving``), and the commands below.
///
/// Server-side writes, as another client would: ``write(_:_:id:fields:)`` of any of the three; and the
/// token's expiry (``rotateToken()``). The
/// test drives the server through its standard input, one JSON command a line, each answered with the
/// server's state (see ``State``). The script exits after `lifetime` seconds or when its standard input
/// closes, so a crashed test cannot leave it running.
final class JSONAPIServer {
    /// The API's root, e.g. `http://127.0.0.1:41234/api/`; the collections are relative to it.
    let baseURL: URL
    /// The one token the server accepts, as `Authorization: Token <token>`.
    let token: String
    private let server: DjangoProcess

    /// A python3 that imports Django, DRF, DJA and django-filter (see ``DjangoProcess/python(importing:)``).
    static let python = DjangoProcess.python(
        importing: "django, rest_framework, rest_framework_json_api, django_filters")

    /// Whether tests can start the server: a python3 imports DJA and django-filter (see ``python``).
    static let isAvailable = python != nil

    /// Why suites that need the server are skipped when ``isAvailable`` is false.
    static let unavailableReason: Testing.Comment = """
        djangorestframework-jsonapi is not installed: \
        python3 -m pip install django djangorestframework djangorestframework-jsonapi django-filter
        """

    /// One request as the server saw it, and how it answered.
    typealias Request = DjangoProcess.Request

    /// What the server holds and has been asked, after a command: every row, deleted ones included, by id.
    struct State: Decodable {
        /// Every request since the start or the last ``clearLog()``, oldest first.
        var requests: [Request]
        var people: [Person]
        var articles: [Article]
        var comments: [Comment]

        /// The requests of `method` to the collection `collection` or its records.
        func requests(_ method: String, to collection: String) -> [Request] {
            requests.filter { $0.method == method && $0.path.hasPrefix("/api/\(collection)") }
        }
    }

    /// A person as Django stores it.
    struct Person: Decodable, Equatable {
        var id: Int64
        var name: String
        var deleted: Bool
    }

    /// An article as Django stores it: `author_id` is a foreign key.
    struct Article: Decodable, Equatable {
        var id: Int64
        var author_id: Int64?
        var title: String
        var body: String
        var deleted: Bool
    }

    /// A comment as Django stores it: `article_id`, `author_id` and `reply_to_id` are foreign keys,
    /// `client_id` a UUID written in lowercase.
    struct Comment: Decodable, Equatable {
        var id: Int64
        var article_id: Int64
        var author_id: Int64?
        var reply_to_id: Int64?
        var body: String
        var client_id: String?
        var deleted: Bool
    }

    /// Starts the server when it is its turn (one Django at a time across the suites, see
    /// ``DjangoProcess/start(script:name:lifetime:python:_:)``). It exits by itself after `lifetime`
    /// seconds; the next test's server starts after ``stop()``.
    static func start(lifetime: Int = 600) async throws -> JSONAPIServer {
        guard let python else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: unavailableReason.rawValue])
        }
        return try await DjangoProcess.start(script: script, name: "jsonapi", lifetime: lifetime, python: python) {
            try JSONAPIServer(server: $0)
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

    /// Writes a row on the server's side, as another client would: `action` is `create` (`fields` as
    /// Django names them, foreign keys as `author_id`, `article_id`, `reply_to_id`), `update`, or
    /// `soft_delete`, which marks that row deleted (a new `updated_at`) and keeps its children.
    @discardableResult
    func write(_ model: String, _ action: String, id: Int64? = nil, fields: [String: Any] = [:]) throws -> State {
        var command: [String: Any] = ["op": "write", "model": model, "action": action, "fields": fields]
        if let id { command["id"] = id }
        return try Self.decode(server.send(command)).state
    }

    /// The token the server accepts now: ``token`` until ``rotateToken()``.
    func currentToken() throws -> String {
        try Self.token(in: server.send(["op": "token"]))
    }

    /// Replaces the server's token with a new one, as when a token expires: requests that carry the old
    /// one are answered `401`, and ``currentToken()`` gives the new one.
    func rotateToken() throws {
        _ = try Self.decode(server.send(["op": "rotate_token"]))
    }

    /// Empties the request log.
    @discardableResult
    func clearLog() throws -> State {
        try Self.decode(server.send(["op": "clear_log"])).state
    }

    /// The server's state.
    func state() throws -> State {
        try Self.decode(server.send(["op": "state"])).state
    }

    /// The state and token in an answer; throws the script's error if it answered one.
    private static func decode(_ answer: Data) throws -> (state: State, token: String) {
        let token = try token(in: answer)
        return (try JSONDecoder().decode(State.self, from: answer), token)
    }

    /// The token in an answer; throws the script's error if it answered one.
    private static func token(in answer: Data) throws -> String {
        guard let object = try? JSONSerialization.jsonObject(with: answer) as? [String: Any],
            let token = object["token"] as? String
        else {
            throw CocoaError(
                .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the JSON:API server did not answer"])
        }
        if let error = object["error"] as? String {
            throw CocoaError(
                .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the JSON:API server: \(error)"])
        }
        return token
    }
}
