import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite

extension ReferenceTests {
    /// A parent (a user), its children (comments, deleted with it), their replies (a self-reference set to NULL),
    /// and posts that keep their user from being deleted.
    struct User: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
        var id: Int64
        var name: String

        init(id: Int64, name: String) { (self.id, self.name) = (id, name) }
        init(from container: DecodingContainer<User>) throws {
            id = try container.decode(\.id)
            name = try container.decode(\.name)
        }

        static let keySets = KeySets<User>(defaultSource: .sqlite) {
            KeySet(.sqlite) {
                Key(\.id, "id"); Key(\.name, "name")
            }
        }
        static let sqliteTable = SQLiteTable<User>("reference_users", primaryKey: \.id)
    }

    struct Comment: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
        var id: Int64
        var authorID: Int64
        var replyTo: Int64?

        init(id: Int64, authorID: Int64, replyTo: Int64? = nil) {
            (self.id, self.authorID, self.replyTo) = (id, authorID, replyTo)
        }
        init(from container: DecodingContainer<Comment>) throws {
            id = try container.decode(\.id)
            authorID = try container.decode(\.authorID)
            replyTo = try container.decode(\.replyTo)
        }

        static let keySets = KeySets<Comment>(defaultSource: .sqlite) {
            KeySet(.sqlite) {
                Key(\.id, "id"); Key(\.authorID, "author_id"); Key(\.replyTo, "reply_to")
            }
        }
        static let sqliteTable = SQLiteTable<Comment>(
            "reference_comments", primaryKey: \.id,
            [
                .references(\.authorID, User.self, onDelete: .cascade),
                .references(\.replyTo, Comment.self, onDelete: .setNull),
            ])
    }

    struct Post: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
        var id: Int64
        var authorID: Int64

        init(id: Int64, authorID: Int64) { (self.id, self.authorID) = (id, authorID) }
        init(from container: DecodingContainer<Post>) throws {
            id = try container.decode(\.id)
            authorID = try container.decode(\.authorID)
        }

        static let keySets = KeySets<Post>(defaultSource: .sqlite) {
            KeySet(.sqlite) {
                Key(\.id, "id"); Key(\.authorID, "author_id")
            }
        }
        static let sqliteTable = SQLiteTable<Post>(
            "reference_posts", primaryKey: \.id, [.references(\.authorID, User.self)])
    }
}

/// The same table as `Comment`, declared before it had references.
private struct OldComment: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: Int64
    var authorID: Int64
    var replyTo: Int64?

    init(from container: DecodingContainer<OldComment>) throws {
        id = try container.decode(\.id)
        authorID = try container.decode(\.authorID)
        replyTo = try container.decode(\.replyTo)
    }

    static let keySets = KeySets<OldComment>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.authorID, "author_id"); Key(\.replyTo, "reply_to")
        }
    }
    static let sqliteTable = SQLiteTable<OldComment>("reference_comments", primaryKey: \.id)
}

@Suite struct ReferenceTests {
    private func database() throws -> SQLiteDatabase {
        let database = try SQLiteDatabase.inMemory()
        try database.write { db in
            try db.migrate(User.self)
            try db.migrate(Comment.self)
            try db.migrate(Post.self)
        }
        return database
    }

