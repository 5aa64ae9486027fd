import Foundation
import Testing
import VariablyCodable
import VariablySQLite

/// Single-value Codable wrappers (typed ids, measures, flags) are stored as their one value, which a
/// TEXT column keeps as text: they read back as what was written, whatever the wrapped type.
private struct Meters: Codable, Comparable, Sendable {
    var value: Int
    static func < (lhs: Meters, rhs: Meters) -> Bool { lhs.value < rhs.value }
    init(_ value: Int) { self.value = value }
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

private struct Flag: Codable, Equatable, Sendable {
    var isOn: Bool
    init(from decoder: any Decoder) throws { isOn = try decoder.singleValueContainer().decode(Bool.self) }
    init(_ isOn: Bool) { self.isOn = isOn }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(isOn)
    }
}

private struct Ratio: Codable, Equatable, Sendable {
    var value: Double
    init(_ value: Double) { self.value = value }
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

private struct Label: Codable, Equatable, Sendable {
    var text: String
    init(_ text: String) { self.text = text }
    init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

private struct Measure: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Equatable, Sendable {
    var id: Int64 = 0
    var length = Meters(0)
    var flag = Flag(false)
    var ratio = Ratio(0)
    var label = Label("")
    var optionalLength: Meters?

    static let keySets = KeySets<Measure>(defaultSource: .sqlite) {
        KeySet(.sqlite, style: .snakeCase) {
            Key(\.id); Key(\.length); Key(\.flag); Key(\.ratio); Key(\.label); Key(\.optionalLength)
        }
    }
    static let sqliteTable = SQLiteTable<Measure>("measures", primaryKey: \.id)
}

@Suite struct SingleValueColumnTests {
    private static func measure(_ id: Int64, _ length: Int, _ flag: Bool, _ ratio: Double, _ label: String) -> Measure {
        var measure = Measure()
        (measure.id, measure.length, measure.flag, measure.ratio, measure.label) = (
            id, Meters(length), Flag(flag), Ratio(ratio), Label(label)
        )
        measure.optionalLength = id % 2 == 0 ? nil : Meters(length * 2)
        return measure
    }

    @Test func wrappersOfNumbersBooleansAndTextReadBackAsWritten() throws {
        let rows = [
            Self.measure(1, 9, true, 2.5, "9"), Self.measure(2, -40, false, 3, "1"),
            Self.measure(3, 0, true, -0.5, "true"),
            Self.measure(4, Int.max, false, 1e300, "\"quoted\""), Self.measure(5, 1, true, 0, ""),
        ]
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(Measure.self)
            try db.insert(rows)
        }
        #expect(try db.read { try $0.fetchAll(Measure.self) }.sorted { $0.id < $1.id } == rows)
        for row in rows {
            #expect(try db.read { try $0.fetch(Measure.self, id: row.id) } == row)
        }
        // Equality on a wrapper compares the stored value.
        let nine = Meters(9)
        let found = try db.read { try $0.fetch(Measure.self, where: #Predicate<Measure> { $0.length == nine }) }
        #expect(found.map(\.id) == [1])
    }

    @Test func sortingByACodableColumnIsNotTranslated() throws {
        let db = try SQLiteDatabase.inMemory()
        let rows = [Self.measure(1, 10, true, 1, "b"), Self.measure(2, 9, false, 2, "a")]
        try db.write { db in
            try db.migrate(Measure.self)
            try db.insert(rows)
        }
        // As text, "10" sorts before "9".
        let error = #expect(throws: QueryTranslationError.self) {
            try db.read { try $0.fetch(Measure.self, sortedBy: [SortDescriptor(\Measure.length)]) }
        }
        #expect(error?.reason.contains("holds the value as its JSON text or raw value") == true)
        let byLength = try db.read {
            try $0.fetch(Measure.self, sortedBy: [SortDescriptor(\Measure.length)], ifUntranslatable: .evaluateInMemory)
        }
        #expect(byLength.map(\.id) == [2, 1])
    }
}

/// Captured values are bound so that SQL answers as the predicate does in memory.
private struct Tick: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Equatable, Sendable {
    var id: Int64 = 0
    var at = Date(timeIntervalSince1970: 0)
    var hits: UInt64 = 0

