public import Foundation
public import VariablyCodable
public import VariablySQLite

/// A user of the example domain: one declaration, three sets of key names.
///
/// The server speaks snake_case with a nested `profile` object (and renamed `user_name` to `username`
/// in its API v2, hence the alternatives) and writes `updated_at` in ISO 8601; the cache file uses
/// SCREAMING_SNAKE keys; SQLite columns are snake_case. A user may pick a favourite post, which makes
/// the graph a cycle (a post has an author, a user a favourite post).
///
/// ```swift
/// let ada = User(id: 1, userName: "ada")
/// let json = try JSONEncoder(source: .remote).encode(ada)   // {"user_name": "ada", "profile": {...}, ...}
/// ```
public struct User: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    public var id: Int64
    public var userName: String
    public var email: String
    public var age: Int
    public var isActive: Bool
    public var score: Double
    public var updatedAt: Date
    public var tags: [String]
    public var nickname: String?
    /// The user's favourite post: emptied when that post goes.
    public var favoritePostID: Int64?

    /// Creates a user with every field given.
    public init(
        id: Int64, userName: String, email: String, age: Int, isActive: Bool, score: Double, updatedAt: Date,
        tags: [String], nickname: String? = nil, favoritePostID: Int64? = nil
    ) {
        self.id = id
        self.userName = userName
        self.email = email
        self.age = age
        self.isActive = isActive
        self.score = score
        self.updatedAt = updatedAt
        self.tags = tags
        self.nickname = nickname
        self.favoritePostID = favoritePostID
    }

    /// Creates a user with a name and plain values for the rest: the email `<userName>.<id>@example.com`,
    /// age 30, active, a score of 0, updated at 2023-11-14T22:13:20Z, no tags and no nickname.
    public init(id: Int64, userName: String, favoritePostID: Int64? = nil) {
        self.init(
            id: id, userName: userName, email: "\(userName).\(id)@example.com", age: 30, isActive: true, score: 0,
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000), tags: [], favoritePostID: favoritePostID)
    }

    public init(from container: DecodingContainer<User>) throws {
        id = try container.decode(\.id)
        userName = try container.decode(\.userName)
        email = try container.decode(\.email)
        age = try container.decode(\.age)
        isActive = try container.decode(\.isActive)
        score = try container.decode(\.score)
        updatedAt = try container.decode(\.updatedAt)
        tags = try container.decode(\.tags, default: [])
        nickname = try container.decode(\.nickname)
        favoritePostID = try container.decode(\.favoritePostID)
    }

    public static let keySets = KeySets<User>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.userName, ["user_name", "username"])
            Key(\.email, "email_address")
            Key(\.age, "profile.age")
            Key(\.isActive, "is_active")
            Key(\.score, "profile.score")
            Key(\.updatedAt, "updated_at").dates(.flexible)  // ISO 8601 as Rails, Django and Express write it
            Key(\.tags, "tags")
            Key(\.nickname, "nick_name")
            Key(\.favoritePostID, "favorite_post_id")
        }
        KeySet(.local, style: .screamingSnakeCase)
        KeySet(.sqlite, style: .snakeCase)
    }

    public static let sqliteTable = SQLiteTable<User>(
        "users", primaryKey: \.id,
        [
            .index(\.userName), .index(\.age, \.isActive), .unique(\.email),
            .references(\.favoritePostID, Post.self, onDelete: .setNull),
        ])
}