    @Test func theColumnIsADeferredForeignKeyThatFollowsItsParentsID() throws {
        let database = try database()
        let sql = try database.read { db in
            try db.fetchValue(sql: "SELECT sql FROM sqlite_master WHERE name = 'reference_comments'")
        }
        #expect(
            sql
                == .text(
                    #"CREATE TABLE "reference_comments" ("id" INTEGER PRIMARY KEY NOT NULL, "author_id" INTEGER NOT NULL "#
                        + #"REFERENCES "reference_users" ("id") ON UPDATE CASCADE ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, "#
                        + #""reply_to" INTEGER REFERENCES "reference_comments" ("id") ON UPDATE CASCADE ON DELETE SET NULL "#
                        + #"DEFERRABLE INITIALLY DEFERRED)"#))
    }

    /// Migrating a child alone creates its parent's missing table, without which SQLite refuses every
    /// write to the child; an existing parent table is left to its own migration.
    @Test func migratingAChildCreatesItsParentsMissingTable() throws {
        let database = try SQLiteDatabase.inMemory()
        let statements = try database.write { try $0.migrate(Comment.self) }
        #expect(statements.filter { $0.hasPrefix("CREATE TABLE") }.count == 2)
        #expect(statements.contains { $0.hasPrefix(#"CREATE TABLE "reference_users""#) })
        try database.write { db in
            try db.upsert(User(id: 1, name: "ada"))
            try db.upsert(Comment(id: 1, authorID: 1))
        }
        #expect(try database.read { try $0.fetchValue(sql: "SELECT count(*) FROM reference_comments") } == .integer(1))
        #expect(try database.write { try $0.migrate(Comment.self) }.isEmpty)
        #expect(try database.write { try $0.migrate(Post.self) }.filter { $0.hasPrefix("CREATE TABLE") }.count == 1)
    }

    /// SQLite does not index a foreign key's child column: a declared reference gets an index, also
    /// on a table created before references were indexed, and a second migrate runs nothing.
    @Test func aDeclaredReferenceIsIndexed() throws {
        let database = try SQLiteDatabase.inMemory()
        // Tables as a version that did not index references created them.
        try database.write { db in
            try db.execute(sql: Database.createTableSQL(for: User.self))
            try db.execute(sql: Database.createTableSQL(for: Comment.self))
        }
        let added = try database.write { try $0.migrate(Comment.self) }
        #expect(added.count == 2 && added.allSatisfy { $0.hasPrefix("CREATE INDEX") }, "\(added)")
        #expect(try database.write { try $0.migrate(Comment.self) }.isEmpty)
        let plan = try database.read {
            try $0.fetch(sql: "EXPLAIN QUERY PLAN SELECT * FROM reference_comments WHERE author_id = 1").map {
                "\($0[3])"
            }
        }
        #expect(plan.contains { $0.contains("USING INDEX") }, "\(plan)")
    }

    /// Children before their parent inside one transaction: checked when it commits.
    @Test func childrenMayComeBeforeTheirParentInOneTransaction() throws {
        let database = try database()
        try database.write { db in
            try db.insert(Comment(id: 10, authorID: 1))
            try db.insert(Comment(id: 11, authorID: 1, replyTo: 10))
            try db.insert(User(id: 1, name: "ada"))
        }
        #expect(try database.read { try $0.count(Comment.self) } == 2)
    }

    @Test func anOrphanFailsTheTransactionAndLeavesNothing() throws {
        let database = try database()
        #expect(throws: SQLiteError.self) {
            try database.write { db in
                try db.insert(User(id: 1, name: "ada"))
                try db.insert(Comment(id: 10, authorID: 2))
            }
        }
        #expect(try database.read { try $0.count(User.self) } == 0)
    }

    @Test func deletingAParentCascadesSetsNullOrIsRefused() throws {
        let database = try database()
        try database.write { db in
            try db.insert(User(id: 1, name: "ada"))
            try db.insert(User(id: 2, name: "grace"))
            try db.insert(Comment(id: 10, authorID: 1))
            try db.insert(Comment(id: 20, authorID: 2, replyTo: 10))
            try db.insert(Post(id: 5, authorID: 2))
        }
        try database.write { db in _ = try db.delete(User.self, id: 1) }
        #expect(try database.read { try $0.fetch(Comment.self) } == [Comment(id: 20, authorID: 2, replyTo: nil)])
        // Restricted: refused when the transaction commits, unless the post goes first.
        #expect(throws: SQLiteError.self) { try database.write { db in _ = try db.delete(User.self, id: 2) } }
        try database.write { db in
            _ = try db.delete(User.self, id: 2)
            _ = try db.delete(Post.self, id: 5)
        }
        #expect(try database.read { try $0.count(Comment.self) } == 0)
    }

    /// A provisional id replaced by the server's: the children follow in the same statement.
    @Test func aParentsNewIDReachesItsChildren() throws {
        let database = try database()
        try database.write { db in
            try db.insert(User(id: -1, name: "draft"))
            try db.insert(Comment(id: -5, authorID: -1))
            try db.insert(Comment(id: -6, authorID: -1, replyTo: -5))
        }
        try database.write { db in
            try db.execute(sql: #"UPDATE "reference_comments" SET "id" = 50 WHERE "id" = -5"#)
            try db.execute(sql: #"UPDATE "reference_users" SET "id" = 7 WHERE "id" = -1"#)
        }
        let comments = try database.read { try $0.fetch(Comment.self, sortedBy: [SortDescriptor(\.id)]) }
        #expect(comments == [Comment(id: -6, authorID: 7, replyTo: 50), Comment(id: 50, authorID: 7)])
    }

    @Test func aTableMadeBeforeItsReferencesNeedsAnExplicitMigration() throws {
        let database = try SQLiteDatabase.inMemory()
        try database.write { db in
            try db.migrate(User.self)
            try db.migrate(OldComment.self)
        }
        do {
            try database.write { db in try db.migrate(Comment.self) }
            Issue.record("the missing references should be reported")
        } catch let error as SchemaMismatchError {
            #expect(error.problems.map(\.description).allSatisfy { $0.contains("must reference") })
            #expect(error.problems.count == 2)
        }
    }
}
