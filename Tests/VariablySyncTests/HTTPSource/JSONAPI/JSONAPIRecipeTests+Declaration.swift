import Foundation
import VariablyHTTP
import VariablySQLite
import VariablySync

// MARK: - The recipe of docs/http.md, "Write shapes and JSON:API"

extension JSONAPIRecipeTests {
    /// The three resources' repositories on one cache, and their store.
    struct Blog {
        var people: Repository<Person>
        var articles: Repository<Article>
        var comments: Repository<Comment>
        var store: SyncStore
    }

    /// The articles' API, line for line as docs/http.md declares it: no request hook, no custom transport.
    static func articlesAPI() -> HTTPAPI {
        let endpoints = HTTPRecordEndpoints(
            path: "articles", update: .patch, body: .changedFields, readOnlyFields: ["id"],
            writes: .jsonAPI(type: "articles", relationships: ["author": "people"]))
        let api = HTTPAPI(
            pull: HTTPPullShape(
                path: "articles", records: "data", paging: .nextURL(at: "links.next"),
                deletions: .tombstones(flag: "attributes.deleted"),
                changedSince: .updatedSince(
                    parameter: "filter[updated_at.gte]", field: "attributes.updated_at", lookBack: .seconds(2)),
                limitParameter: "page[size]", query: ["sort": "updated_at,id"]),
            push: .perRecord(endpoints))
        return api
    }

    /// The comments' API: the articles' pull on `comments`, and the endpoints of docs/http.md, with the
    /// client reference a create in doubt is looked up by.
    static func commentsAPI() -> HTTPAPI {
        let commentEndpoints = HTTPRecordEndpoints(
            path: "comments", update: .patch, body: .changedFields, readOnlyFields: ["id"],
            clientReference: .init(field: "attributes.client_id", lookUp: .list(parameter: "filter[client_id.in]")),
            writes: .jsonAPI(
                type: "comments", relationships: ["article": "articles", "author": "people", "reply_to": "comments"]))
        return HTTPAPI(pull: pull("comments"), push: .perRecord(commentEndpoints))
    }

    /// The people's API: the articles' declaration on `people`, without relationships.
    static func peopleAPI() -> HTTPAPI {
        HTTPAPI(
            pull: pull("people"),
            push: .perRecord(
                HTTPRecordEndpoints(
                    path: "people", update: .patch, body: .changedFields, readOnlyFields: ["id"],
                    writes: .jsonAPI(type: "people"))))
    }

    /// The articles' pull shape (``articlesAPI()``) on the collection at `path`.
    static func pull(_ path: String) -> HTTPPullShape {
        HTTPPullShape(
            path: path, records: "data", paging: .nextURL(at: "links.next"),
            deletions: .tombstones(flag: "attributes.deleted"),
            changedSince: .updatedSince(
                parameter: "filter[updated_at.gte]", field: "attributes.updated_at", lookBack: .seconds(2)),
            limitParameter: "page[size]", query: ["sort": "updated_at,id"])
    }

    /// The three repositories on a fresh in-memory cache, pulling pages of 5 from `server` with its token.
    static func blog(on server: JSONAPIServer) throws -> Blog {
        try blog(on: server.baseURL, token: server.token, database: SQLiteDatabase.inMemory())
    }

    /// The three repositories on `database`, pulling pages of `pageSize` from the server at `baseURL`
    /// with `token`, sending through `transport`, and their store.
    static func blog(
        on baseURL: URL, token: String, database: SQLiteDatabase,
        transport: any HTTPTransport = HTTPTransports.platformDefault, pageSize: Int = 5
    ) throws -> Blog {
        try blog(
            on: baseURL, headers: ["Authorization": "Token \(token)"], database: database, transport: transport,
            pageSize: pageSize, comments: commentsAPI(), hook: nil)
    }

    /// The three repositories on `database`, pulling pages of `pageSize` from the server at `baseURL`, the
    /// comments declared by `comments`, every request prepared by `hook` (which gives it the credentials),
    /// and their store.
    static func blog(
        on baseURL: URL, database: SQLiteDatabase, pageSize: Int = 5, comments: HTTPAPI = commentsAPI(),
        hook: @escaping HTTPRemoteSource<Comment>.RequestHook
    ) throws -> Blog {
        try blog(
            on: baseURL, headers: [:], database: database, transport: HTTPTransports.platformDefault,
            pageSize: pageSize, comments: comments, hook: hook)
    }

    private static func blog(
        on baseURL: URL, headers: [String: String], database: SQLiteDatabase, transport: any HTTPTransport,
        pageSize: Int, comments commentsAPI: HTTPAPI, hook: HTTPRemoteSource<Comment>.RequestHook?
    ) throws -> Blog {
        func repository<Model: SQLiteStorable & Identifiable & Sendable>(_ type: Model.Type, _ api: HTTPAPI) throws
            -> Repository<Model>
        where Model.ID: Codable & Sendable {
            let remote = HTTPRemoteSource<Model>(
                baseURL: baseURL, api: api, headers: headers, timeout: 10, transport: transport, prepare: hook)
            return try Repository(
                database: database, remote: remote,
                configuration: SyncConfiguration(pageSize: pageSize, retryPolicy: quickRetries))
        }
        let people = try repository(Person.self, peopleAPI())
        let articles = try repository(Article.self, articlesAPI())
        let comments = try repository(Comment.self, commentsAPI)
        return Blog(
            people: people, articles: articles, comments: comments, store: try SyncStore(comments, articles, people))
    }
}
