import Foundation
import VariablyCodable

/// The benchmark model: 8 fields, key sets for the server (snake_case) and SQLite.
struct BenchUser: VariablyCodable, Hashable, Sendable {
    var id: Int64
    var userName: String
    var email: String
    var age: Int
    var isActive: Bool
    var score: Double
    var createdAt: Date
    var tags: [String]

    init(
        id: Int64, userName: String, email: String, age: Int, isActive: Bool, score: Double, createdAt: Date,
        tags: [String]
    ) {
        self.id = id
        self.userName = userName
        self.email = email
        self.age = age
        self.isActive = isActive
        self.score = score
        self.createdAt = createdAt
        self.tags = tags
    }

    init(from container: DecodingContainer<BenchUser>) throws {
        id = try container.decode(\.id)
        userName = try container.decode(\.userName)
        email = try container.decode(\.email)
        age = try container.decode(\.age)
        isActive = try container.decode(\.isActive)
        score = try container.decode(\.score)
        createdAt = try container.decode(\.createdAt)
        tags = try container.decode(\.tags)
    }

    static let keySets = KeySets<BenchUser>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.userName, "user_name")
            Key(\.email, "email")
            Key(\.age, "age")
            Key(\.isActive, "is_active")
            Key(\.score, "score")
            // Numbers, as the baseline's synthesized Codable reads them (Foundation's default); the remote
            // source's own default is ISO 8601, which the toolkit group measures apart.
            Key(\.createdAt, "created_at").dates(.secondsSince1970)
            Key(\.tags, "tags")
        }
        KeySet(.sqlite, style: .snakeCase)
    }

    static func make(_ index: Int) -> BenchUser {
        BenchUser(
            id: Int64(index + 1), userName: "user\(index)", email: "user\(index)@example.com", age: 18 + index % 60,
            isActive: index % 3 != 0, score: Double(index % 1000) / 8,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)),
            tags: ["tag\(index % 7)", "group\(index % 3)"])
    }
}

/// The same model decoded by derived, key-path-assigning decoding.
struct DerivedBenchUser: VariablyCodable, EmptyInitializable {
    var id: Int64 = 0
    var userName = ""
    var email = ""
    var age = 0
    var isActive = false
    var score = 0.0
    var createdAt = Date(timeIntervalSince1970: 0)
    var tags: [String] = []

    static let keySets = KeySets<DerivedBenchUser>(defaultSource: .remote) {
        KeySet(.remote, style: .snakeCase) {
            Key(\.id); Key(\.userName); Key(\.email); Key(\.age); Key(\.isActive); Key(\.score); Key(\.createdAt);
            Key(\.tags)
        }
    }
}

/// Synthesized Codable with explicit CodingKeys: the baseline.
struct SynthesizedUser: Codable {
    var id: Int64
    var userName: String
    var email: String
    var age: Int
    var isActive: Bool
    var score: Double
    var createdAt: Date
    var tags: [String]

    enum CodingKeys: String, CodingKey {
        case id, email, age, score, tags
        case userName = "user_name", isActive = "is_active", createdAt = "created_at"
    }
}

/// Synthesized Codable without CodingKeys, for `.convertFromSnakeCase`.
struct CamelUser: Codable {
    var id: Int64
    var userName: String
    var email: String
    var age: Int
    var isActive: Bool
    var score: Double
    var createdAt: Date
    var tags: [String]
}
