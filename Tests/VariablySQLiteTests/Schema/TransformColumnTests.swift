import Foundation
import Testing
import VariablyCodable
import VariablySQLite

private struct PricedItem: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
    var id: Int64
    var tags: [String]
    var price: Double

    init(id: Int64, tags: [String], price: Double) { (self.id, self.tags, self.price) = (id, tags, price) }
    init(from container: DecodingContainer<PricedItem>) throws {
        id = try container.decode(\.id)
        tags = try container.decode(\.tags)
        price = try container.decode(\.price)
    }

    static let keySets = KeySets<PricedItem>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id")
            Key(\.tags, "tags").transform(.commaSeparated)
            Key(\.price, "price", transform: .numericString)
        }
    }
    static let sqliteTable = SQLiteTable<PricedItem>("priced_items", primaryKey: \.id)
}

/// A value transform on the `.sqlite` key set decides what the column holds: the encoded values, in a
/// column of their type. SQL cannot compare those as the property's values, so predicates and sorts on
/// such a property are a `QueryTranslationError` (or run in memory when asked).
@Suite struct TransformColumnTests {
    private static let rows = [
        PricedItem(id: 1, tags: ["a", "b"], price: 2.5), PricedItem(id: 2, tags: ["c"], price: 12.5),
        PricedItem(id: 3, tags: [], price: 100),
    ]

    private func database() throws -> SQLiteDatabase {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(PricedItem.self)
            try db.insert(Self.rows)
        }
        return db
    }

    @Test func theColumnHoldsTheEncodedValuesAndRowsReadBack() throws {
        let db = try database()
        let types = try db.read { try $0.fetch(sql: "SELECT type FROM pragma_table_info('priced_items') ORDER BY cid") }
        #expect(types.map { $0[0] } == [.text("INTEGER"), .text("TEXT"), .text("TEXT")])
        let stored = try db.read { try $0.fetch(sql: "SELECT tags, price FROM priced_items ORDER BY id") }
        #expect(stored.map { $0[0] } == [.text("a,b"), .text("c"), .text("")])
        #expect(stored.map { $0[1] } == [.text("2.5"), .text("12.5"), .text("100.0")])
        #expect(try db.read { try $0.fetchAll(PricedItem.self) }.sorted { $0.id < $1.id } == Self.rows)
        #expect(try db.read { try $0.fetch(PricedItem.self, id: 2) } == Self.rows[1])
    }

    @Test func predicatesAndSortsOnATransformedPropertyAreNotTranslated() throws {
        let db = try database()
        let error = #expect(throws: QueryTranslationError.self) {
            try db.read { try $0.fetch(PricedItem.self, where: #Predicate<PricedItem> { $0.price > 10 }) }
        }
        #expect(error?.expression == "\\PricedItem.price")
        #expect(throws: QueryTranslationError.self) {
            try db.read { try $0.fetch(PricedItem.self, where: #Predicate<PricedItem> { $0.tags.contains("b") }) }
        }
        #expect(throws: QueryTranslationError.self) {
            try db.read { try $0.fetch(PricedItem.self, sortedBy: [SortDescriptor(\PricedItem.price)]) }
        }
        let inMemory = try db.read {
            try $0.fetch(
                PricedItem.self, where: #Predicate<PricedItem> { $0.price > 10 }, ifUntranslatable: .evaluateInMemory)
        }
        #expect(inMemory.map(\.id).sorted() == [2, 3])
        // Other properties still translate.
        #expect(try db.read { try $0.fetch(PricedItem.self, where: #Predicate<PricedItem> { $0.id >= 2 }) }.count == 2)
    }
}
