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

    init(id: Int64, articleID: Int64, replyTo: Int64? = nil, text: String) {
        (self.id, self.articleID, self.replyTo, self.text) = (id, articleID, replyTo, text)
    }

    init(from container: DecodingContainer<DRFComment>) throws {
        id = try container.decode(\.id)
        articleID = try container.decode(\.articleID)
        replyTo = try container.decode(\.replyTo)
        text = try container.decode(\.text)
    }

    static let keySets = KeySets<DRFComment>(defaultSource: .remote) {
        KeySet(.remote) { Key(\.id, "id"); Key(\.articleID, "article"); Key(\.replyTo, "reply_to"); Key(\.text, "text") }
        KeySet(.sqlite, style: .snakeCase)
    }
    static let sqliteTable = SQLiteTable<DRFComment>(
        "drf_comments", primaryKey: \.id,
        [.references(\.articleID, DRFArticle.self, onDelete: .cascade), .references(\.replyTo, DRFComment.self, onDelete: .setNull)])
}
