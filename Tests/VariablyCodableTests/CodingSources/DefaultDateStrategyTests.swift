import Foundation
import Testing
import VariablyCodable

// A model that declares no date strategy reads the dates servers send from the remote source, with
// both JSON decoders alike, and writes ISO 8601 with milliseconds back; other sources keep their own.

private struct Note: VariablyCodable, EmptyInitializable, Equatable {
    var id = 0
    var updatedAt = Date(timeIntervalSince1970: 0)
    var due: Date?

    static let keySets = KeySets<Note>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.updatedAt, "updated_at")
            Key(\.due, "due")
        }
        KeySet(.local, style: .snakeCase)
        KeySet(.sqlite, style: .snakeCase)
    }
}

/// The same properties with declared strategies: the key set's for every date, a key's for one.
private struct Stamped: VariablyCodable, EmptyInitializable, Equatable {
    var updatedAt = Date(timeIntervalSince1970: 0)
    var createdAt = Date(timeIntervalSince1970: 0)

    static let keySets = KeySets<Stamped>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.updatedAt, "updated_at")
            Key(\.createdAt, "created_at").dates(.secondsSince1970)
        }
        .dates(.millisecondsSince1970)
    }
}

@Suite struct DefaultDateStrategyTests {
    private static let tenOClock: TimeInterval = 1_793_613_600  // 2026-11-02T10:00:00Z

