public import Foundation
public import VariablyCodable
public import VariablySQLite

/// A comment on a post: deleted with the post; its author may leave and the comment it replies to may
/// go (then either is `nil`).
///
/// A comment created on a device carries a client reference, `clientID`, which the server keeps unique:
/// a device that lost the answer to its create finds the server's copy by it instead of creating a
/// second one.
///
/// ```swift
/// let reply = Comment(id: 2, postID: post.id, authorID: ada.id, replyTo: 1, body: "Agreed", clientID: UUID())
/// ```
public struct Comment: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    public var id: Int64
    public var postID: Int64
    public var authorID: Int64?
    /// The comment this one replies to.
    public var replyTo: Int64?
    public var body: String
    /// The device's reference of a comment it created, unique on the server.
    public var clientID: UUID?

    /// Creates a comment.
    public init(
        id: Int64, postID: Int64, authorID: Int64? = nil, replyTo: Int64? = nil, body: String, clientID: UUID? = nil
    ) {
        (self.id, self.postID, self.authorID, self.replyTo, self.body, self.clientID) = (
            id, postID, authorID, replyTo, body, clientID
        )
    }

    public init(from container: DecodingContainer<Comment>) throws {
        id = try container.decode(\.id)
        postID = try container.decode(\.postID)
        authorID = try container.decode(\.authorID)
        replyTo = try container.decode(\.replyTo)
        body = try container.decode(\.body)
        clientID = try container.decode(\.clientID)
    }

    public static let keySets = KeySets<Comment>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.postID, "post_id")
            Key(\.authorID, "author_id")
            Key(\.replyTo, "reply_to")
            Key(\.body, "body")
            Key(\.clientID, "client_id")
        }
        KeySet(.sqlite, style: .snakeCase)
    }

    public static let sqliteTable = SQLiteTable<Comment>(
        "comments", primaryKey: \.id,
        [
            .references(\.postID, Post.self, onDelete: .cascade),
            .references(\.authorID, User.self, onDelete: .setNull),
            .references(\.replyTo, Comment.self, onDelete: .setNull),
            .index(\.postID),
        ])

    /// Comment `index`, on post `index / 2 + 1`, by one of `authors`; every sixth replies to the one
    /// before it, on the same post.
    public static func generated(_ index: Int, authors: [Int64]) -> Comment {
        Comment(
            id: Int64(index + 1), postID: Int64(index / 2 + 1), authorID: authors[(index * 7) % authors.count],
            replyTo: index % 6 == 5 ? Int64(index) : nil, body: "Comment \(index + 1)")
    }
}
