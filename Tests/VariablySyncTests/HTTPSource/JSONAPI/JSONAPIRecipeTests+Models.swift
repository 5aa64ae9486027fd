import Foundation
import VariablyCodable
import VariablyHTTP
import VariablySQLite
import VariablySync

// MARK: - The JSON:API resources, as the app declares them

extension JSONAPIRecipeTests {
    /// A person of the JSON:API server: a text id, the name under `attributes`.
    struct Person: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Hashable {
        var id: String
        var name: String

        init(id: String, name: String) {
            (self.id, self.name) = (id, name)
        }

        init(from container: DecodingContainer<Person>) throws {
            id = try container.decode(\.id)
            name = try container.decode(\.name)
        }

        static let keySets = KeySets<Person>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id")
                Key(\.name, "attributes.name")
            }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<Person>("people", primaryKey: \.id)
    }

    /// An article, declared as docs/http.md declares it: its author a relationship to `people`, emptied
    /// when the person goes.
    struct Article: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Hashable {
        var id: String
        var title: String
        var body: String
        var authorID: String?

        init(id: String, title: String, body: String, authorID: String?) {
            (self.id, self.title, self.body, self.authorID) = (id, title, body, authorID)
        }

        init(from container: DecodingContainer<Article>) throws {
            id = try container.decode(\.id)
            title = try container.decode(\.title)
            body = try container.decode(\.body)
            authorID = try container.decode(\.authorID)
        }

        static let keySets = KeySets<Article>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id")
                Key(\.title, "attributes.title")
                Key(\.body, "attributes.body")
                Key(\.authorID, "relationships.author.data.id")
            }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<Article>(
            "articles", primaryKey: \.id, [.references(\.authorID, Person.self, onDelete: .setNull)])
    }

    /// A comment on an article, maybe by a person and maybe replying to another comment, with the
    /// client reference the device gives the comments it creates (`attributes.client_id`).
    struct Comment: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Hashable {
        var id: String
        var articleID: String
        var authorID: String?
        var replyTo: String?
        var body: String
        var clientID: UUID?

        init(
            id: String, articleID: String, authorID: String? = nil, replyTo: String? = nil, body: String,
            clientID: UUID? = nil
        ) {
            (self.id, self.articleID, self.authorID, self.replyTo, self.body, self.clientID) = (
                id, articleID, authorID, replyTo, body, clientID
            )
        }

        init(from container: DecodingContainer<Comment>) throws {
            id = try container.decode(\.id)
            articleID = try container.decode(\.articleID)
            authorID = try container.decode(\.authorID)
            replyTo = try container.decode(\.replyTo)
            body = try container.decode(\.body)
            clientID = try container.decode(\.clientID)
        }

        static let keySets = KeySets<Comment>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id")
                Key(\.articleID, "relationships.article.data.id")
                Key(\.authorID, "relationships.author.data.id")
                Key(\.replyTo, "relationships.reply_to.data.id")
                Key(\.body, "attributes.body")
                Key(\.clientID, "attributes.client_id")
            }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<Comment>(
            "comments", primaryKey: \.id,
            [
                .references(\.articleID, Article.self, onDelete: .cascade),
                .references(\.authorID, Person.self, onDelete: .setNull),
                .references(\.replyTo, Comment.self, onDelete: .setNull),
            ])
    }
}
