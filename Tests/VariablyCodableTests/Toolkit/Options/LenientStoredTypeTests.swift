import Foundation
import Testing
import VariablyCodable

/// A title stored as a string through a transform, and enums stored by raw value.
private struct StoredListing: VariablyCodable, EmptyInitializable, Equatable {
    enum Priority: Int, Codable { case low = 1, high = 2 }
    enum Size: String, Codable { case small = "1", large = "2" }

    var title: [String] = []
    var priority: Priority = .low
    var size: Size = .small
    var priorities: [Priority] = []

    static let keySets = KeySets<StoredListing>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.title, "title").transform(.commaSeparated).lenient().default(
                ifMissing: ["default"], ifInvalid: ["invalid"])
            Key(\.priority, "priority").lenient()
            Key(\.size, "size").lenient()
            Key(\.priorities, "priorities").lenient().default(ifMissing: [Priority]())
        }
    }
}

/// Lenient reading applies to a transform's stored type and to enums stored by raw value.
@Suite struct LenientStoredTypeTests {
    private func decode(_ json: String, fast: Bool) throws -> (StoredListing, DecodeReport) {
        let report = DecodeReport()
        let options = DecodingOptions(report: report)
        let data = Data(json.utf8)
        if fast {
            var decoder = KeySetJSONDecoder(source: .remote)
            decoder.decodingOptions = options
            return (try decoder.decode(StoredListing.self, from: data), report)
        }
        let decoder = JSONDecoder(source: .remote)
        decoder.decodingOptions = options
        return (try decoder.decode(StoredListing.self, from: data), report)
    }

    @Test(arguments: [false, true])
    func aLenientTransformReadsItsStoredTypeLeniently(fast: Bool) throws {
        let (listing, report) = try decode(#"{"title": 5, "priority": 1, "size": "1"}"#, fast: fast)
        #expect(listing.title == ["5"])
        #expect(report.events.map(\.kind).contains(.coerced(from: "integer 5", to: "String")))
    }

    @Test(arguments: [false, true])
    func aLenientTransformStillRefusesWhatIsLossy(fast: Bool) throws {
        let (listing, _) = try decode(#"{"title": [1], "priority": 1, "size": "1"}"#, fast: fast)
        #expect(listing.title == ["invalid"])
    }

    @Test(arguments: [false, true])
    func enumsStoredByRawValueConvertLeniently(fast: Bool) throws {
        let (listing, report) = try decode(#"{"priority": "2", "size": 2, "priorities": ["1", 2]}"#, fast: fast)
        #expect(listing.priority == .high)
        #expect(listing.size == .large)
        #expect(listing.priorities == [.low, .high])
        #expect(report.events.filter { if case .coerced = $0.kind { true } else { false } }.count == 3)
    }

    @Test(arguments: [false, true])
    func aLenientEnumRefusesARawValueWithNoCase(fast: Bool) throws {
        #expect(throws: VariablyCodingError.self) { try decode(#"{"priority": "7", "size": "1"}"#, fast: fast) }
        #expect(throws: VariablyCodingError.self) { try decode(#"{"priority": "1.5", "size": "1"}"#, fast: fast) }
    }
}
