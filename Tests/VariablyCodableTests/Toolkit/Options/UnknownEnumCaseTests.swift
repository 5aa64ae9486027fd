import Foundation
import Testing
import VariablyCodable

@Suite struct UnknownEnumCaseTests {
    static let base = #"{"id": 1, "age": 1, "created_at": "2024-05-01", "tags": []"#

    @Test func anUnknownRawValueFallsBackToTheDeclaredCaseAndIsReported() throws {
        let (member, report) = try decodeReporting(Member.self, Self.base + #", "status": "banned"}"#)
        #expect(member.status == .unknown)
        #expect(report.events.map(\.kind) == [.unknownEnumCase(rawValue: #""banned""#)])
        #expect(
            "\(report.events[0])"
                == #"Member.status (remote): used the fallback case for unknown raw value "banned" at status"#)
    }

    @Test func aKnownRawValueDecodesNormally() throws {
        let (member, report) = try decodeReporting(Member.self, Self.base + #", "status": "suspended"}"#)
        #expect(member.status == .suspended)
        #expect(report.isEmpty)
    }

    @Test func aValueOfTheWrongTypeIsNotAnUnknownCase() throws {
        let error = try #require(throws: VariablyCodingError.self) {
            try decodeReporting(Member.self, Self.base + #", "status": 3}"#)
        }
        #expect(error.reason == .typeMismatch)
        #expect(error.keyPath == "\\Member.status")
    }

    @Test func strictModeRefusesUnknownCases() throws {
        let error = try #require(throws: VariablyCodingError.self) {
            try decodeReporting(Member.self, Self.base + #", "status": "banned"}"#, isStrict: true)
        }
        #expect(error.reason == .dataCorrupted)
    }

    @Test func plainEnumsFallBackThroughTheProtocol() throws {
        enum Level: String, Codable, UnknownCaseDecodable {
            case low, high, other
            static let unknownCase = Level.other
        }
        let (levels, report) = try decodeReporting([Level].self, #"["low", "extreme", "high"]"#)
        #expect(levels == [.low, .other, .high])
        #expect(report.events.map(\.kind) == [.unknownEnumCase(rawValue: "extreme")])
    }
}
