import Foundation
import Testing
import VariablyCodable

@Suite struct DecodeReportTests {
    @Test func everyRecoveryIsRecordedWithSourceKeyPathAndCodingPath() throws {
        let json = #"""
            [{"id": "7", "created_at": "2024-05-01", "tags": ["a", 2], "status": "gone"}]
            """#
        let (members, report) = try decodeReporting([Member].self, json)
        #expect(members.count == 1)
        #expect(
            report.events.map(\.kind) == [
                .coerced(from: #"string "7""#, to: "Int64"), .defaultUsed(.missing), .elementRemoved,
                .unknownEnumCase(rawValue: #""gone""#),
            ])
        #expect(report.events.map(\.keyPath) == ["\\Member.id", "\\Member.age", "\\Member.tags", "\\Member.status"])
        #expect(report.events.allSatisfy { $0.source == .remote && $0.modelType == "Member" })
        #expect(
            report.events.map { VariablyCodingError.renderForTests($0.codingPath) } == [
                "[0].id", "[0].age", "[0].tags[1]", "[0].status",
            ])
        #expect(report.events[1].description == "Member.age (remote): used the default for a missing value at [0].age")
        #expect(
            report.events[2].description.hasPrefix(
                "Member.tags (remote): removed an element that failed to decode at [0].tags[1] ("))
        #expect(report.events[2].detail?.contains("Expected to decode String but found number") == true)
    }

    @Test func aCleanPayloadLeavesTheReportEmpty() throws {
        let data = try JSONEncoder().encode([Member.sample])
        let (_, report) = try decodeReporting([Member].self, String(decoding: data, as: UTF8.self))
        #expect(report.isEmpty)
    }

    @Test func aStrictSourceRefusesWhatALenientOneRecords() throws {
        // The local source is declared `.strict()`: its cache must be exactly what we wrote.
        let local = try toolkitObject(JSONEncoder().encode(Member.sample, source: .local))
        var broken = local
        broken["age"] = "42"
        let data = try JSONSerialization.data(withJSONObject: broken)
        #expect(throws: Never.self) {
            try JSONDecoder().decode(Member.self, from: JSONSerialization.data(withJSONObject: local), source: .local)
        }
        #expect(throws: VariablyCodingError.self) { try JSONDecoder().decode(Member.self, from: data, source: .local) }
    }

    @Test func reportsAreSafeToShareAcrossConcurrentDecodes() async throws {
        let report = DecodeReport()
        let json = Data(#"{"id": 1, "created_at": 0, "tags": [], "status": "active"}"#.utf8)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let decoder = JSONDecoder()
                    decoder.decodingOptions.report = report
                    _ = try decoder.decode(Member.self, from: json)
                }
            }
            try await group.waitForAll()
        }
        #expect(report.events.count == 20)
    }
}
