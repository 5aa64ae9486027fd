import Foundation
import Testing
import VariablyCodable
import VariablySQLite

// Each model below gets one thing wrong in its declaration; each of these mistakes used to trap.

private struct NoSQLiteKeySet: SQLiteStorable, EmptyInitializable, Identifiable {
    var id: Int64 = 0
    static let keySets = KeySets<NoSQLiteKeySet>(defaultSource: .remote) {
        KeySet(.remote) { Key(\.id, "id") }
    }
}

private struct EmptyKey: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    var title = ""
    static let keySets = KeySets<EmptyKey>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.title, "")
        }
    }
    static let sqliteTable = SQLiteTable<EmptyKey>("empty_key", primaryKey: \.id)
}

private struct MisfitDefault: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    var level: UInt8 = 0
    static let keySets = KeySets<MisfitDefault>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.level, "level").default(ifMissing: 300)
        }
    }
    static let sqliteTable = SQLiteTable<MisfitDefault>("misfit_default", primaryKey: \.id)
}

private struct KeylessPrimaryKey: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    var title = ""
    static let keySets = KeySets<KeylessPrimaryKey>(defaultSource: .sqlite) {
        KeySet(.sqlite) { Key(\.title, "title") }
    }
    static let sqliteTable = SQLiteTable<KeylessPrimaryKey>("keyless_primary_key", primaryKey: \.id)
}

/// A sound model, for references and migrations.
private struct Note: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    var title = ""
    static let keySets = KeySets<Note>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.title, "title")
        }
    }
    static let sqliteTable = SQLiteTable<Note>("notes", primaryKey: \.id)
}

/// Indexes a local-only property (`note`, in no key set).
private struct IndexedNote: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    var note = ""
    static let keySets = KeySets<IndexedNote>(defaultSource: .sqlite) {
        KeySet(.sqlite) { Key(\.id, "id") }
    }
    static let sqliteTable = SQLiteTable<IndexedNote>("indexed_notes", primaryKey: \.id, [.index(\.note)])
}

private struct EmptyIndex: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    static let keySets = KeySets<EmptyIndex>(defaultSource: .sqlite) { KeySet(.sqlite) { Key(\.id, "id") } }
    static let sqliteTable = SQLiteTable<EmptyIndex>("empty_index", primaryKey: \.id, [.index()])
}

private struct EmptyUnique: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    static let keySets = KeySets<EmptyUnique>(defaultSource: .sqlite) { KeySet(.sqlite) { Key(\.id, "id") } }
    static let sqliteTable = SQLiteTable<EmptyUnique>("empty_unique", primaryKey: \.id, [.unique()])
}

private struct TwoIndexesOneName: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    var title = ""
    var score = 0
    static let keySets = KeySets<TwoIndexesOneName>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.title, "title"); Key(\.score, "score")
        }
    }
    static let sqliteTable = SQLiteTable<TwoIndexesOneName>(
        "two_indexes", primaryKey: \.id, [.index(\.title, name: "by_value"), .unique(\.score, name: "BY_VALUE")])
}

private struct NaNDefault: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    var score = 0.0
    static let keySets = KeySets<NaNDefault>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.score, "score")
        }
    }
    static let sqliteTable = SQLiteTable<NaNDefault>(
        "nan_default", primaryKey: \.id, [.defaultValue(\.score, .real(.nan))])
}

private struct NegativeZeroDefault: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    var score = 0.0
    static let keySets = KeySets<NegativeZeroDefault>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.score, "score")
        }
    }
    static let sqliteTable = SQLiteTable<NegativeZeroDefault>(
        "negative_zero_default", primaryKey: \.id, [.defaultValue(\.score, .real(-0.0))])
}

private struct RequiredSetNull: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    var noteID: Int64 = 0
    static let keySets = KeySets<RequiredSetNull>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.noteID, "note_id")
        }
    }
    static let sqliteTable = SQLiteTable<RequiredSetNull>(
        "required_set_null", primaryKey: \.id, [.references(\.noteID, Note.self, onDelete: .setNull)])
}

private struct ConflictingDates: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    var createdAt = Date(timeIntervalSince1970: 0)
    static let keySets = KeySets<ConflictingDates>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.createdAt, "created_at").dates(.millisecondsSince1970)
        }
    }
    static let sqliteTable = SQLiteTable<ConflictingDates>(
        "conflicting_dates", primaryKey: \.id, [.dateEncoding(\.createdAt, .iso8601)])
}

private struct TransformedKey: SQLiteStorable, EmptyInitializable {
    var id: [String] = []
    static let keySets = KeySets<TransformedKey>(defaultSource: .sqlite) {
        KeySet(.sqlite) { Key(\.id, "id").transform(.commaSeparated) }
    }
    static let sqliteTable = SQLiteTable<TransformedKey>("transformed_key", primaryKey: \.id)
}

