import Foundation
import Testing
import VariablyCodable

@Suite struct ToolkitRoundTripTests {
    @Test(arguments: [CodingSource.remote, .local])
    func whatDecodesEncodesBackToTheSameJSON(source: CodingSource) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let first = try encoder.encode(Member.sample, source: source)
        let decoded = try JSONDecoder().decode(Member.self, from: first, source: source)
        let second = try encoder.encode(decoded, source: source)
        #expect(decoded == Member.sample)
        #expect(second == first)
    }

    @Test func aRemotePayloadReencodesExactly() throws {
        let json =
            #"{"age":42,"created_at":"2024-05-01T12:30:00Z","id":7,"nick":"ada","status":"active","tags":["a","b"]}"#
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let member = try JSONDecoder().decode(Member.self, from: Data(json.utf8))
        #expect(String(decoding: try encoder.encode(member), as: UTF8.self) == json)
    }

    @Test func jsonValueRoundTripsThroughItsOwnTextExactly() throws {
        let json = #"{"a":[1,1.0,-0.5,true,null,"x"],"b":{"c":18446744073709551616}}"#
        #expect(try JSONValue(parsing: json).jsonString() == json)
    }

    @Test func optionalDatesFollowTheKeysStrategy() throws {
        struct Event: VariablyCodable, EmptyInitializable, Equatable {
            var endedAt: Date?
            static let keySets = KeySets<Event>(defaultSource: .remote) {
                KeySet(.remote) { Key(\.endedAt, "ended_at").dates(.millisecondsSince1970) }
            }
        }
        let event = Event(endedAt: Date(timeIntervalSince1970: 1.5))
        let data = try JSONEncoder().encode(event)
        #expect(String(decoding: data, as: UTF8.self) == #"{"ended_at":1500}"#)
        #expect(try JSONDecoder().decode(Event.self, from: data) == event)
        #expect(try JSONDecoder().decode(Event.self, from: Data(#"{"ended_at":null}"#.utf8)).endedAt == nil)
        #expect(try JSONDecoder().decode(Event.self, from: Data("{}".utf8)).endedAt == nil)
    }

    @Test func jsonEncoderStrategyWritesTheChosenFormat() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .using(.millisecondsSince1970)
        let data = try encoder.encode([Date(timeIntervalSince1970: 2)])
        #expect(String(decoding: data, as: UTF8.self) == "[2000]")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .using(.millisecondsSince1970)
        #expect(try decoder.decode([Date].self, from: data) == [Date(timeIntervalSince1970: 2)])
    }
}

@Suite struct DateListTests {
    struct Schedule: VariablyCodable, EmptyInitializable, Equatable {
        var slots: [Date] = []
        static let keySets = KeySets<Schedule>(defaultSource: .remote) {
            KeySet(.remote) { Key(\.slots, "slots").dates(.iso8601) }
            KeySet(.local) { Key(\.slots, "slots") }.dates(.millisecondsSince1970)
        }
    }

    @Test func arraysOfDatesFollowTheStrategyElementByElement() throws {
        let schedule = Schedule(slots: [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 90)])
        let remote = try JSONEncoder().encode(schedule, source: .remote)
        #expect(
            String(decoding: remote, as: UTF8.self) == #"{"slots":["1970-01-01T00:00:00Z","1970-01-01T00:01:30Z"]}"#)
        let local = try JSONEncoder().encode(schedule, source: .local)
        #expect(String(decoding: local, as: UTF8.self) == #"{"slots":[0,90000]}"#)
        #expect(try JSONDecoder().decode(Schedule.self, from: remote, source: .remote) == schedule)
        #expect(try JSONDecoder().decode(Schedule.self, from: local, source: .local) == schedule)
        let mixed = Data(#"{"slots": ["1970-01-01", 90]}"#.utf8)
        #expect(try JSONDecoder().decode(Schedule.self, from: mixed) == schedule)
    }

    @Test func aBadDateInAnArrayNamesItsIndex() throws {
        let error = try #require(throws: VariablyCodingError.self) {
            try JSONDecoder().decode(Schedule.self, from: Data(#"{"slots": ["1970-01-01", "soon"]}"#.utf8))
        }
        #expect("\(error)".hasSuffix("at slots[1]"))
    }
}
