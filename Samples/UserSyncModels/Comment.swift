import Foundation
public import VariablyCodable
public import VariablySQLite

/// A comment on a post: deleted with the post; its author may leave (then `nil`).
public struct Comment: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    public var id: Int64
    public var postID: Int64
    public var authorID: Int64?
    public var body: String

    public init(id: Int64, postID: Int64, authorID: Int64?, body: String) {
        (self.id, self.postID, self.authorID, self.body) = (id, postID, authorID, body)
    }
    public init(from container: DecodingContainer<Comment>) throws {
        id = try container.decode(\.id)
        postID = try container.decode(\.postID)
        authorID = try container.decode(\.authorID)
        body = try container.decode(\.body)
    }

    public static let keySets = KeySets<Comment>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id"); Key(\.postID, "post_id"); Key(\.authorID, "author_id"); Key(\.body, "body")
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    public static let sqliteTable = SQLiteTable<Comment>(
        "comments", primaryKey: \.id,
        [
            .references(\.postID, Post.self, onDelete: .cascade),
            .references(\.authorID, User.self, onDelete: .setNull),
            .index(\.postID),
        ])

    /// Comment `index`, on post `index / 2 + 1`, by one of `authors`.
    public static func generated(_ index: Int, authors: [Int64]) -> Comment {
        Comment(
            id: Int64(index + 1), postID: Int64(index / 2 + 1), authorID: authors[(index * 7) % authors.count],
            body: "Comment \(index + 1)")
    }
}
