import Foundation
import VariablyCodable
import VariablySQLite

/// A comment of `graph/comments/`: on an article (deleted with it), maybe a reply to another comment
/// (emptied when that one goes).
struct DRFComment: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: Int64
    var articleID: Int64
    var replyTo: Int64?
    var text: String
    /// The client's reference of a comment it created, unique on the server.
    var clientID: UUID?

    init(id: Int64, articleID: Int64, replyTo: Int64? = nil, text: String, clientID: UUID? = nil) {
        (self.id, self.articleID, self.replyTo, self.text, self.clientID) = (id, articleID, replyTo, text, clientID)
    }

    init(from container: DecodingContainer<DRFComment>) throws {
        id = try container.decode(\.id)
        articleID = try container.decode(\.articleID)
        replyTo = try container.decode(\.replyTo)
        text = try container.decode(\.text)
        clientID = try container.decode(\.clientID)
    }

    static let keySets = KeySets<DRFComment>(defaultSource: .remote) {
        KeySet(.remote) { Key(\.id, "id"); Key(\.articleID, "article"); Key(\.replyTo, "reply_to"); Key(\.text, "text")
            Key(\.clientID, "client_id")
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    static let sqliteTable = SQLiteTable<DRFComment>(
        "drf_comments", primaryKey: \.id,
        [.references(\.articleID, DRFArticle.self, onDelete: .cascade), .references(\.replyTo, DRFComment.self, onDelete: .setNull)])
}
