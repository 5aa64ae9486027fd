import Foundation
import VariablyCodable
import VariablySQLite
import VariablySync

/// A record of ``PocketBaseServer``'s `users` collection as an app would model it: PocketBase's id (15
/// characters of `[a-z0-9]`, made by the server or by the client), the collection's fields, and
/// `updated`, which PocketBase writes as `2026-11-27 14:58:16.233Z` (read as ISO 8601, the remote
/// default, which takes the space for `T`).
struct PocketBaseUser: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: String
    var userName: String
    var email: String
    var age: Int
    var isActive: Bool
    /// When PocketBase last wrote the record; `nil` until it has.
    var updated: Date?

    init(id: String, userName: String, email: String = "", age: Int = 0, isActive: Bool = false, updated: Date? = nil) {
        (self.id, self.userName, self.email, self.age, self.isActive, self.updated) =
            (id, userName, email, age, isActive, updated)
    }

    init(from container: DecodingContainer<PocketBaseUser>) throws {
        id = try container.decode(\.id)
        userName = try container.decode(\.userName)
        email = try container.decode(\.email, default: "")
        age = try container.decode(\.age, default: 0)
        isActive = try container.decode(\.isActive, default: false)
        updated = try container.decode(\.updated)
    }

    static let keySets = KeySets<PocketBaseUser>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.userName, "user_name")
            Key(\.email, "email_address")
            Key(\.age, "age")
            Key(\.isActive, "is_active")
            Key(\.updated, "updated")
        }
        KeySet(.sqlite, style: .snakeCase)
    }

    /// The PocketBase recipe of docs/http.md ("6. PocketBase"), declared as the document has it: page
    /// numbers over `items` while the page asked is below `totalPages`, the changes since the largest
    /// `updated` received through PocketBase's `filter` expression, sorted by `updated,id`; pushes one
    /// record at a time, `PATCH` of the changed fields and `DELETE`; a bad token, which PocketBase answers
    /// like no token (an empty list, `404`, `400`), told apart by its own `auth-refresh`.
    static let api = HTTPAPI(
        pull: HTTPPullShape(
            path: "api/collections/users/records", records: "items", paging: .page(parameter: "page"),
            hasMore: .totalPages(at: "totalPages"),
            changedSince: .filter(
                parameter: "filter", expression: "(updated>={value})", quoting: .singleQuotes, field: "updated"),
            limitParameter: "perPage", query: ["sort": "updated,id"]),
        push: .perRecord(
            HTTPRecordEndpoints(
                path: "api/collections/users/records", update: .patch, body: .changedFields,
                readOnlyFields: ["updated"], newIDs: .pocketBase
            )
            .lookingUpChosenIDs(.filter(parameter: "filter", each: "id='{value}'", separator: "||"))),
        credentials: HTTPCredentialsCheck(method: "POST", path: "api/collections/members/auth-refresh"))

    static let sqliteTable = SQLiteTable<PocketBaseUser>("pocketbase_users", primaryKey: \.id)

    /// What the user holds apart from its stamp: a cache and the server agree on these.
    var content: Content {
        Content(id: id, userName: userName, email: email, age: age, isActive: isActive)
    }

    /// A user's values without its stamp, to compare a cache with the server.
    struct Content: Hashable, CustomStringConvertible {
        var id: String
        var userName: String
        var email: String
        var age: Int
        var isActive: Bool

        var description: String { "\(id) \(userName) <\(email)> \(age) \(isActive ? "active" : "inactive")" }
    }
}

extension PocketBaseServer.ServerUser {
    /// The user as the server stores it, without its stamp.
    var content: PocketBaseUser.Content {
        PocketBaseUser.Content(id: id, userName: user_name, email: email_address, age: age, isActive: is_active)
    }
}
