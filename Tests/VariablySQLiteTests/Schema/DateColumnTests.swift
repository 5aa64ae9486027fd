import Foundation
import Testing
import VariablyCodable
import VariablySQLite

/// A date strategy on the `.sqlite` key set decides how the column stores dates, so that the column's
/// type, the stored values and the values a `#Predicate` binds agree.
private struct Event: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: Int64
    var at: Date

    init(id: Int64, at: Date) { (self.id, self.at) = (id, at) }
    init(from container: DecodingContainer<Event>) throws {
        id = try container.decode(\.id)
        at = try container.decode(\.at)
    }

    static let keySets = KeySets<Event>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id"); Key(\.at, "at")
        }.dates(.millisecondsSince1970)
    }
    static let sqliteTable = SQLiteTable<Event>("events", primaryKey: \.id)
}

/// One date per column encoding, each chosen by its key's strategy; `ends` is optional.
private struct Slot: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: Int64
    var starts: Date
    var reminds: Date
    var ends: Date?

    init(id: Int64, starts: Date, reminds: Date, ends: Date?) {
        (self.id, self.starts, self.reminds, self.ends) = (id, starts, reminds, ends)
    }
    init(from container: DecodingContainer<Slot>) throws {
        id = try container.decode(\.id)
        starts = try container.decode(\.starts)
        reminds = try container.decode(\.reminds)
        ends = try container.decode(\.ends)
    }

    static let keySets = KeySets<Slot>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id")
            Key(\.starts, "starts").dates(.secondsSince1970)
            Key(\.reminds, "reminds").dates(.flexible)
            Key(\.ends, "ends").dates(.millisecondsSince1970)
        }
    }
    static let sqliteTable = SQLiteTable<Slot>("slots", primaryKey: \.id)
}

/// Dates in text formats no `DateEncoding` writes: stored, read and compared in the strategy's format.
private struct Birthday: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: Int64
    var day: Date
    var seen: Date

    init(id: Int64, day: Date, seen: Date) { (self.id, self.day, self.seen) = (id, day, seen) }
    init(from container: DecodingContainer<Birthday>) throws {
        id = try container.decode(\.id)
        day = try container.decode(\.day)
        seen = try container.decode(\.seen)
    }

    static let keySets = KeySets<Birthday>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id")
            Key(\.day, "day").dates(.dateOnly)
            Key(\.seen, "seen").dates(.iso8601)
        }
    }
    static let sqliteTable = SQLiteTable<Birthday>("birthdays", primaryKey: \.id)
}

