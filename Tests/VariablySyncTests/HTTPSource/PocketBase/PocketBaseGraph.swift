import Foundation
import VariablyCodable
import VariablyHTTP
import VariablySQLite
import VariablySync

/// PocketBase writes an empty relation as `""`: read as `nil`, written back as `""`.
let pocketBaseEmptyRelation = ValueTransform<String?, String>(decode: { $0.isEmpty ? nil : $0 }, encode: { $0 ?? "" })

/// A record of ``PocketBaseServer``'s `posts` collection: its author is a `users` record, deleted with it.
struct PocketBasePost: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: String
    var authorID: String
    var title: String
    var updated: Date?

    init(from container: DecodingContainer<PocketBasePost>) throws {
        id = try container.decode(\.id)
        authorID = try container.decode(\.authorID)
        title = try container.decode(\.title, default: "")
        updated = try container.decode(\.updated)
    }

    static let keySets = KeySets<PocketBasePost>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.authorID, "author")
            Key(\.title, "title")
            Key(\.updated, "updated")
        }
        KeySet(.sqlite, style: .snakeCase)
    }

    static let sqliteTable = SQLiteTable<PocketBasePost>(
        "pocketbase_posts", primaryKey: \.id, [.references(\.authorID, PocketBaseUser.self, onDelete: .cascade)])
}

/// A record of ``PocketBaseServer``'s `comments` collection: on a post (deleted with it), maybe replying
/// to another comment (emptied when that one goes).
struct PocketBaseComment: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: String
    var postID: String
    var replyTo: String?
    var body: String
    var updated: Date?

    init(id: String, postID: String, replyTo: String?, body: String) {
        (self.id, self.postID, self.replyTo, self.body) = (id, postID, replyTo, body)
    }

    init(from container: DecodingContainer<PocketBaseComment>) throws {
        id = try container.decode(\.id)
        postID = try container.decode(\.postID)
        replyTo = try container.decode(\.replyTo)
        body = try container.decode(\.body, default: "")
        updated = try container.decode(\.updated)
    }

    static let keySets = KeySets<PocketBaseComment>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.postID, "post")
            Key(\.replyTo, "reply_to", transform: pocketBaseEmptyRelation)
            Key(\.body, "body")
            Key(\.updated, "updated")
        }
        KeySet(.sqlite, style: .snakeCase)
    }

    static let sqliteTable = SQLiteTable<PocketBaseComment>(
        "pocketbase_comments", primaryKey: \.id,
        [
            .references(\.postID, PocketBasePost.self, onDelete: .cascade),
            .references(\.replyTo, PocketBaseComment.self, onDelete: .setNull),
        ])
}

extension PocketBaseServer {
    /// The recipe of docs/http.md for `collection`, with an id listing (`fields=id`) for the deletions
    /// PocketBase never lists otherwise (and the tombstones its hook keeps, where `tombstones`); creates
    /// in doubt looked up by one filter of their ids, or one `GET` each with `VARIABLY_PB_SINGLE_LOOKUPS=1`
    /// (for comparison).
    static func graphAPI(_ collection: String, tombstones: Bool = false) -> HTTPAPI {
        let path = "api/collections/\(collection)/records"
        return HTTPAPI(
            pull: HTTPPullShape(
                path: path, records: "items", paging: .page(parameter: "page"), hasMore: .totalPages(at: "totalPages"),
                deletions: tombstones ? .tombstones(flag: "deleted") : .none,
                changedSince: .filter(
                    parameter: "filter", expression: "(updated>={value})", quoting: .singleQuotes, field: "updated"),
                limitParameter: "perPage", query: ["sort": "updated,id"]),
            push: .perRecord(
                ProcessInfo.processInfo.environment["VARIABLY_PB_SINGLE_LOOKUPS"] == "1"
                    ? HTTPRecordEndpoints(
                        path: path, update: .patch, body: .changedFields, readOnlyFields: ["updated"],
                        newIDs: .pocketBase)
                    : HTTPRecordEndpoints(
                        path: path, update: .patch, body: .changedFields, readOnlyFields: ["updated"],
                        newIDs: .pocketBase
                    )
                    .lookingUpChosenIDs(.filter(parameter: "filter", each: "id='{value}'", separator: "||"))),
            credentials: HTTPCredentialsCheck(method: "POST", path: "api/collections/members/auth-refresh"),
            idListing: HTTPPullShape(
                path: path, records: "items", paging: .page(parameter: "page"), hasMore: .totalPages(at: "totalPages"),
                limitParameter: "perPage", query: ["fields": "id", "sort": "id"]))
    }

    /// A device's comments, posts and users on `database`, and the store of the three; `authorize`, a
    /// request hook that sets the token (and refreshes it), in place of the member's token as a header.
    /// Comments read tombstones where the server keeps them (``commentDeletions``).
    func graph(
        on database: SQLiteDatabase, transport: any HTTPTransport = HTTPTransports.platformDefault,
        retryPolicy: RetryPolicy = quickRetries, authorize: HTTPRemoteSource<PocketBaseComment>.RequestHook? = nil
    ) throws -> (comments: Repository<PocketBaseComment>, store: SyncStore) {
        func remote<Model: SQLiteStorable & Identifiable & Sendable>(_ type: Model.Type, _ collection: String)
            -> HTTPRemoteSource<Model>
        where Model.ID: Codable & Sendable {
            let api = Self.graphAPI(
                collection, tombstones: collection == "comments" && commentDeletions == .keptAsTombstones)
            guard let authorize else {
                return HTTPRemoteSource<Model>(
                    baseURL: baseURL, api: api, headers: ["Authorization": token], timeout: 30, transport: transport)
            }
            return HTTPRemoteSource<Model>(
                baseURL: baseURL, api: api, timeout: 30, transport: transport, prepare: authorize)
        }
        let users = try Repository(
            database: database, remote: remote(PocketBaseUser.self, "users"),
            configuration: SyncConfiguration(pageSize: 20, retryPolicy: retryPolicy))
        let posts = try Repository(
            database: database, remote: remote(PocketBasePost.self, "posts"),
            configuration: SyncConfiguration(pageSize: 20, retryPolicy: retryPolicy))
        let comments = try Repository(
            database: database, remote: remote(PocketBaseComment.self, "comments"),
            configuration: SyncConfiguration(pageSize: 20, retryPolicy: retryPolicy))
        return (comments, try SyncStore(comments, posts, users))
    }
}
