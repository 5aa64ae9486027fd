public import Foundation
public import VariablyCodable
public import VariablySQLite

/// A user's post: deleted with its author.
///
/// The server stamps `updated_at` on every write (a new post has none yet); the stamp is the version
/// a conditional write (`If-Match`) carries.
///
/// ```swift
/// let post = Post(id: 1, authorID: ada.id, title: "Hello", body: "First post")
/// ```
public struct Post: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    public var id: Int64
    public var authorID: Int64
    public var title: String
    public var body: String
    /// When the server last wrote the post; `nil` until it has.
    public var updatedAt: Date?

    /// Creates a post; `updatedAt` is the server's to set.
    public init(id: Int64, authorID: Int64, title: String, body: String = "", updatedAt: Date? = nil) {
        (self.id, self.authorID, self.title, self.body, self.updatedAt) = (id, authorID, title, body, updatedAt)
    }

    public init(from container: DecodingContainer<Post>) throws {
        id = try container.decode(\.id)
        authorID = try container.decode(\.authorID)
        title = try container.decode(\.title)
        body = try container.decode(\.body, default: "")
        updatedAt = try container.decode(\.updatedAt)
    }

    public static let keySets = KeySets<Post>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.authorID, "author_id")
            Key(\.title, "title")
            Key(\.body, "body")
            Key(\.updatedAt, "updated_at").dates(.flexible)
        }
        KeySet(.sqlite, style: .snakeCase)
    }

    public static let sqliteTable = SQLiteTable<Post>(
        "posts", primaryKey: \.id, [.references(\.authorID, User.self, onDelete: .cascade), .index(\.authorID)])

    /// Post `index`, by one of `authors`.
    public static func generated(_ index: Int, authors: [Int64]) -> Post {
        Post(
            id: Int64(index + 1), authorID: authors[index * 10 % authors.count], title: "Post \(index + 1)",
            body: "Notes on topic \(index % 12).")
    }
}
