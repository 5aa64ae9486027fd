import Foundation
import VariablyCodable
import VariablySQLite

/// The declared-shape tests' model: a post whose `updated_at` (ISO 8601 text) and `version` the server
/// stamps on every write; a new post has neither yet.
struct VersionedPost: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: Int64
    var title: String
    var updatedAt: String?
    var version: Int?

    init(id: Int64, title: String, updatedAt: String? = nil, version: Int? = nil) {
        self.id = id
        self.title = title
        self.updatedAt = updatedAt
        self.version = version
    }

    init(from container: DecodingContainer<VersionedPost>) throws {
        id = try container.decode(\.id)
        title = try container.decode(\.title)
        updatedAt = try container.decode(\.updatedAt)
        version = try container.decode(\.version)
    }

    static let keySets = KeySets<VersionedPost>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.title, "title")
            Key(\.updatedAt, "updated_at")
            Key(\.version, "version")
        }
        KeySet(.sqlite, style: .snakeCase)
    }

    static let sqliteTable = SQLiteTable<VersionedPost>("shaped_posts", primaryKey: \.id)

    /// Posts `ids`, titled `"<prefix> <id>"`, as the server has never seen them.
    static func drafts(_ ids: ClosedRange<Int64>, prefix: String = "post") -> [VersionedPost] {
        ids.map { VersionedPost(id: $0, title: "\(prefix) \($0)") }
    }
}
