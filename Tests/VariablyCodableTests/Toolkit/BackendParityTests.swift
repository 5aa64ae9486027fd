import Foundation
import Testing
import VariablyCodable

/// The toolkit's options are applied by `DecodingContainer`, so every backend gets them: Foundation's
/// `JSONDecoder` and the package's own `KeySetJSONDecoder` must give the same values and reports.
@Suite struct BackendParityTests {
    static let messy = #"""
        [{"id": "7", "created_at": "2024-05-01T14:30:00+02:00", "tags": ["a", 2, "c"], "status": "gone", "age": null},
         {"id": 8, "created_at": 1714566600000, "tags": [], "status": "active", "age": "x"}]
        """#

    @Test func bothDecodersApplyTheSameOptionsAndReportTheSameEvents() throws {
        let (foundation, foundationReport) = try decodeReporting([Member].self, Self.messy)
        let report = DecodeReport()
        var decoder = KeySetJSONDecoder(source: .remote)
        decoder.decodingOptions = DecodingOptions(report: report)
        let fast = try decoder.decode([Member].self, from: Data(Self.messy.utf8))
        #expect(fast == foundation)
        #expect(fast.map(\.age) == [0, -1])
        #expect(fast[0].tags == ["a", "c"])
        #expect(fast[0].status == .unknown)
        #expect(report.events.map(\.kind) == foundationReport.events.map(\.kind))
        #expect(
            report.events.map { VariablyCodingError.renderForTests($0.codingPath) }
                == foundationReport.events.map { VariablyCodingError.renderForTests($0.codingPath) })
    }

    @Test func bothDecodersRefuseTheSameThingsInStrictMode() throws {
        var decoder = KeySetJSONDecoder(source: .remote)
        decoder.decodingOptions = DecodingOptions(isStrict: true)
        let fastError = try #require(throws: VariablyCodingError.self) {
            try decoder.decode([Member].self, from: Data(Self.messy.utf8))
        }
        let foundationError = try #require(throws: VariablyCodingError.self) {
            try decodeReporting([Member].self, Self.messy, isStrict: true)
        }
        #expect("\(fastError)" == "\(foundationError)")
    }
}
