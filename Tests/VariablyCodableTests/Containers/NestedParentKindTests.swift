import Foundation
import Testing
import VariablyCodable

/// A name under `data` or at the top level, with a default; and one only under `data`.
private struct Labelled: VariablyCodable, EmptyInitializable, Equatable {
    var name = ""
    var title = ""

    static let keySets = KeySets<Labelled>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.name, ["data.name", "name"]).default(ifMissing: "default")
            Key(\.title, "data.title").default(ifMissing: "untitled")
        }
    }
}

private struct Required: VariablyCodable, EmptyInitializable {
    var name = ""
    static let keySets = KeySets<Required>(defaultSource: .remote) {
        KeySet(.remote) { Key(\.name, "data.name") }
    }
}

/// A parent of the wrong kind counts as absent for that alternative; the search goes on.
@Suite struct NestedParentKindTests {
    private func decode<T: Decodable>(_ type: T.Type, _ json: String, fast: Bool) throws -> (T, DecodeReport) {
        let report = DecodeReport()
        let data = Data(json.utf8)
        if fast {
            var decoder = KeySetJSONDecoder(source: .remote)
            decoder.decodingOptions = DecodingOptions(report: report)
            return (try decoder.decode(type, from: data), report)
        }
        let decoder = JSONDecoder(source: .remote)
        decoder.decodingOptions = DecodingOptions(report: report)
        return (try decoder.decode(type, from: data), report)
    }

    @Test(arguments: [false, true])
    func theNextAlternativeIsTriedWhenAParentIsNotAnObject(fast: Bool) throws {
        let (value, _) = try decode(Labelled.self, #"{"data": "text", "name": "x"}"#, fast: fast)
        #expect(value.name == "x")
    }

    @Test(
        arguments: [
            (#"{"data": "text"}"#, #""data" is a string, not an object"#),
            (#"{"data": [1]}"#, #""data" is an array, not an object"#),
            (#"{"data": 5}"#, #""data" is a number, not an object"#),
        ], [false, true])
    func theReportSaysWhatItSawInsteadOfAnObject(input: (json: String, seen: String), fast: Bool) throws {
        let (json, seen) = input
        let (value, report) = try decode(Labelled.self, json, fast: fast)
        #expect(value == Labelled(name: "default", title: "untitled"))
        let missing = report.events.filter { $0.kind == .defaultUsed(.missing) }
        #expect(missing.count == 2)
        #expect(missing.allSatisfy { $0.detail == seen })
    }

    @Test(arguments: [false, true])
    func aRequiredKeyUnderAParentOfTheWrongKindIsNotFoundAndSaysWhy(fast: Bool) throws {
        let error = #expect(throws: VariablyCodingError.self) {
            try decode(Required.self, #"{"data": true}"#, fast: fast)
        }
        #expect(error?.keyPath == "\\Required.name")
        guard case .keyNotFound(_, let context) = error?.underlyingError as? DecodingError else {
            Issue.record("expected keyNotFound, got \(String(describing: error?.underlyingError))")
            return
        }
        #expect(context.debugDescription.contains(#""data" is a bool, not an object"#))
    }

    @Test(arguments: [false, true])
    func aMissingOrNullParentStillSaysNothingMore(fast: Bool) throws {
        for json in [#"{}"#, #"{"data": null}"#] {
            let (_, report) = try decode(Labelled.self, json, fast: fast)
            #expect(report.events.allSatisfy { $0.detail == nil })
        }
    }
}
