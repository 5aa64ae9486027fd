import Foundation
import Testing
import VariablyCodable
import VariablySQLite

/// A parent, its children (deleted with it), their replies (a self-reference set to NULL), and labels
/// that keep a parent from being deleted.
private struct Author: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: Int64
    var name: String

    init(id: Int64, name: String) { (self.id, self.name) = (id, name) }
    init(from container: DecodingContainer<Author>) throws {
        id = try container.decode(\.id)
        name = try container.decode(\.name)
    }

    static let keySets = KeySets<Author>(defaultSource: .sqlite) { KeySet(.sqlite) { Key(\.id, "id"); Key(\.name, "name") } }
    static let sqliteTable = SQLiteTable<Author>("reference_authors", primaryKey: \.id)
}

private struct Article: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: Int64
    var authorID: Int64
    var replyTo: Int64?

    init(id: Int64, authorID: Int64, replyTo: Int64? = nil) { (self.id, self.authorID, self.replyTo) = (id, authorID, replyTo) }
    init(from container: DecodingContainer<Article>) throws {
        id = try container.decode(\.id)
        authorID = try container.decode(\.authorID)
        replyTo = try container.decode(\.replyTo)
    }

    static let keySets = KeySets<Article>(defaultSource: .sqlite) {
        KeySet(.sqlite) { Key(\.id, "id"); Key(\.authorID, "author_id"); Key(\.replyTo, "reply_to") }
    }
    static let sqliteTable = SQLiteTable<Article>(
        "reference_articles", primaryKey: \.id,
        [.references(\.authorID, Author.self, onDelete: .cascade), .references(\.replyTo, Article.self, onDelete: .setNull)])
}

private struct Label: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: Int64
    var authorID: Int64

    init(id: Int64, authorID: Int64) { (self.id, self.authorID) = (id, authorID) }
    init(from container: DecodingContainer<Label>) throws {
        id = try container.decode(\.id)
        authorID = try container.decode(\.authorID)
    }

    static let keySets = KeySets<Label>(defaultSource: .sqlite) { KeySet(.sqlite) { Key(\.id, "id"); Key(\.authorID, "author_id") } }
    static let sqliteTable = SQLiteTable<Label>(
        "reference_labels", primaryKey: \.id, [.references(\.authorID, Author.self)])
}

/// The same table as `Article`, declared before it had references.
private struct OldArticle: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: Int64
    var authorID: Int64
    var replyTo: Int64?

    init(from container: DecodingContainer<OldArticle>) throws {
        id = try container.decode(\.id)
        authorID = try container.decode(\.authorID)
        replyTo = try container.decode(\.replyTo)
    }

    static let keySets = KeySets<OldArticle>(defaultSource: .sqlite) {
        KeySet(.sqlite) { Key(\.id, "id"); Key(\.authorID, "author_id"); Key(\.replyTo, "reply_to") }
    }
    static let sqliteTable = SQLiteTable<OldArticle>("reference_articles", primaryKey: \.id)
}

@Suite struct ReferenceTests {
    private func database() throws -> SQLiteDatabase {
        let database = try SQLiteDatabase.inMemory()
        try database.write { db in
            try db.migrate(Author.self)
            try db.migrate(Article.self)
            try db.migrate(Label.self)
        }
        return database
    }

    @Test func theColumnIsADeferredForeignKeyThatFollowsItsParentsID() throws {
        let database = try database()
        let sql = try database.read { db in
            try db.fetchValue(sql: "SELECT sql FROM sqlite_master WHERE name = 'reference_articles'")
        }
        #expect(
            sql == .text(
                #"CREATE TABLE "reference_articles" ("id" INTEGER PRIMARY KEY NOT NULL, "author_id" INTEGER NOT NULL "#
                    + #"REFERENCES "reference_authors" ("id") ON UPDATE CASCADE ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, "#
                    + #""reply_to" INTEGER REFERENCES "reference_articles" ("id") ON UPDATE CASCADE ON DELETE SET NULL "#
                    + #"DEFERRABLE INITIALLY DEFERRED)"#))
    }

    /// Children before their parent inside one transaction: checked when it commits.
    @Test func childrenMayComeBeforeTheirParentInOneTransaction() throws {
        let database = try database()
        try database.write { db in
            try db.insert(Article(id: 10, authorID: 1))
            try db.insert(Article(id: 11, authorID: 1, replyTo: 10))
            try db.insert(Author(id: 1, name: "ada"))
        }
        #expect(try database.read { try $0.count(Article.self) } == 2)
    }

    @Test func anOrphanFailsTheTransactionAndLeavesNothing() throws {
        let database = try database()
        #expect(throws: SQLiteError.self) {
            try database.write { db in
                try db.insert(Author(id: 1, name: "ada"))
                try db.insert(Article(id: 10, authorID: 2))
            }
        }
        #expect(try database.read { try $0.count(Author.self) } == 0)
    }

    @Test func deletingAParentCascadesSetsNullOrIsRefused() throws {
        let database = try database()
        try database.write { db in
            try db.insert(Author(id: 1, name: "ada"))
            try db.insert(Author(id: 2, name: "grace"))
            try db.insert(Article(id: 10, authorID: 1))
            try db.insert(Article(id: 20, authorID: 2, replyTo: 10))
            try db.insert(Label(id: 5, authorID: 2))
        }
        try database.write { db in _ = try db.delete(Author.self, id: 1) }
        #expect(try database.read { try $0.fetch(Article.self) } == [Article(id: 20, authorID: 2, replyTo: nil)])
        // Restricted: refused when the transaction commits, unless the label goes first.
        #expect(throws: SQLiteError.self) { try database.write { db in _ = try db.delete(Author.self, id: 2) } }
        try database.write { db in
            _ = try db.delete(Author.self, id: 2)
            _ = try db.delete(Label.self, id: 5)
        }
        #expect(try database.read { try $0.count(Article.self) } == 0)
    }

    /// A provisional id replaced by the server's: the children follow in the same statement.
    @Test func aParentsNewIDReachesItsChildren() throws {
        let database = try database()
        try database.write { db in
            try db.insert(Author(id: -1, name: "draft"))
            try db.insert(Article(id: -5, authorID: -1))
            try db.insert(Article(id: -6, authorID: -1, replyTo: -5))
        }
        try database.write { db in
            try db.execute(sql: #"UPDATE "reference_articles" SET "id" = 50 WHERE "id" = -5"#)
            try db.execute(sql: #"UPDATE "reference_authors" SET "id" = 7 WHERE "id" = -1"#)
        }
        let articles = try database.read { try $0.fetch(Article.self, sortedBy: [SortDescriptor(\.id)]) }
        #expect(articles == [Article(id: -6, authorID: 7, replyTo: 50), Article(id: 50, authorID: 7)])
    }

    @Test func aTableMadeBeforeItsReferencesNeedsAnExplicitMigration() throws {
        let database = try SQLiteDatabase.inMemory()
        try database.write { db in
            try db.migrate(Author.self)
            try db.migrate(OldArticle.self)
        }
        do {
            try database.write { db in try db.migrate(Article.self) }
            Issue.record("the missing references should be reported")
        } catch let error as SchemaMismatchError {
            #expect(error.problems.map(\.description).allSatisfy { $0.contains("must reference") })
            #expect(error.problems.count == 2)
        }
    }
}
