import Foundation
import VariablyCodable
import VariablySQLite

/// The shared `User` fixture's shape and key sets (remote with nested paths and alternatives, local
/// in SCREAMING_SNAKE, sqlite in snake_case), with a table for the predicate harness.
struct FuzzUser: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: Int64
    var userName: String
    var email: String
    var age: Int
    var isActive: Bool
    var score: Double
    var createdAt: Date
    var tags: [String]
    var nickname: String?

    init(
        id: Int64, userName: String, email: String, age: Int, isActive: Bool, score: Double, createdAt: Date,
        tags: [String], nickname: String?
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

    init(from container: DecodingContainer<FuzzUser>) throws {
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

    static let keySets = KeySets<FuzzUser>(defaultSource: .remote) {
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

    static let sqliteTable = SQLiteTable<FuzzUser>("fuzz_users", primaryKey: \.id, [.index(\.userName)])
}

/// Traps with `message` so that libFuzzer records the input as a crash.
func fuzzFailure(_ message: String) -> Never {
    fatalError("fuzz invariant broken: \(message)")
}
