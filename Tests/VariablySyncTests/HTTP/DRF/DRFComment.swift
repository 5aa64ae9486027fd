import Foundation
import VariablyCodable
import VariablySQLite

/// A comment of `graph/comments/`: on a post (deleted with it), maybe a reply to another comment
/// (emptied when that one goes).
struct DRFComment: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: Int64
    var postID: Int64
    var replyTo: Int64?
    var text: String
    /// The client's reference of a comment it created, unique on the server.
    var clientID: UUID?

    init(id: Int64, postID: Int64, replyTo: Int64? = nil, text: String, clientID: UUID? = nil) {
        (self.id, self.postID, self.replyTo, self.text, self.clientID) = (id, postID, replyTo, text, clientID)
    }

    init(from container: DecodingContainer<DRFComment>) throws {
        id = try container.decode(\.id)
        postID = try container.decode(\.postID)
        replyTo = try container.decode(\.replyTo)
        text = try container.decode(\.text)
        clientID = try container.decode(\.clientID)
    }

    static let keySets = KeySets<DRFComment>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id"); Key(\.postID, "post"); Key(\.replyTo, "reply_to"); Key(\.text, "text")
            Key(\.clientID, "client_id")
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    static let sqliteTable = SQLiteTable<DRFComment>(
        "drf_comments", primaryKey: \.id,
        [
            .references(\.postID, DRFPost.self, onDelete: .cascade),
            .references(\.replyTo, DRFComment.self, onDelete: .setNull),
        ])
}