/// References a parent whose primary key has no key.
private struct ChildOfKeyless: SQLiteStorable, EmptyInitializable {
    var id: Int64 = 0
    var parentID: Int64 = 0
    static let keySets = KeySets<ChildOfKeyless>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.parentID, "parent_id")
        }
    }
    static let sqliteTable = SQLiteTable<ChildOfKeyless>(
        "child_of_keyless", primaryKey: \.id, [.references(\.parentID, KeylessPrimaryKey.self)])
}

// Two types named alike, on purpose (see TestTableNameTests): the second one used throws.
private enum Inbox {
    struct Memo: SQLiteStorable, EmptyInitializable, Identifiable {
        var id: Int64 = 0
        var title = ""
        static let keySets = KeySets<Memo>(defaultSource: .sqlite) {
            KeySet(.sqlite) {
                Key(\.id, "id"); Key(\.title, "title")
            }
        }
    }
}

private enum Archive {
    struct Memo: SQLiteStorable, EmptyInitializable, Identifiable {
        var id: Int64 = 0
        var body = ""
        static let keySets = KeySets<Memo>(defaultSource: .sqlite) {
            KeySet(.sqlite) {
                Key(\.id, "id"); Key(\.body, "body")
            }
        }
    }
}

@Suite struct DeclarationErrorTests {
    /// The error `migrate` throws for `type`, on a fresh database that it leaves without the table.
    private func migrationError<Model: SQLiteStorable>(
        _ type: Model.Type, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> DeclarationError {
        let db = try SQLiteDatabase.inMemory()
        let error = try #require(throws: DeclarationError.self, sourceLocation: sourceLocation) {
            try db.write { try $0.migrate(type) }
        }
        #expect(try db.read { try $0.fetchValue(sql: "SELECT count(*) FROM sqlite_schema") } == .integer(0))
        return error
    }

    @Test func aMissingSQLiteKeySetNamesTheSourceToAdd() throws {
        let error = try migrationError(NoSQLiteKeySet.self)
        #expect(error.reason == .noKeySet(.sqlite))
        #expect(error.modelType == "NoSQLiteKeySet" && error.keyPath == nil)
        #expect(error.fix.contains("KeySet(.sqlite, style: .snakeCase)"))
        #expect("\(error)".hasPrefix("NoSQLiteKeySet: there is no sqlite key set. Fix: add `KeySet(.sqlite"))
    }

    @Test func anEmptyKeyIsTheKeySetsProblem() throws {
        let error = try migrationError(EmptyKey.self)
        guard case .keySetProblem(let problem) = error.reason else {
            Issue.record("\(error.reason)")
            return
        }
        #expect(problem.kind == .emptyKey && problem.source == .sqlite)
        #expect(error.modelType == "EmptyKey")
        #expect(error.keyPath?.contains("title") == true)
        #expect("\(error)".contains("Fix: give the property a key with no empty part"))
    }

    /// A modifier that does not fit its property (a default of 300 for a `UInt8`) is left out of the key
    /// set, which reports it: `migrate` throws it, naming the key path and the fix, instead of trapping.
    @Test func aModifierThatDoesNotFitIsThrownWhenTheTableOpens() throws {
        let error = try migrationError(MisfitDefault.self)
        guard case .keySetProblem(let problem) = error.reason, case .optionDoesNotFit = problem.kind else {
            Issue.record("\(error.reason)")
            return
        }
        #expect(error.keyPath?.contains("level") == true)
        #expect("\(error)".contains("ifMissing: 300 (Int) is not a UInt8"))
        #expect("\(error)".contains("Fix: give ifMissing a value of type UInt8"))
    }

    @Test func aPrimaryKeyWithoutAKeyIsNamed() throws {
        let error = try migrationError(KeylessPrimaryKey.self)
        #expect(error.reason == .primaryKeyWithoutKey(.sqlite))
        #expect(error.keyPath?.contains("id") == true)
        #expect(error.fix.contains("sqlite key set"))
    }

    @Test func anIndexOnAPropertyWithoutAKeyNamesTheProperty() throws {
        let error = try migrationError(IndexedNote.self)
        #expect(error.reason == .propertyWithoutKey(.sqlite, role: "index"))
        #expect(error.modelType == "IndexedNote")
        #expect(error.keyPath?.contains("note") == true)
        #expect("\(error)".contains("the index names a property without a sqlite key"))
    }

    @Test(arguments: [false, true])
    func anIndexOfNoPropertyIsRefused(isUnique: Bool) throws {
        let error = try isUnique ? migrationError(EmptyUnique.self) : migrationError(EmptyIndex.self)
        #expect(error.reason == .emptyIndex(isUnique: isUnique))
        #expect(error.fix.contains(isUnique ? ".unique(\\.email)" : ".index(\\.userName)"))
    }

