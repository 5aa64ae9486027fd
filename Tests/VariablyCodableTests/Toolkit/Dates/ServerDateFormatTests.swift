import Foundation
import Testing
import VariablyCodable

struct ServerDateFormatTests {
    /// Dates as servers write them, each written back byte for byte from the date it decodes to.
    @Test(arguments: [
        "2026-11-02T10:00:00Z",
        "2026-11-02T10:00:00.123Z",
        "2026-11-02T10:00:00.123456Z",
        "2024-01-02 03:04:05.678Z",
        "2026-11-02T10:00:00+01:00",
        "2026-11-02T10:00:00.5-05:30",
        "2026-11-02T10:00:00+0100",
        "2026-11-02T10:00:00+01",
        "2026-11-02T10:00:00",
        "2026-11-02T10:00Z",
        "1969-12-31T23:59:59.999999Z",
        "2026-11-02",
        "1714566600",
        "1714566600000",
    ])
    func aDateWritesBackInTheFormItWasRead(text: String) throws {
        let format = try #require(ServerDateFormat(of: .string(text)))
        let date = try #require(DateCodingStrategy.flexible.date(from: text))
        #expect(format.value(for: date) == .string(text))
    }

    @Test func numbersStayNumbersInTheirUnit() throws {
        let seconds = try #require(ServerDateFormat(of: .int(1_714_566_600)))
        let milliseconds = try #require(ServerDateFormat(of: .int(1_714_566_600_250)))
        let date = Date(timeIntervalSince1970: 1_714_566_600.25)
        #expect(seconds.value(for: Date(timeIntervalSince1970: 1_714_566_600)) == .int(1_714_566_600))
        #expect(milliseconds.value(for: date) == .int(1_714_566_600_250))
        #expect(
            try #require(ServerDateFormat(of: .double(1_714_566_600.5))).value(for: date) == .double(1_714_566_600.25))
    }

    @Test func aValueThatIsNoDateHasNoForm() {
        #expect(ServerDateFormat(of: .string("yesterday")) == nil)
        #expect(ServerDateFormat(of: .bool(true)) == nil)
        #expect(ServerDateFormat(of: .null) == nil)
    }

    @Test func anOffsetIsKeptWhenTheDateMovesToAnotherDay() throws {
        let format = try #require(ServerDateFormat(of: .string("2026-11-02T10:00:00+01:00")))
        #expect(format.value(for: Date(timeIntervalSince1970: 0)) == .string("1970-01-01T01:00:00+01:00"))
    }

    /// A model whose remote key set declares no date strategy writes each date in the form the
    /// encoder was handed for its path; a declared strategy still wins.
    @Test(arguments: [true, false])
    func anEncoderWritesEachDateInItsServersForm(foundation: Bool) throws {
        let date = try #require(DateCodingStrategy.flexible.date(from: "2024-01-02 03:04:05.678912Z"))
        let event = ServerDatedEvent(id: 1, startsAt: date, endsAt: date, note: date)
        let formats = ServerDateFormats([
            "starts_at": try #require(ServerDateFormat(of: .string("2024-01-01 00:00:00.000000Z"))),
            "times.ends_at": try #require(ServerDateFormat(of: .int(1_714_566_600))),
            "note_at": try #require(ServerDateFormat(of: .int(1_714_566_600))),
        ])
        let data: Data
        if foundation {
            let encoder = JSONEncoder(source: .remote)
            encoder.userInfo[.serverDateFormats] = formats
            data = try encoder.encode(event)
        } else {
            data = try KeySetJSONEncoder(source: .remote, userInfo: [.serverDateFormats: formats]).encode(event)
        }
        let json = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["starts_at"] as? String == "2024-01-02 03:04:05.678912Z")
        #expect((json["times"] as? [String: Any])?["ends_at"] as? Int == 1_704_164_646)
        // Declared `.dates(.iso8601)`: its own form, whatever the server's.
        #expect(json["note_at"] as? String == "2024-01-02T03:04:05Z")
        // Without the server's forms, the source's default.
        let plain = try KeySetJSONEncoder(source: .remote).encode(event)
        let plainJSON = try #require(JSONSerialization.jsonObject(with: plain) as? [String: Any])
        #expect(plainJSON["starts_at"] as? String == "2024-01-02T03:04:05.679Z")
    }
}

struct ServerDatedEvent: VariablyCodable, Equatable {
    var id: Int
    var startsAt: Date
    var endsAt: Date
    var note: Date

    init(id: Int, startsAt: Date, endsAt: Date, note: Date) {
        self.id = id
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.note = note
    }

    init(from container: DecodingContainer<ServerDatedEvent>) throws {
        id = try container.decode(\.id)
        startsAt = try container.decode(\.startsAt)
        endsAt = try container.decode(\.endsAt)
        note = try container.decode(\.note)
    }

    static let keySets = KeySets<ServerDatedEvent>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.startsAt, "starts_at")
            Key(\.endsAt, "times.ends_at")
            Key(\.note, "note_at").dates(.iso8601)
        }
    }
}
