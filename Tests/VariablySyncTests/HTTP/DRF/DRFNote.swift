import Foundation
import VariablyCodable
import VariablySQLite
import VariablySync

/// The client's model of the Django REST Framework server's notes: the server assigns `id` and stamps
/// `updated_at` (microseconds, the version `If-Match` carries); `deleted` is the tombstone flag the pull
/// shape reads, not a property.
struct DRFNote: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: Int64
    var title: String
    var body: String
    var rating: Int
    var updatedAt: Date?

    init(id: Int64, title: String, body: String = "", rating: Int = 0, updatedAt: Date? = nil) {
        self.id = id
        self.title = title
        self.body = body
        self.rating = rating
        self.updatedAt = updatedAt
    }

    init(from container: DecodingContainer<DRFNote>) throws {
        id = try container.decode(\.id)
        title = try container.decode(\.title)
        body = try container.decode(\.body)
        rating = try container.decode(\.rating)
        updatedAt = try container.decode(\.updatedAt)
    }

    static let keySets = KeySets<DRFNote>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.title, "title")
            Key(\.body, "body")
            Key(\.rating, "rating")
            Key(\.updatedAt, "updated_at")
        }
        .dates(.flexible)
        KeySet(.sqlite, style: .snakeCase)
    }

    static let sqliteTable = SQLiteTable<DRFNote>("drf_notes", primaryKey: \.id)

    /// The note as the server stores it, to compare a cache with the server's database.
    var content: DRFServer.Content { DRFServer.Content(id: id, title: title, body: body, rating: rating) }
}

extension DRFServer {
    /// What a note holds apart from its stamp: a cache and the server's database agree on these.
    struct Content: Hashable, CustomStringConvertible {
        var id: Int64
        var title: String
        var body: String
        var rating: Int

        var description: String { "\(id) \(title) [\(body)] \(rating)" }
    }

    /// DRF's three paginations, each on its own endpoint of the server.
    enum Pagination: String, CaseIterable, CustomStringConvertible {
        case page, cursor, limit

        var description: String { rawValue }
    }

    /// The live notes of the server's database, as ``Content``, by id.
    func liveContents() throws -> [Content] {
        try state().notes.filter { !$0.deleted }.map {
            Content(id: $0.id, title: $0.title, body: $0.body, rating: $0.rating)
        }
    }

    /// The declared API of one endpoint: the pull for `pagination`, pushes one record at a time with
    /// DRF's trailing slashes, the server's fields read-only.
    static func api(
        _ pagination: Pagination, endpoint: String? = nil, update: HTTPRecordEndpoints.UpdateMethod = .patch,
        body: HTTPRecordEndpoints.Body = .changedFields, concurrency: HTTPRecordEndpoints.Concurrency = .none,
        trailingSlash: Bool = true, maximumConcurrentRequests: Int = 4
    ) -> HTTPAPI {
        let path = "\(endpoint ?? pagination.rawValue)/notes/"
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
                    path: path, records: "results", paging: .nextURL(at: "next"),
                    deletions: .tombstones(flag: "deleted"), changedSince: since, limitParameter: "limit")
            case .limit:
                HTTPPullShape(
                    path: path, records: "results", paging: .offset(parameter: "offset"),
                    deletions: .tombstones(flag: "deleted"), changedSince: since, limitParameter: "limit",
                    query: ["ordering": "updated_at,id"])
            }
        let endpoints = HTTPRecordEndpoints(
            path: "\(endpoint ?? pagination.rawValue)/notes", trailingSlash: trailingSlash, update: update, body: body,
            readOnlyFields: ["id", "updated_at"], versionField: "updated_at", concurrency: concurrency,
            maximumConcurrentRequests: maximumConcurrentRequests)
        return HTTPAPI(pull: pull, push: .perRecord(endpoints))
    }

    /// A repository on an in-memory cache, synced with this server through `api` with its token.
    func makeRepository(
        _ api: HTTPAPI, pageSize: Int = 5, conflicts: ConflictPolicy<DRFNote> = .serverWins
    ) throws -> Repository<DRFNote> {
        let remote = HTTPRemoteSource<DRFNote>(
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