    /// `updated_at` decoded by Foundation's `JSONDecoder` and by `KeySetJSONDecoder`, which must agree.
    private func decodeBoth(_ updatedAt: String) throws -> Date {
        let data = Data(#"{"id": 1, "updated_at": \#(updatedAt)}"#.utf8)
        let foundation = try JSONDecoder(source: .remote).decode(Note.self, from: data)
        let fast = try KeySetJSONDecoder(source: .remote).decode(Note.self, from: data)
        #expect(foundation == fast)
        return fast.updatedAt
    }

    @Test(arguments: [
        (#""2026-11-02T10:00:00Z""#, tenOClock),
        (#""2026-11-02T10:00:00.123Z""#, tenOClock + 0.123),
        (#""2026-11-02T11:00:00+01:00""#, tenOClock),
        (#""2026-11-02T05:30:00-0430""#, tenOClock),
        (#""2026-11-02T10:00:00""#, tenOClock),  // no zone: UTC
        (#""2026-11-02 10:00:00Z""#, tenOClock),
        (#""2024-01-02 03:04:05.678Z""#, 1_704_164_645.678),  // PocketBase
        (#""2026-11-02""#, tenOClock - 36_000),
        ("1793613600", tenOClock),  // seconds since 1970
        ("1793613600123", tenOClock + 0.123),  // milliseconds, from 100,000,000,000
        (#""1793613600""#, tenOClock),
    ])
    func theRemoteSourceReadsServerDatesByDefault(json: String, expected: TimeInterval) throws {
        let date = try decodeBoth(json)
        #expect(abs(date.timeIntervalSince1970 - expected) < 0.000_001, "\(json)")
    }

    @Test func microsecondsAreKeptAsExactlyAsADateHoldsThem() throws {
        // The date a `Double` of seconds since 1970 holds, as a SQLite column stores it: no drift
        // between a server's value, the cache's and one built in code.
        let date = try decodeBoth(#""2026-11-02T10:00:00.123456Z""#)
        #expect(date == Date(timeIntervalSince1970: 1_793_613_600.123456))
        #expect((date.timeIntervalSince1970 * 1_000_000).rounded() == 1_793_613_600_123_456)
        let offset = try decodeBoth(#""2026-11-02T11:00:00.123456789+01:00""#)
        #expect(offset == Date(timeIntervalSince1970: 1_793_613_600.123456789))
        #expect(try decodeBoth(#""1970-01-01T00:00:00.000001Z""#) == Date(timeIntervalSince1970: 0.000001))
        #expect(try decodeBoth(#""1969-12-31T23:59:59.999999Z""#) == Date(timeIntervalSince1970: -0.000001))
    }

    @Test func anOptionalDateReadsTheSameAndNullIsNil() throws {
        let data = Data(#"{"id": 1, "updated_at": 0, "due": "2026-11-02T10:00:00.5Z"}"#.utf8)
        let note = try KeySetJSONDecoder(source: .remote).decode(Note.self, from: data)
        #expect(note.due == Date(timeIntervalSince1970: Self.tenOClock + 0.5))
        #expect(try JSONDecoder(source: .remote).decode(Note.self, from: data) == note)
        let empty = Data(#"{"id": 1, "updated_at": 0, "due": null}"#.utf8)
        #expect(try KeySetJSONDecoder(source: .remote).decode(Note.self, from: empty).due == nil)
        #expect(try JSONDecoder(source: .remote).decode(Note.self, from: empty).due == nil)
    }

    @Test func theRemoteSourceWritesISO8601WithMillisecondsInUTC() throws {
        var note = Note()
        note.id = 1
        note.updatedAt = Date(timeIntervalSince1970: Self.tenOClock + 0.123)
        let fast = try toolkitObject(KeySetJSONEncoder(source: .remote).encode(note))
        let foundation = try toolkitObject(JSONEncoder(source: .remote).encode(note))
        #expect(fast["updated_at"] as? String == "2026-11-02T10:00:00.123Z")
        #expect(foundation["updated_at"] as? String == "2026-11-02T10:00:00.123Z")
        #expect(fast["due"] == nil && foundation["due"] == nil)
        let data = try KeySetJSONEncoder(source: .remote).encode(note)
        #expect(try KeySetJSONDecoder(source: .remote).decode(Note.self, from: data) == note)
    }

    @Test func aDeclaredStrategyWins() throws {
        let data = Data(#"{"updated_at": 1500, "created_at": 1500}"#.utf8)
        for stamped in [
            try JSONDecoder(source: .remote).decode(Stamped.self, from: data),
            try KeySetJSONDecoder(source: .remote).decode(Stamped.self, from: data),
        ] {
            #expect(stamped.updatedAt == Date(timeIntervalSince1970: 1.5))  // the key set's milliseconds
            #expect(stamped.createdAt == Date(timeIntervalSince1970: 1500))  // the key's seconds
        }
        let written = try toolkitObject(
            KeySetJSONEncoder(source: .remote).encode(
                Stamped(updatedAt: Date(timeIntervalSince1970: 2), createdAt: Date(timeIntervalSince1970: 3))))
        #expect(written["updated_at"] as? Int == 2000)
        #expect(written["created_at"] as? Double == 3)
    }

    @Test(arguments: [#""next tuesday""#, #""2026-11-31T10:00:00Z""#, "true", "[1]"])
    func aDateThatFailsListsTheFormatsTried(json: String) throws {
        let data = Data(#"{"id": 1, "updated_at": \#(json)}"#.utf8)
        let errors = [
            try #require(throws: VariablyCodingError.self) {
                try JSONDecoder(source: .remote).decode(Note.self, from: data)
            },
            try #require(throws: VariablyCodingError.self) {
                try KeySetJSONDecoder(source: .remote).decode(Note.self, from: data)
            },
        ]
        for error in errors {
            #expect(error.source == .remote)
            #expect(error.keyPath == "\\Note.updatedAt")
            #expect(error.codingPath.map(\.stringValue) == ["updated_at"])
            let text = "\(error)"
            for format in ["yyyy-MM-dd", "ISO 8601", "±hh:mm", "a space for the T", "seconds since 1970"] {
                #expect(text.contains(format), "\(text)")
            }
        }
    }

    @Test func otherSourcesKeepTheirDefaults() throws {
        #expect(CodingSource.remote.defaultDateStrategy == .flexible)
        #expect(CodingSource.local.defaultDateStrategy == nil)
        #expect(CodingSource.sqlite.defaultDateStrategy == nil)
        for source in [CodingSource.local, .sqlite] {
            #expect(Note.keySets[source]?.entries.allSatisfy { $0.options.dates == nil } == true)
        }
        // The local source still reads and writes Foundation's default: seconds since 2001, no text.
        let local = Data(#"{"id": 1, "updated_at": 10}"#.utf8)
        #expect(
            try JSONDecoder(source: .local).decode(Note.self, from: local).updatedAt.timeIntervalSinceReferenceDate
                == 10)
        #expect(
            try KeySetJSONDecoder(source: .local).decode(Note.self, from: local).updatedAt
                .timeIntervalSinceReferenceDate == 10)
        let text = Data(#"{"id": 1, "updated_at": "2026-11-02T10:00:00Z"}"#.utf8)
        #expect(throws: VariablyCodingError.self) {
            try KeySetJSONDecoder(source: .local).decode(Note.self, from: text)
        }
        #expect(throws: VariablyCodingError.self) { try JSONDecoder(source: .local).decode(Note.self, from: text) }
        let written = try toolkitObject(KeySetJSONEncoder(source: .local).encode(Note()))
        #expect(written["updated_at"] as? Double == -978_307_200)
    }
}
