import Foundation
import GRDB

/// GRDB's Codable record: what most apps write.
struct GRDBCodableUser: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "users"
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

    static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.timeIntervalSince1970
    static let databaseDateDecodingStrategy = DatabaseDateDecodingStrategy.timeIntervalSince1970

    init(_ user: BenchUser) {
        (id, userName, email, age, isActive, score, createdAt, tags) =
            (user.id, user.userName, user.email, user.age, user.isActive, user.score, user.createdAt, user.tags)
    }
}

/// GRDB's hand-written record: rows read by index, containers filled by hand.
struct GRDBManualUser: FetchableRecord, PersistableRecord {
    static let databaseTableName = "users"
    var user: BenchUser

    init(_ user: BenchUser) { self.user = user }

    init(row: Row) throws {
        user = BenchUser(
            id: row[0], userName: row[1], email: row[2], age: row[3], isActive: row[4], score: row[5],
            createdAt: Date(timeIntervalSince1970: row[6]), tags: RawDatabase.parseArray(row[7]))
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = user.id
        container["user_name"] = user.userName
        container["email"] = user.email
        container["age"] = user.age
        container["is_active"] = user.isActive
        container["score"] = user.score
        container["created_at"] = user.createdAt.timeIntervalSince1970
        container["tags"] = RawDatabase.jsonArray(user.tags)
    }
}
