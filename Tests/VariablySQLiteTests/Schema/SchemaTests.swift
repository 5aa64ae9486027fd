import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablyTestSupport

@Suite struct SchemaTests {
    @Test func createTableIsDerivedFromTheKeySet() throws {
        #expect(
            try Database.createTableSQL(for: User.self)
                == """
                CREATE TABLE "users" ("id" INTEGER PRIMARY KEY NOT NULL, "user_name" TEXT NOT NULL, \
                "email" TEXT NOT NULL, "age" INTEGER NOT NULL, "is_active" INTEGER NOT NULL, "score" REAL NOT NULL, \
                "updated_at" REAL NOT NULL, "tags" TEXT NOT NULL, "nickname" TEXT, "favorite_post_id" INTEGER \
                REFERENCES "posts" ("id") ON UPDATE CASCADE ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED)
                """)
    }

    @Test func columnTypesFollowTheMappingTable() throws {
        let sql = try Database.createTableSQL(for: AllTypes.self)
        for column in [
            #""int8" INTEGER NOT NULL"#, #""uint64" INTEGER NOT NULL"#, #""bool" INTEGER NOT NULL"#,
            #""float" REAL NOT NULL"#, #""url" TEXT NOT NULL"#, #""uuid" TEXT NOT NULL"#, #""decimal" TEXT NOT NULL"#,
            #""data" BLOB NOT NULL"#, #""date" REAL NOT NULL"#, #""milliseconds_date" INTEGER NOT NULL"#,
            #""iso_date" TEXT NOT NULL"#, #""strings" TEXT NOT NULL"#, #""mood" TEXT NOT NULL"#,
            #""level" INTEGER NOT NULL"#, #""point" TEXT NOT NULL"#, #""counts" TEXT NOT NULL"#,
            #""optional_int" INTEGER,"#, #""optional_date" REAL,"#, #""optional_point" TEXT)"#,
        ] {
            #expect(sql.contains(column), "\(column)")
        }
    }

    @Test func migrateCreatesTheTableAndItsIndexes() throws {
        let db = try SQLiteDatabase.inMemory()
        let statements = try db.write { try $0.migrate(User.self) }
        #expect(
            try statements == [
                Database.createTableSQL(for: User.self),
                #"CREATE INDEX IF NOT EXISTS "users_on_user_name_4860fb360fe8a643" ON "users" ("user_name")"#,
                #"CREATE INDEX IF NOT EXISTS "users_on_age_is_active_15610c697c6f19e0" ON "users" ("age", "is_active")"#,
                #"CREATE UNIQUE INDEX IF NOT EXISTS "users_unique_email_97056a7d16c2e30a" ON "users" ("email")"#,
                // A declared reference is indexed: SQLite does not index a foreign key's child column.
                #"CREATE INDEX IF NOT EXISTS "users_on_favorite_post_id_b654d327ba3d88ad" ON "users" ("favorite_post_id")"#,
                // The table of the posts a user's favourite references, which SQLite needs to write users.
                Database.createTableSQL(for: UserSyncModels.Post.self),
                #"CREATE INDEX IF NOT EXISTS "posts_on_author_id_5d86eb597c20a7a0" ON "posts" ("author_id")"#,
            ])
        let indexes = try db.read {
            try $0.fetch(
                sql: "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'users' ORDER BY name"
            )
            .map { $0[0] }
        }
        #expect(
            indexes == [
                "users_on_age_is_active_15610c697c6f19e0", "users_on_favorite_post_id_b654d327ba3d88ad",
                "users_on_user_name_4860fb360fe8a643",
                "users_unique_email_97056a7d16c2e30a",
            ])
        // Up to date: a second migration creates nothing new.
        #expect(
            try db.write { try $0.migrate(User.self) }.allSatisfy {
                $0.hasPrefix("CREATE INDEX IF NOT EXISTS") || $0.hasPrefix("CREATE UNIQUE INDEX IF NOT EXISTS")
            })
    }

    @Test func namesThatNeedQuotingWork() throws {
        #expect(
            try Database.createTableSQL(for: Order.self)
                == #"CREATE TABLE "order" ("id" INTEGER PRIMARY KEY NOT NULL, "order" INTEGER NOT NULL, "it""s" TEXT NOT NULL)"#
        )
        let db = try SQLiteDatabase.inMemory()
        let orders = [Order(id: 1, order: 2, quoted: "it's \"quoted\""), Order(id: 2, order: 1, quoted: "plain")]
        try db.write { db in
            try db.migrate(Order.self)
            try db.insert(orders)
            try db.upsert(Order(id: 2, order: 3, quoted: "changed"))
        }
        let fetched = try db.read {
            try $0.fetch(
                Order.self, where: #Predicate { $0.order > 1 }, sortedBy: [SortDescriptor(\.order, order: .reverse)])
        }
        #expect(fetched == [Order(id: 2, order: 3, quoted: "changed"), orders[0]])
    }

    @Test func additiveMigrationOfAnExistingFile() throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        do {
            // Version 1 of the app had no nickname and no tags columns.
            let db = try SQLiteDatabase(path: path)
            try db.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE "users" ("id" INTEGER PRIMARY KEY NOT NULL, "user_name" TEXT NOT NULL, \
                        "email" TEXT NOT NULL, "age" INTEGER NOT NULL, "is_active" INTEGER NOT NULL, \
                        "score" REAL NOT NULL, "updated_at" REAL NOT NULL)
                        """)
                try db.execute(
                    sql: "INSERT INTO users VALUES (1, 'old', 'old@example.com', 40, 1, 2.5, 1700000000)")
            }
        }
        let db = try SQLiteDatabase(path: path)
        // "tags" is a non-optional [String]: automatic migration needs a default for it.
        #expect {
            try db.write { try $0.migrate(User.self) }
        } throws: { error in
            (error as? SchemaMismatchError)?.problems == [.newColumnNeedsValue(column: "tags")]
        }
        #expect(try db.read { try $0.fetch(sql: "SELECT name FROM pragma_table_info('users')").count } == 7)
        try db.write { try $0.execute(sql: #"ALTER TABLE "users" ADD COLUMN "tags" TEXT NOT NULL DEFAULT '[]'"#) }
        let statements = try db.write { try $0.migrate(User.self) }
        #expect(statements.first == #"ALTER TABLE "users" ADD COLUMN "nickname" TEXT"#)
        let users = try db.read { try $0.fetchAll(User.self) }
        #expect(users.map(\.userName) == ["old"])
        #expect(users.first?.nickname == nil)
        #expect(users.first?.tags == [])
    }

    @Test func namesMatchIgnoringASCIICaseOnlyAsSQLiteDoes() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "USERS" ("ID" INTEGER PRIMARY KEY NOT NULL, "User_Name" TEXT NOT NULL, \
                    "EMAIL" TEXT NOT NULL, "age" INTEGER NOT NULL, "is_active" INTEGER NOT NULL, "score" REAL NOT NULL, \
                    "updated_at" REAL NOT NULL, "tags" TEXT NOT NULL, "nickname" TEXT)
                    """)
            try db.execute(sql: #"INSERT INTO "USERS" VALUES (1, 'a', 'a@example.com', 30, 1, 1.5, 0, '[]', NULL)"#)
        }
        let statements = try db.write { try $0.migrate(User.self) }
        // Only the column the hand-written table lacks is added; none is added twice under another case.
        #expect(
            statements.filter { $0.hasPrefix("ALTER TABLE") }.map { $0.contains(#"ADD COLUMN "favorite_post_id""#) }
                == [true], "\(statements)")
        #expect(!statements.contains { $0.hasPrefix(#"CREATE TABLE "users""#) })
        #expect(try db.read { try $0.fetchAll(User.self).map(\.userName) } == ["a"])
        // "É" is not "é" to SQLite: only ASCII letters fold.
        let rows = try db.read { try $0.fetch(sql: #"SELECT 1 AS "é", 2 AS "É""#) }
        #expect(rows[0]["É"] == 2)
        #expect(rows[0]["é"] == 1)
        #expect(rows[0]["e\u{301}"] == nil)
    }

    @Test func multiColumnIndexesAndNamedUniqueConstraints() throws {
        let db = try SQLiteDatabase.inMemory()
        let statements = try db.write { try $0.migrate(Event.self) }
        #expect(
            Array(statements.dropFirst()) == [
                #"CREATE INDEX IF NOT EXISTS "events_on_kind_at_dc1993673a8cde4a" ON "events" ("kind", "at")"#,
                #"CREATE UNIQUE INDEX IF NOT EXISTS "one event per kind and time" ON "events" ("kind", "at")"#,
            ])
        let at = Date(timeIntervalSince1970: 0)
        try db.write { try $0.insert(Event(id: 1, kind: "a", at: at)) }
        #expect {
            try db.write { try $0.insert(Event(id: 2, kind: "a", at: at)) }
        } throws: { error in
            (error as? SQLiteError)?.code == .constraintUnique
        }
        try db.write { try $0.insert(Event(id: 3, kind: "b", at: at)) }
        #expect(try db.read { try $0.fetchAll(Event.self).map(\.id) } == [1, 3])
    }

    @Test func columnsWithDefaultsAreAddedAsNotNull() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.execute(sql: #"CREATE TABLE "posts" ("id" INTEGER PRIMARY KEY NOT NULL, "title" TEXT NOT NULL)"#)
            try db.execute(sql: #"INSERT INTO "posts" VALUES (1, 'a')"#)
        }
        let statements = try db.write { try $0.migrate(Post.self) }
        #expect(statements == [#"ALTER TABLE "posts" ADD COLUMN "priority" INTEGER NOT NULL DEFAULT 3"#])
        #expect(try db.read { try $0.fetchAll(Post.self) } == [Post(id: 1, title: "a", priority: 3)])
    }

    @Test func changesThatLoseDataNeedAnExplicitStep() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "users" ("id" INTEGER PRIMARY KEY NOT NULL, "user_name" INTEGER NOT NULL, \
                    "email" TEXT, "age" INTEGER NOT NULL, "is_active" INTEGER NOT NULL, "score" REAL NOT NULL, \
                    "updated_at" REAL NOT NULL, "tags" TEXT NOT NULL, "nickname" TEXT, "legacy" TEXT NOT NULL)
                    """)
        }
        do {
            try db.write { try $0.migrate(User.self) }
            Issue.record("No error")
        } catch let error as SchemaMismatchError {
            #expect(
                error.problems == [
                    .typeChanged(column: "user_name", from: "INTEGER", to: "TEXT"),
                    .nullabilityChanged(column: "email", isOptional: false),
                    .removedRequiredColumn(column: "legacy"),
                ])
            #expect(error.description.hasPrefix(#"Table "users" needs an explicit migration: "#))
        }
        // Nothing was changed, not even the indexes.
        #expect(try db.read { try $0.fetchValue(sql: "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index'") } == 0)
    }
}

extension SchemaTests {
    struct Post: VariablyCodable, EmptyInitializable, Identifiable, Equatable, Sendable, SQLiteStorable {
        var id: Int64 = 0
        var title = ""
        var priority = 0
        static let keySets = KeySets<Post>(defaultSource: .sqlite) {
            KeySet(.sqlite, style: .snakeCase) {
                Key(\.id); Key(\.title); Key(\.priority)
            }
        }
        static let sqliteTable = SQLiteTable<Post>("posts", primaryKey: \.id, [.defaultValue(\.priority, 3)])
    }
}

private struct Event: VariablyCodable, EmptyInitializable, Identifiable, Equatable, Sendable, SQLiteStorable {
    var id: Int64 = 0
    var kind = ""
    var at = Date(timeIntervalSince1970: 0)
    static let keySets = KeySets<Event>(defaultSource: .sqlite) {
        KeySet(.sqlite, style: .snakeCase) {
            Key(\.id); Key(\.kind); Key(\.at)
        }
    }
    static let sqliteTable = SQLiteTable<Event>(
        "events", primaryKey: \.id,
        [
            .index(\.kind, \.at), .unique(\.kind, \.at, name: "one event per kind and time"),
            .dateEncoding(\.at, .iso8601),
        ])
}

// MARK: - Index names, non-finite reals

private struct Pair: SQLiteStorable, EmptyInitializable, Equatable {
    var id: Int64 = 0
    var a = 0
    var b = 0
    var aB = 0

    static let keySets = KeySets<Pair>(defaultSource: .sqlite) {
        KeySet(.sqlite, style: .snakeCase) {
            Key(\.id); Key(\.a); Key(\.b); Key(\.aB)
        }
    }
    static let sqliteTable = SQLiteTable<Pair>("pairs", primaryKey: \.id, [.unique(\.a, \.b), .unique(\.aB)])
}

private struct Measurement: SQLiteStorable, EmptyInitializable, Equatable {
    var id: Int64 = 0
    var value = 0.0
    var reading: Double?
    var ceiling = 0.0

    static let keySets = KeySets<Measurement>(defaultSource: .sqlite) {
        KeySet(.sqlite, style: .snakeCase) {
            Key(\.id); Key(\.value); Key(\.reading); Key(\.ceiling)
        }
    }
    static let sqliteTable = SQLiteTable<Measurement>(
        "measurements", primaryKey: \.id, [.defaultValue(\.ceiling, .real(.infinity))])
}

@Suite struct SchemaEdgeCaseTests {
    @Test func uniqueConstraintsWhoseNamesReadAlikeAreBothEnforced() throws {
        let db = try SQLiteDatabase.inMemory()
        let statements = try db.write { try $0.migrate(Pair.self) }
        #expect(statements.count == 3)
        try db.write { try $0.insert(Pair(id: 1, a: 1, b: 1, aB: 1)) }
        // Same (a, b): refused by the first constraint.
        #expect(throws: SQLiteError.self) { try db.write { try $0.insert(Pair(id: 2, a: 1, b: 1, aB: 2)) } }
        // Same a_b: refused by the second.
        #expect(throws: SQLiteError.self) { try db.write { try $0.insert(Pair(id: 3, a: 2, b: 2, aB: 1)) } }
        #expect(try db.read { try $0.count(Pair.self) } == 1)
    }

    @Test func migrateReportsADeclaredIndexThatAnotherIndexOfItsNameShadows() throws {
        let db = try SQLiteDatabase.inMemory()
        // The name `.unique(\.a, \.b)` gets, taken by an index on (a) only.
        let name = "pairs_unique_a_b_a3342922ef331f1c"
        try db.write { db in
            try db.execute(
                sql:
                    "CREATE TABLE pairs (id INTEGER PRIMARY KEY NOT NULL, a INTEGER NOT NULL, b INTEGER NOT NULL, a_b INTEGER NOT NULL)"
            )
            try db.execute(sql: "CREATE INDEX \"\(name)\" ON pairs (a)")
        }
        #expect {
            try db.write { try $0.migrate(Pair.self) }
        } throws: { error in
            guard let mismatch = error as? SchemaMismatchError else { return false }
            return mismatch.problems == [.indexDiffers(name: name, columns: ["a", "b"], isUnique: true, found: ["a"])]
        }
    }

    @Test func infinitiesRoundTripAndNaNIsATypedError() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { try $0.migrate(Measurement.self) }
        let values = [
            Measurement(id: 1, value: .infinity, reading: -.infinity, ceiling: 1),
            Measurement(id: 2, value: -.infinity, reading: nil, ceiling: .infinity),
        ]
        try db.write { try $0.insert(values) }
        #expect(try db.read { try $0.fetchAll(Measurement.self) } == values)
        // The declared default is infinity.
        try db.write { try $0.execute(sql: "INSERT INTO measurements (id, value) VALUES (3, 0)") }
        #expect(try db.read { try $0.fetch(Measurement.self, id: 3)?.ceiling } == .infinity)
        for nan in [
            Measurement(id: 4, value: .nan, reading: nil, ceiling: 0),
            Measurement(id: 5, value: 0, reading: .nan, ceiling: 0),
        ] {
            #expect(throws: RecordEncodingError.self) { try db.write { try $0.insert(nan) } }
        }
        #expect(try db.read { try $0.count(Measurement.self) } == 3)
    }

    /// The same storage makes a written `-0.0` read back as `0.0`, which compares equal: the documented
    /// default for values.
    @Test func aWrittenNegativeZeroReadsBackAsZero() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { try $0.migrate(Measurement.self) }
        try db.write { try $0.insert(Measurement(id: 1, value: -0.0, reading: -0.0, ceiling: -0.0)) }
        let read = try #require(try db.read { try $0.fetch(Measurement.self, id: 1) })
        #expect([read.value.sign, read.reading?.sign, read.ceiling.sign] == [.plus, .plus, .plus])
        #expect(read == Measurement(id: 1, value: -0.0, reading: -0.0, ceiling: -0.0))
    }
}