    @Test func twoIndexesOfOneNameAreRefusedAsSQLiteComparesNames() throws {
        let error = try migrationError(TwoIndexesOneName.self)
        #expect(error.reason == .duplicateIndexName("BY_VALUE"))
        #expect(error.keyPath?.contains("score") == true)
        #expect(error.fix.contains("another name"))
    }

    /// NaN is stored as `NULL`, and a REAL column keeps `-0.0` as `0.0`
    /// (https://www.sqlite.org/datatype3.html#storage_classes_and_datatypes).
    @Test func aDefaultSQLiteWouldNotGiveBackIsRefused() throws {
        let nan = try migrationError(NaNDefault.self)
        guard case .unstorableDefaultValue(let value) = nan.reason else {
            Issue.record("\(nan.reason)")
            return
        }
        #expect(value.isNaN && nan.keyPath?.contains("score") == true)
        #expect("\(nan)".contains("which SQLite gives back as NULL"))
        let negativeZero = try migrationError(NegativeZeroDefault.self)
        #expect(negativeZero.reason == .unstorableDefaultValue(-0.0))
        #expect(negativeZero.fix == "declare 0 instead")
    }

    @Test func aSetNullReferenceOnARequiredPropertyIsRefused() throws {
        let error = try migrationError(RequiredSetNull.self)
        #expect(error.reason == .setNullOnRequiredReference)
        #expect(error.keyPath?.contains("noteID") == true)
        #expect(error.fix.contains("make the property optional"))
    }

    @Test func aTableEncodingAndAKeyDateStrategyThatDisagreeAreRefused() throws {
        let error = try migrationError(ConflictingDates.self)
        guard case .conflictingDateEncodings = error.reason else {
            Issue.record("\(error.reason)")
            return
        }
        #expect(error.keyPath?.contains("createdAt") == true)
        #expect(error.fix.contains("keep one of the two"))
    }

    @Test func aTransformedPrimaryKeyIsRefused() throws {
        let error = try migrationError(TransformedKey.self)
        #expect(error.reason == .transformedPrimaryKey)
        #expect(error.keyPath?.contains("id") == true)
    }

    @Test func aReferencedParentWithoutAPrimaryKeyKeyNamesTheParent() throws {
        let error = try migrationError(ChildOfKeyless.self)
        #expect(error.reason == .primaryKeyWithoutKey(.sqlite))
        #expect(error.modelType == "KeylessPrimaryKey")
    }

    @Test func twoTypesNamedAlikeDoNotShareADefaultTable() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { try $0.migrate(Inbox.Memo.self) }
        let error = try #require(throws: DeclarationError.self) { try db.write { try $0.migrate(Archive.Memo.self) } }
        guard case .sharedTableName(let table, let other) = error.reason else {
            Issue.record("\(error.reason)")
            return
        }
        #expect(table == "Memo" && other.hasSuffix("Inbox.Memo"))
        #expect(error.modelType.hasSuffix("Archive.Memo"))
        #expect(error.fix.contains("a name of its own"))
    }

    @Test func createTableSQLThrowsTheSameError() throws {
        let error = try #require(throws: DeclarationError.self) { try Database.createTableSQL(for: EmptyIndex.self) }
        #expect(error.reason == .emptyIndex(isUnique: false) && error.modelType == "EmptyIndex")
    }

    @Test func queriesAndObservationsOfAMisdeclaredModelThrowIt() async throws {
        let db = try SQLiteDatabase.inMemory()
        #expect(throws: DeclarationError.self) { try db.read { try $0.fetchAll(IndexedNote.self) } }
        await #expect(throws: DeclarationError.self) {
            for try await _ in db.observe(IndexedNote.self) {}
        }
        await #expect(throws: DeclarationError.self) {
            for try await _ in db.observeCount(IndexedNote.self) {}
        }
    }

    @Test func aMigrationRegisteredTwiceThrowsBeforeAnyStepRuns() throws {
        let db = try SQLiteDatabase.inMemory()
        var migrator = Migrator()
        migrator.register("v1") { db in try db.migrate(Note.self) }
        migrator.register("v1") { _ in }
        let error = try #require(throws: DeclarationError.self) { try migrator.migrate(db) }
        #expect(error.reason == .duplicateMigration("v1"))
        #expect(error.modelType == "Migrator")
        #expect(
            "\(error)" == "Migrator: the migration \"v1\" is registered twice. Fix: give each step its own identifier")
        #expect(throws: DeclarationError.self) { try db.write { try migrator.migrate($0) } }
        #expect(try db.read { try $0.tableExists("notes") } == false)
    }
}
