import Foundation

// MARK: - The schema, through the REST API

extension PocketBaseServer {
    /// The rule of every action of the three collections: any signed-in account, never a guest.
    static let signedIn = #"@request.auth.id != """#

    /// Sets up a fresh server at `baseURL` as the type's documentation says, with the superuser made before
    /// it served (the comments' rules as `commentDeletions` wants them), and returns the superuser's token
    /// and the member's.
    ///
    /// The order matters: the default auth collection `users` is renamed `members` before the base
    /// `users` is made, and the three collections come in one import, the only way PocketBase takes a
    /// self-relation (`comments.reply_to`) with its collection (a `POST /api/collections` with a relation
    /// to itself answers 400 `validation_field_relation_missing_collection`).
    static func setUp(baseURL: URL, commentDeletions: CommentDeletions) async throws
        -> (superuser: String, member: String)
    {
        let superuser = try await signIn(
            baseURL, collection: "_superusers", email: superuserEmail, password: superuserPassword)
        try await call(
            baseURL, "PATCH", "api/collections/users", token: superuser,
            body: ["name": "members", "listRule": signedIn, "viewRule": signedIn])
        try await call(
            baseURL, "PUT", "api/collections/import", token: superuser,
            body: [
                "deleteMissing": false,
                "collections": [usersCollection, postsCollection, commentsCollection(commentDeletions)],
            ])
        // The batch API is off by default, and a batch may take 3 s: too little for 50 creates on a
        // loaded machine.
        try await call(
            baseURL, "PATCH", "api/settings", token: superuser,
            body: ["batch": ["enabled": true, "maxRequests": batchLimit, "timeout": 30]])
        try await call(
            baseURL, "POST", "api/collections/members/records", token: superuser,
            body: ["email": memberEmail, "password": memberPassword, "passwordConfirm": memberPassword])
        let member = try await signIn(baseURL, collection: "members", email: memberEmail, password: memberPassword)
        return (superuser, member)
    }

    /// A fresh token of the member that PocketBase stops accepting `seconds` after it is made: the
    /// members' token duration is set to `seconds` (for every token made from now on) before signing in.
    func memberToken(lasting seconds: Int) async throws -> String {
        try await Self.call(
            baseURL, "PATCH", "api/collections/members", token: superuserToken,
            body: ["authToken": ["duration": seconds]])
        return try await Self.signIn(
            baseURL, collection: "members", email: Self.memberEmail, password: Self.memberPassword)
    }

    /// The most requests one `POST /api/batch` may carry, as the settings say.
    static let batchLimit = 50

    /// A fresh token of the member, signed in again, as an app does once its token is refused.
    static func signInMember(at baseURL: URL) async throws -> String {
        try await signIn(baseURL, collection: "members", email: memberEmail, password: memberPassword)
    }

    /// Every member token made so far stops being accepted, as when tokens expire: the members' token
    /// secret changes. PocketBase then reads them as no token at all (a guest's empty lists, `404`s).
    func expireMemberTokens() async throws {
        let secret = (0..<5).map { _ in UUID().uuidString.replacingOccurrences(of: "-", with: "") }.joined()
        try await Self.call(
            baseURL, "PATCH", "api/collections/members", token: superuserToken,
            body: ["authToken": ["secret": secret]])
    }

    /// `POST api/collections/<collection>/auth-with-password`'s token.
    private static func signIn(_ baseURL: URL, collection: String, email: String, password: String) async throws
        -> String
    {
        let answer = try await call(
            baseURL, "POST", "api/collections/\(collection)/auth-with-password", token: nil,
            body: ["identity": email, "password": password])
        guard let token = (try JSONSerialization.jsonObject(with: answer) as? [String: Any])?["token"] as? String else {
            throw failure(
                "auth-with-password of \(collection) answered no token: \(String(decoding: answer, as: UTF8.self))")
        }
        return token
    }

    // MARK: - Collections

    /// A base collection's definition with the given id, name and fields, the rules of every action
    /// ``signedIn``, and `created` and `updated` autodate fields (PocketBase 0.23 and later adds none
    /// by itself).
    private static func collection(
        id: String, name: String, fields: [[String: Any]], indexes: [String] = []
    ) -> [String: Any] {
        let stamps: [[String: Any]] = [
            ["name": "created", "type": "autodate", "onCreate": true, "onUpdate": false],
            ["name": "updated", "type": "autodate", "onCreate": true, "onUpdate": true],
        ]
        return [
            "id": id, "name": name, "type": "base", "listRule": signedIn, "viewRule": signedIn,
            "createRule": signedIn, "updateRule": signedIn, "deleteRule": signedIn, "fields": fields + stamps,
            "indexes": indexes,
        ]
    }

    /// A relation field to the collection `target` (its id), of one record.
    private static func relation(_ name: String, to target: String, required: Bool, cascade: Bool) -> [String: Any] {
        [
            "name": name, "type": "relation", "collectionId": target, "maxSelect": 1, "required": required,
            "cascadeDelete": cascade,
        ]
    }

    private static var usersCollection: [String: Any] {
        collection(
            id: "pbc_users", name: "users",
            fields: [
                ["name": "user_name", "type": "text", "required": true],
                ["name": "email_address", "type": "text"],
                ["name": "age", "type": "number"],
                ["name": "is_active", "type": "bool"],
            ])
    }

    private static var postsCollection: [String: Any] {
        collection(
            id: "pbc_posts", name: "posts",
            fields: [
                relation("author", to: "pbc_users", required: true, cascade: true),
                ["name": "title", "type": "text"],
                ["name": "body", "type": "text"],
            ])
    }

    private static func commentsCollection(_ deletions: CommentDeletions) -> [String: Any] {
        let definition = collection(
            id: "pbc_comments", name: "comments",
            fields: [
                relation("post", to: "pbc_posts", required: true, cascade: true),
                relation("reply_to", to: "pbc_comments", required: false, cascade: false),
                ["name": "body", "type": "text"],
                ["name": "client_id", "type": "text"],
                ["name": "deleted", "type": "bool"],
            ],
            indexes: [#"CREATE UNIQUE INDEX idx_comments_client_id ON comments (client_id) WHERE client_id != """#])
        return definition.merging(commentRules(deletions)) { $1 }
    }
}
