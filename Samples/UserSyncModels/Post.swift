import Foundation
public import VariablyCodable
public import VariablySQLite

/// A user's post: deleted with its author.
public struct Post: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    public var id: Int64
    public var authorID: Int64
    public var title: String

    public init(id: Int64, authorID: Int64, title: String) {
        (self.id, self.authorID, self.title) = (id, authorID, title)
    }
    public init(from container: DecodingContainer<Post>) throws {
        id = try container.decode(\.id)
        authorID = try container.decode(\.authorID)
        title = try container.decode(\.title)
    }

    public static let keySets = KeySets<Post>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id"); Key(\.authorID, "author_id"); Key(\.title, "title")
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    public static let sqliteTable = SQLiteTable<Post>(
        "posts", primaryKey: \.id, [.references(\.authorID, User.self, onDelete: .cascade), .index(\.authorID)])

    /// Post `index`, by one of `authors`.
    public static func generated(_ index: Int, authors: [Int64]) -> Post {
        Post(id: Int64(index + 1), authorID: authors[index * 10 % authors.count], title: "Post \(index + 1)")
    }
}