    static let keySets = KeySets<Tick>(defaultSource: .sqlite) {
        KeySet(.sqlite, style: .snakeCase) {
            Key(\.id); Key(\.at); Key(\.hits)
        }
    }
    static let sqliteTable = SQLiteTable<Tick>("ticks", primaryKey: \.id, [.dateEncoding(\.at, .millisecondsSince1970)])
}

@Suite struct CapturedValueBindingTests {
    private func database() throws -> (SQLiteDatabase, [Tick]) {
        let rows = (0..<4).map { index in
            var tick = Tick()
            (tick.id, tick.at, tick.hits) = (
                Int64(index), Date(timeIntervalSince1970: 1_700_000_000 + Double(index)), UInt64(index) * 10
            )
            return tick
        }
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(Tick.self)
            try db.insert(rows)
        }
        return (db, rows)
    }

    @Test func subMillisecondCapturesCompareExactlyWithAMillisecondsColumn() throws {
        let (db, rows) = try database()
        for offset in [-0.0004, 0, 0.0004, 0.9996, 1.0004] {
            let at = Date(timeIntervalSince1970: 1_700_000_001 + offset)
            let predicates = [
                #Predicate<Tick> { $0.at > at }, #Predicate<Tick> { $0.at >= at }, #Predicate<Tick> { $0.at < at },
                #Predicate<Tick> { $0.at == at },
            ]
            for predicate in predicates {
                let inSQL = try db.read { try $0.fetch(Tick.self, where: predicate) }.map(\.id).sorted()
                let inMemory = try rows.filter { try predicate.evaluate($0) }.map(\.id)
                #expect(inSQL == inMemory, "offset \(offset)")
            }
        }
    }

    @Test func aValueSQLiteCannotHoldIsUntranslatableAndEvaluatesInMemory() throws {
        let (db, rows) = try database()
        let limit = UInt64.max
        let below = #Predicate<Tick> { $0.hits < limit }
        #expect(throws: QueryTranslationError.self) { try db.read { try $0.fetch(Tick.self, where: below) } }
        let inMemory = try db.read { try $0.fetch(Tick.self, where: below, ifUntranslatable: .evaluateInMemory) }
        #expect(inMemory.map(\.id).sorted() == rows.map(\.id))
    }
}

/// Rows written by other SQL may hold another storage class than the column's: the key options that
/// handle such values (`.lenient()`, `ifInvalid:`) see them, and plain keys stay strict.
private struct Toggle: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Equatable, Sendable {
    var id: Int64 = 0
    var flag = false
    var checked = false
    var strict = false

    static let keySets = KeySets<Toggle>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id")
            Key(\.flag, "flag").lenient()
            Key(\.checked, "checked").default(ifNull: true, ifInvalid: false)
            Key(\.strict, "strict")
        }
    }
    static let sqliteTable = SQLiteTable<Toggle>("toggles", primaryKey: \.id)
}

@Suite struct ForeignStorageClassTests {
    @Test func lenientAndIfInvalidSeeTheValueAndPlainKeysStayStrict() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(Toggle.self)
            try db.execute(sql: "INSERT INTO toggles (id, flag, checked, strict) VALUES (1, 'true', 'x', 0)")
            try db.execute(sql: "INSERT INTO toggles (id, flag, checked, strict) VALUES (2, 1, 1, 'yes')")
        }
        var expected = Toggle()
        (expected.id, expected.flag, expected.checked) = (1, true, false)
        #expect(try db.read { try $0.fetch(Toggle.self, id: 1) } == expected)
        let error = #expect(throws: VariablyCodingError.self) { try db.read { try $0.fetch(Toggle.self, id: 2) } }
        #expect(error?.keyPath == "\\Toggle.strict")
    }
}
