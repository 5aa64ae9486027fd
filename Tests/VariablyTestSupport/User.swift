public import Foundation
public import VariablyCodable

/// The model the test suites share: eight benchmark fields plus an optional, with three key sets.
public struct User: VariablyCodable, Identifiable, Hashable, Sendable {
    public var id: Int64
    public var userName: String
    public var email: String
    public var age: Int
    public var isActive: Bool
    public var score: Double
    public var createdAt: Date
    public var tags: [String]
    public var nickname: String?

    public init(
        id: Int64, userName: String, email: String, age: Int, isActive: Bool, score: Double, createdAt: Date,
        tags: [String], nickname: String? = nil
    ) {
        self.id = id
        self.userName = userName
        self.email = email
        self.age = age
        self.isActive = isActive
        self.score = score
        self.createdAt = createdAt
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
        createdAt = try container.decode(\.createdAt)
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
            Key(\.createdAt, "created_at")
            Key(\.tags, "tags")
            Key(\.nickname, "nick_name")
        }
        KeySet(.local, style: .screamingSnakeCase)
        KeySet(.sqlite, style: .snakeCase)
    }
}

extension User {
    /// A deterministic user: the same `index` always gives the same values.
    public static func sample(_ index: Int) -> User {
        User(
            id: Int64(index + 1),
            userName: "user\(index)",
            email: "user\(index)@example.com",
            age: 18 + index % 60,
            isActive: index % 3 != 0,
            score: Double(index % 1000) / 8,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60),
            tags: index % 4 == 0 ? [] : ["tag\(index % 7)", "group\(index % 3)"],
            nickname: index % 5 == 0 ? nil : "nick\(index)")
    }

    /// `count` deterministic users.
    public static func samples(_ count: Int) -> [User] {
        (0..<count).map(sample)
    }
}