@Suite struct DateColumnTests {
    @Test func aKeySetDateStrategyIsTheColumnsEncodingForRowsAndPredicates() throws {
        let db = try SQLiteDatabase.inMemory()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let events = (0..<10).map { Event(id: Int64($0), at: start.addingTimeInterval(Double($0) * 60)) }
        try db.write { db in
            try db.migrate(Event.self)
            try db.insert(events)
        }
        let middle = start.addingTimeInterval(5 * 60)
        let later = try db.read { try $0.fetch(Event.self, where: #Predicate<Event> { $0.at > middle }) }
        #expect(later.map(\.id).sorted() == [6, 7, 8, 9])
        let stored = try db.read { try $0.fetchValue(sql: "SELECT at FROM events WHERE id = 0") }
        #expect(stored == .integer(1_700_000_000_000))
        let type = try db.read {
            try $0.fetchValue(sql: "SELECT type FROM pragma_table_info('events') WHERE name = 'at'")
        }
        #expect(type == .text("INTEGER"))
        #expect(try db.read { try $0.fetchAll(Event.self) }.sorted { $0.id < $1.id } == events)
    }

    @Test func eachKeysStrategyChoosesItsColumnsEncoding() throws {
        let db = try SQLiteDatabase.inMemory()
        let start = Date(timeIntervalSince1970: 1_700_000_000.25)
        let slots = (0..<10).map { index in
            let at = start.addingTimeInterval(Double(index) * 3_600)
            return Slot(id: Int64(index), starts: at, reminds: at, ends: index % 3 == 0 ? nil : at)
        }
        try db.write { db in
            try db.migrate(Slot.self)
            try db.insert(slots)
        }
        let types = try db.read { try $0.fetch(sql: "SELECT name, type FROM pragma_table_info('slots') ORDER BY cid") }
        #expect(types.map { $0[1] } == [.text("INTEGER"), .text("REAL"), .text("TEXT"), .text("INTEGER")])
        let first = try db.read { try $0.fetch(sql: "SELECT starts, reminds, ends FROM slots WHERE id = 1") }[0]
        #expect(first[0] == .real(1_700_003_600.25))
        #expect(first[1] == .text("2023-11-14T23:13:20.250Z"))
        #expect(first[2] == .integer(1_700_003_600_250))

        let cut = start.addingTimeInterval(5 * 3_600)
        let byStart = try db.read { try $0.fetch(Slot.self, where: #Predicate<Slot> { $0.starts > cut }) }
        let byReminder = try db.read { try $0.fetch(Slot.self, where: #Predicate<Slot> { $0.reminds > cut }) }
        let byEnd = try db.read {
            try $0.fetch(Slot.self, where: #Predicate<Slot> { $0.ends != nil && $0.ends! > cut })
        }
        #expect(byStart.map(\.id).sorted() == [6, 7, 8, 9])
        #expect(byReminder.map(\.id).sorted() == [6, 7, 8, 9])
        #expect(byEnd.map(\.id).sorted() == [7, 8])
        #expect(try db.read { try $0.fetchAll(Slot.self) }.sorted { $0.id < $1.id } == slots)
    }

    @Test func aColumnCreatedForAnotherEncodingIsASchemaMismatch() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { try $0.execute(sql: "CREATE TABLE events (id INTEGER PRIMARY KEY NOT NULL, at REAL NOT NULL)") }
        let error = #expect(throws: SchemaMismatchError.self) { try db.write { try $0.migrate(Event.self) } }
        #expect(error?.problems == [.typeChanged(column: "at", from: "REAL", to: "INTEGER")])
    }

    @Test func textFormatsNoEncodingWritesAreStoredAndComparedInTheirOwnFormat() throws {
        let db = try SQLiteDatabase.inMemory()
        let first = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01T00:00:00Z
        let rows = (0..<10).map { index in
            Birthday(
                id: Int64(index), day: first.addingTimeInterval(Double(index) * 86_400),
                seen: first.addingTimeInterval(Double(index) * 90))
        }
        try db.write { db in
            try db.migrate(Birthday.self)
            try db.insert(rows)
        }
        let types = try db.read { try $0.fetch(sql: "SELECT type FROM pragma_table_info('birthdays') ORDER BY cid") }
        #expect(types.map { $0[0] } == [.text("INTEGER"), .text("TEXT"), .text("TEXT")])
        let stored = try db.read { try $0.fetch(sql: "SELECT day, seen FROM birthdays WHERE id = 3") }[0]
        #expect(stored[0] == .text("2000-01-04") && stored[1] == .text("2000-01-01T00:04:30Z"))

        let fourth = first.addingTimeInterval(3 * 86_400)
        let fromTheFourth = try db.read {
            try $0.fetch(Birthday.self, where: #Predicate<Birthday> { $0.day >= fourth })
        }
        #expect(fromTheFourth.map(\.id).sorted() == [3, 4, 5, 6, 7, 8, 9])
        let onTheFourth = try db.read { try $0.fetch(Birthday.self, where: #Predicate<Birthday> { $0.day == fourth }) }
        #expect(onTheFourth.map(\.id) == [3])
        let cut = first.addingTimeInterval(5 * 90)
        let seenAfter = try db.read { try $0.fetch(Birthday.self, where: #Predicate<Birthday> { $0.seen > cut }) }
        #expect(seenAfter.map(\.id).sorted() == [6, 7, 8, 9])
        let newestFirst = try db.read {
            try $0.fetch(
                Birthday.self, where: nil, sortedBy: [SortDescriptor(\Birthday.seen, order: .reverse)], limit: 2)
        }
        #expect(newestFirst.map(\.id) == [9, 8])
        #expect(try db.read { try $0.fetchAll(Birthday.self) }.sorted { $0.id < $1.id } == rows)
    }
}
