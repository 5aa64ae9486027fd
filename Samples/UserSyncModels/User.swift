public import Foundation
public import VariablyCodable
public import VariablySQLite

/// The sample's model: one declaration, three sets of key names.
///
/// The server speaks snake_case with a nested `profile` object (and renamed `user_name` to `username`
/// in its API v2, hence the alternatives); the cache file uses SCREAMING_SNAKE keys; SQLite columns are
/// snake_case.
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

    public init(
        id: Int64, userName: String, email: String, age: Int, isActive: Bool, score: Double, updatedAt: Date,
        tags: [String], nickname: String?
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
    }

    public static let keySets = KeySets<User>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.userName, ["user_name", "username"])
            Key(\.email, "email_address")
            Key(\.age, "profile.age")
            Key(\.isActive, "is_active")
            Key(\.score, "profile.score")
            Key(\.updatedAt, "updated_at")
            Key(\.tags, "tags")
            Key(\.nickname, "nick_name")
        }
        KeySet(.local, style: .screamingSnakeCase)
        KeySet(.sqlite, style: .snakeCase)
    }

    public static let sqliteTable = SQLiteTable<User>(
        "users", primaryKey: \.id, [.index(\.userName), .index(\.age, \.isActive)])
}
