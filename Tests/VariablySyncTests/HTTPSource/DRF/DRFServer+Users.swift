import Foundation
import UserSyncModels
import VariablySQLite
import VariablySync

extension User {
    /// The user as the server stores it, to compare a cache with the server's database.
    var content: DRFServer.Content {
        DRFServer.Content(id: id, userName: userName, email: email, nickname: nickname, age: age, score: score)
    }

    /// The user's fields as the server's Django model names them, for ``DRFServer/create(_:)``: its id and
    /// values, `updated_at` left to the server.
    var modelFields: [String: Any] {
        [
            "id": id, "user_name": userName, "email_address": email, "age": age, "score": score,
            "is_active": isActive, "tags": tags, "nick_name": nickname as Any? ?? NSNull(),
        ]
    }
}

extension DRFServer {
    /// What a user holds apart from its stamp (and the fields the tests leave alone): a cache and the
    /// server's database agree on these.
    struct Content: Hashable, CustomStringConvertible {
        var id: Int64
        var userName: String
        var email: String
        var nickname: String?
        var age: Int
        var score: Double

        var description: String { "\(id) \(userName) <\(email)> [\(nickname ?? "")] \(age) \(score)" }
    }

    /// DRF's three paginations, each on its own endpoint of the server.
    enum Pagination: String, CaseIterable, CustomStringConvertible {
        case page, cursor, limit

        var description: String { rawValue }
    }

    /// The live users of the server's database, as ``Content``, by id.
    func liveContents() throws -> [Content] {
        try state().users.filter { !$0.deleted }.map {
            Content(
                id: $0.id, userName: $0.user_name, email: $0.email_address, nickname: $0.nick_name,
                age: $0.profile.age, score: $0.profile.score)
        }
    }

    /// User `index` of a seeded server: named `user<index>`, with the nickname `nickname <index>` and
    /// the age `20 + index`, plain values for the rest (see `User(id:userName:)`).
    static func seedUser(_ index: Int) -> User {
        var user = User(id: Int64(index), userName: "user\(index)")
        user.nickname = "nickname \(index)"
        user.age = 20 + index
        return user
    }

    /// Creates users 1 to `count` (``seedUser(_:)``) on the server's side.
    @discardableResult
    func seed(_ count: Int) throws -> State {
        try create((1...count).map(Self.seedUser))
    }

    /// The declared API of the users on one endpoint: the pull for `pagination`, pushes one record at a
    /// time with DRF's trailing slashes, the server's fields read-only.
    static func api(
        _ pagination: Pagination, endpoint: String? = nil, update: HTTPRecordEndpoints.UpdateMethod = .patch,
        body: HTTPRecordEndpoints.Body = .changedFields, concurrency: HTTPRecordEndpoints.Concurrency = .none,
        trailingSlash: Bool = true, maximumConcurrentRequests: Int = 4
    ) -> HTTPAPI {
        let path = "\(endpoint ?? pagination.rawValue)/users/"
        let since = HTTPPullShape.ChangedSince.updatedSince(
            parameter: "updated_since", field: "updated_at", lookBack: .seconds(2))
        let pull: HTTPPullShape =
            switch pagination {
            case .page:
                HTTPPullShape(
                    path: path, records: "results", paging: .page(parameter: "page"),
                    deletions: .tombstones(flag: "deleted"), changedSince: since, limitParameter: "page_size",
                    query: ["ordering": "updated_at,id"], endsOnNotFound: true)
            case .cursor:
                HTTPPullShape(
                    path: path, records: "results", paging: .nextURL(at: "next", links: .keyset),
                    deletions: .tombstones(flag: "deleted"), changedSince: since, limitParameter: "limit")
            case .limit:
                HTTPPullShape(
                    path: path, records: "results", paging: .offset(parameter: "offset"),
                    deletions: .tombstones(flag: "deleted"), changedSince: since, limitParameter: "limit",
                    query: ["ordering": "updated_at,id"])
            }
        let endpoints = HTTPRecordEndpoints(
            path: "\(endpoint ?? pagination.rawValue)/users", trailingSlash: trailingSlash, update: update, body: body,
            readOnlyFields: ["id", "updated_at"], versionField: "updated_at", concurrency: concurrency,
            maximumConcurrentRequests: maximumConcurrentRequests)
        return HTTPAPI(pull: pull, push: .perRecord(endpoints))
    }

    /// A repository of users on an in-memory cache, synced with this server through `api` with its token.
    func makeRepository(
        _ api: HTTPAPI, pageSize: Int = 5, conflicts: ConflictPolicy<User> = .serverWins
    ) throws -> Repository<User> {
        let remote = HTTPRemoteSource<User>(
            baseURL: baseURL, api: api, headers: ["Authorization": "Token \(token)"], timeout: 10)
        return try Repository(
            database: .inMemory(), remote: remote,
            configuration: SyncConfiguration(pageSize: pageSize, retryPolicy: quickRetries, conflictPolicy: conflicts))
    }
}

extension DRFServer {
    /// The API of one `graph/` collection of the example domain (`users`, `posts`, `comments`): page
    /// numbers, tombstones, creates posted, PATCH with the changed fields (a changed `profile.age` sends
    /// the whole `profile` object), the server's `id`, `updated_at` and `deleted` read-only.
    static func graphAPI(_ collection: String) -> HTTPAPI {
        HTTPAPI(
            pull: HTTPPullShape(
                path: "graph/\(collection)/", records: "results", paging: .page(parameter: "page"),
                deletions: .tombstones(flag: "deleted"),
                changedSince: .updatedSince(parameter: "updated_since", field: "updated_at", lookBack: .seconds(2)),
                limitParameter: "page_size", endsOnNotFound: true),
            push: .perRecord(
                HTTPRecordEndpoints(
                    path: "graph/\(collection)", trailingSlash: true, update: .patch, body: .changedFields,
                    readOnlyFields: ["id", "updated_at", "deleted"])))
    }

    /// A repository of `graph/` records on `database`, with this server's token.
    func makeGraphRepository<Model: SQLiteStorable & Identifiable & Sendable>(
        _ type: Model.Type, _ collection: String, database: SQLiteDatabase
    ) throws -> Repository<Model> where Model.ID: Codable & Sendable {
        let remote = HTTPRemoteSource<Model>(
            baseURL: baseURL, api: Self.graphAPI(collection), headers: ["Authorization": "Token \(token)"], timeout: 10)
        return try Repository(
            database: database, remote: remote, configuration: SyncConfiguration(pageSize: 5, retryPolicy: quickRetries)
        )
    }
}
