import Foundation
import Testing
import VariablyCodable
import VariablySQLite

/// PocketBase sends `""` for a relation that is not set: the remote key reads it as `nil`.
private let emptyIsNil = ValueTransform<String?, String>(decode: { $0.isEmpty ? nil : $0 }, encode: { $0 ?? "" })

private struct Team: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: String
    var name: String

    init(id: String, name: String) { (self.id, self.name) = (id, name) }
    init(from container: DecodingContainer<Team>) throws {
        id = try container.decode(\.id)
        name = try container.decode(\.name)
    }

    static let keySets = KeySets<Team>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id"); Key(\.name, "name")
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    static let sqliteTable = SQLiteTable<Team>("optional_transform_teams", primaryKey: \.id)
}

/// The transform on the remote key only: the SQLite column holds the property's values.
private struct Player: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: String
    var teamID: String?

    init(id: String, teamID: String?) { (self.id, self.teamID) = (id, teamID) }
    init(from container: DecodingContainer<Player>) throws {
        id = try container.decode(\.id)
        teamID = try container.decode(\.teamID)
    }

    static let keySets = KeySets<Player>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id"); Key(\.teamID, "team", transform: emptyIsNil)
        }
        KeySet(.sqlite, style: .snakeCase)
    }
    static let sqliteTable = SQLiteTable<Player>(
        "optional_transform_players", primaryKey: \.id, [.references(\.teamID, Team.self, onDelete: .setNull)])
}

/// The same transform on the SQLite key too: the column holds what it encodes.
private struct Badge: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: String
    var label: String?

    init(id: String, label: String?) { (self.id, self.label) = (id, label) }
    init(from container: DecodingContainer<Badge>) throws {
        id = try container.decode(\.id)
        label = try container.decode(\.label)
    }

    static let keySets = KeySets<Badge>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id"); Key(\.label, "label", transform: emptyIsNil)
        }
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.label, "label", transform: emptyIsNil)
        }
    }
    static let sqliteTable = SQLiteTable<Badge>("optional_transform_badges", primaryKey: \.id)
}

/// An optional property keeps a nullable column whatever its transforms store, so that `nil` saves
/// and a reference may set it to NULL.
@Suite struct OptionalTransformColumnTests {
    private func notNullColumns(_ table: String, in db: SQLiteDatabase) throws -> [SQLValue] {
        try db.read {
            try $0.fetch(sql: "SELECT name FROM pragma_table_info('\(table)') WHERE \"notnull\" = 1 ORDER BY cid")
        }.map { $0[0] }
    }

    @Test func anOptionalPropertyWithATransformSavesAndFetchesNilAndAValue() throws {
        try Player.keySets.validate()
        let db = try SQLiteDatabase.inMemory()
        let players = [Player(id: "a", teamID: nil), Player(id: "b", teamID: "red")]
        try db.write { db in
            try db.migrate(Team.self)
            try db.migrate(Player.self)
            try db.insert(Team(id: "red", name: "Red"))
            try db.insert(players)
        }
        #expect(try notNullColumns("optional_transform_players", in: db) == [.text("id")])
        let stored = try db.read { try $0.fetch(sql: "SELECT team_id FROM optional_transform_players ORDER BY id") }
        #expect(stored.map { $0[0] } == [.null, .text("red")])
        #expect(try db.read { try $0.fetchAll(Player.self) }.sorted { $0.id < $1.id } == players)
        // The remote source still reads the server's "" as nil and writes nil as "".
        let remote = try KeySetJSONDecoder(source: .remote).decode(
            Player.self, from: Data(#"{"id": "c", "team": ""}"#.utf8))
        #expect(remote == Player(id: "c", teamID: nil))
        let written = try KeySetJSONEncoder(source: .remote).encode(remote)
        #expect(String(decoding: written, as: UTF8.self) == #"{"id":"c","team":""}"#)
    }

    @Test func aSetNullReferenceOnAnOptionalTransformedPropertyNullsTheChild() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(Team.self)
            try db.migrate(Player.self)
            try db.insert([Team(id: "red", name: "Red"), Team(id: "blue", name: "Blue")])
            try db.insert([Player(id: "a", teamID: "red"), Player(id: "b", teamID: "blue")])
        }
        try db.write { _ = try $0.delete(Team.self, id: "red") }
        let players = try db.read { try $0.fetchAll(Player.self) }.sorted { $0.id < $1.id }
        #expect(players == [Player(id: "a", teamID: nil), Player(id: "b", teamID: "blue")])
    }

    @Test func aTransformOnTheSQLiteKeyKeepsTheColumnNullable() throws {
        try Badge.keySets.validate()
        let db = try SQLiteDatabase.inMemory()
        let badges = [Badge(id: "a", label: nil), Badge(id: "b", label: "gold")]
        try db.write { db in
            try db.migrate(Badge.self)
            try db.insert(badges)
        }
        #expect(try notNullColumns("optional_transform_badges", in: db) == [.text("id")])
        #expect(try db.read { try $0.fetchAll(Badge.self) }.sorted { $0.id < $1.id } == badges)
        // A NULL written by another writer (or a reference's SET NULL) reads as nil too.
        try db.write { try $0.execute(sql: "INSERT INTO optional_transform_badges (id, label) VALUES ('c', NULL)") }
        #expect(try db.read { try $0.fetch(Badge.self, id: "c") } == Badge(id: "c", label: nil))
    }
}
