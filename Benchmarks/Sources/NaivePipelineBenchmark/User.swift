import Foundation
import VariablyCodable
import VariablySQLite

/// The UserSync sample's model (a copy: an executable target cannot be imported), whose pages both
/// pipelines store: one declaration, three sets of key names.
///
/// The server speaks snake_case with a nested `profile` object (and renamed `user_name` to `username`
/// in its API v2, hence the alternatives); the cache file uses SCREAMING_SNAKE keys; SQLite columns are
/// snake_case.
struct User: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: Int64
    var userName: String
    var email: String
    var age: Int
    var isActive: Bool
    var score: Double
    var updatedAt: Date
    var tags: [String]
    var nickname: String?

    init(
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

    init(from container: DecodingContainer<User>) throws {
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

    static let keySets = KeySets<User>(defaultSource: .remote) {
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

    static let sqliteTable = SQLiteTable<User>(
        "users", primaryKey: \.id, [.index(\.userName), .index(\.age, \.isActive)])
}

extension User {
    private static let firstNames = [
        "ada", "alan", "barbara", "claude", "donald", "edsger", "frances", "grace", "hedy", "ivan",
        "john", "katherine", "leslie", "margaret", "niklaus", "ole", "radia", "shafi", "tim", "whitfield",
    ]
    // Capitalized once: `capitalized` per user would be a noticeable part of generating a million.
    private static let nicknames = firstNames.map(\.capitalized)
    private static let lastNames = [
        "allen", "backus", "cerf", "dijkstra", "engelbart", "floyd", "hamilton", "hopper", "kay", "knuth",
        "lamport", "liskov", "mccarthy", "perlman", "ritchie", "shannon", "sutherland", "thompson", "turing", "wirth",
    ]

    /// A deterministic user: the same index always gives the same values.
    static func generated(_ index: Int) -> User {
        let first = firstNames[index % firstNames.count]
        let last = lastNames[(index / firstNames.count) % lastNames.count]
        return User(
            id: Int64(index + 1), userName: "\(first).\(last)\(index)", email: "\(first).\(last)\(index)@example.com",
            age: 18 + (index * 7) % 60, isActive: index % 3 != 0, score: Double((index * 37) % 1000) / 10,
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60),
            tags: index % 4 == 0 ? [] : ["team\(index % 5)", "level\(index % 3)"],
            nickname: index % 5 == 0 ? nil : nicknames[index % firstNames.count])
    }
}
