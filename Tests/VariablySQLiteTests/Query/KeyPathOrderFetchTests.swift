import Foundation
import Testing
import VariablyCodable
import VariablySQLite

/// A fetch resolves the key paths of a model's `init(from:)` on the first row: a model that reads
/// different properties, or in another order, from row to row still gets each column right.
@Suite struct KeyPathOrderFetchTests {
    struct Reading: VariablyCodable, Identifiable, Equatable, Sendable, SQLiteStorable {
        var id: Int64
        var kind: String
        var low: Int
        var high: Int
        var label: String?

        init(id: Int64, kind: String, low: Int, high: Int, label: String?) {
            (self.id, self.kind, self.low, self.high, self.label) = (id, kind, low, high, label)
        }

        init(from container: DecodingContainer<Reading>) throws {
            id = try container.decode(\.id)
            kind = try container.decode(\.kind)
            // The order of the reads depends on the row.
            if kind == "reversed" {
                high = try container.decode(\.high)
                low = try container.decode(\.low)
                label = nil
            } else {
                low = try container.decode(\.low)
                high = try container.decode(\.high)
                label = try container.decode(\.label)
            }
        }

        static let keySets = KeySets<Reading>(defaultSource: .sqlite) {
            KeySet(.sqlite, style: .snakeCase) {
                Key(\.id)
                Key(\.kind)
                Key(\.low)
                Key(\.high)
                Key(\.label)
            }
        }
    }

    @Test func modelsThatReadInAnotherOrderPerRowGetEveryColumnRight() throws {
        let db = try SQLiteDatabase.inMemory()
        let readings = (0..<12).map { index in
            Reading(
                id: Int64(index), kind: index % 3 == 1 ? "reversed" : "plain", low: index, high: 100 + index,
                label: index % 3 == 1 ? nil : "label \(index)")
        }
        try db.write { db in
            try db.migrate(Reading.self)
            try db.insert(readings)
        }
        #expect(try db.read { try $0.fetchAll(Reading.self) } == readings)
        var visited: [Reading] = []
        try db.read { db in try db.forEach(Reading.self) { visited.append($0) } }
        #expect(visited == readings)
    }
}
