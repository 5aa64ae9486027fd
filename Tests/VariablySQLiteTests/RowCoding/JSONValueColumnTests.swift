import Foundation
import Testing
import VariablyCodable
import VariablySQLite

/// A `JSONValue` property is stored as its one value or as JSON text, and reads back as the same case.
private struct Setting: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Equatable, Sendable {
    var id: Int64 = 0
    var value: JSONValue = .null

    static let keySets = KeySets<Setting>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.value, "value")
        }
    }
    static let sqliteTable = SQLiteTable<Setting>("settings", primaryKey: \.id)
}

@Suite struct JSONValueColumnTests {
    @Test(arguments: [
        JSONValue.string("9"), .string("true"), .string("text"), .string(""), .int(9), .int(-3), .double(2.5),
        .bool(true),
        .bool(false), .array([1, "a"]), .object(["k": .string("9")]),
    ])
    func everyCaseReadsBackAsItself(value: JSONValue) throws {
        let db = try SQLiteDatabase.inMemory()
        var setting = Setting()
        (setting.id, setting.value) = (1, value)
        try db.write { db in
            try db.migrate(Setting.self)
            try db.insert(setting)
        }
        #expect(try db.read { try $0.fetch(Setting.self, id: 1) } == setting)
    }
}
