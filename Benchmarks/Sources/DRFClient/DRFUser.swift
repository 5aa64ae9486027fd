import Foundation
import VariablyCodable
import VariablySQLite

/// A user of the tests' Django REST Framework server (Tests/VariablySyncTests/HTTPSource/DRF), as its
/// serializer writes it: `profile` is a nested object over the user's own columns, `updated_at` is
/// ISO 8601 with microseconds, `deleted` the soft-delete flag (read by the pull shape, not a property).
struct DRFUser: VariablyCodable, SQLiteStorable, Identifiable, Sendable {
    var id: Int64
    var userName: String
    var email: String
    var age: Int
    var score: Double
    var isActive: Bool
    var tags: [String]
    var nickname: String?
    var updatedAt: Date

    init(from container: DecodingContainer<DRFUser>) throws {
        id = try container.decode(\.id)
        userName = try container.decode(\.userName)
        email = try container.decode(\.email)
        age = try container.decode(\.age)
        score = try container.decode(\.score)
        isActive = try container.decode(\.isActive)
        tags = try container.decode(\.tags, default: [])
        nickname = try container.decode(\.nickname)
        updatedAt = try container.decode(\.updatedAt)
    }

    static let keySets = KeySets<DRFUser>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.userName, "user_name")
            Key(\.email, "email_address")
            Key(\.age, "profile.age")
            Key(\.score, "profile.score")
            Key(\.isActive, "is_active")
            Key(\.tags, "tags")
            Key(\.nickname, "nick_name")
            Key(\.updatedAt, "updated_at").dates(.flexible)
        }
        KeySet(.sqlite, style: .snakeCase)
    }

    static let sqliteTable = SQLiteTable<DRFUser>("users", primaryKey: \.id, [.index(\.userName)])
}
