import Foundation
import Testing
import VariablyCodable

// The same bytes through Foundation's JSONDecoder, KeySetJSONDecoder and (for the same content)
// PropertyListDecoder give the same model and the same report, in the same order on every run.

private struct Readings: VariablyCodable, EmptyInitializable, Equatable {
    var values: [Double] = []
    var times: [Date] = []

    static let keySets = KeySets<Readings>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.values, "values").lenient()
            Key(\.times, "times").dates(.flexible)
        }
    }
}

private struct Scores: VariablyCodable, EmptyInitializable, Equatable {
    var byName: [String: Int] = [:]

    static let keySets = KeySets<Scores>(defaultSource: .remote) {
        KeySet(.remote) { Key(\.byName, "scores").elements(.remove) }
    }
}

@Suite struct BackendAgreementTests {
    static func decodeEverywhere<Model: VariablyCodable & Equatable>(
        _ type: Model.Type, json: String, report: () -> DecodeReport? = { nil }
    ) throws -> [(Model, [String])] {
        let data = Data(json.utf8)
        let object = try JSONSerialization.jsonObject(with: data)
        let plist = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        var results: [(Model, [String])] = []
        let foundation = JSONDecoder()
        let fast = KeySetJSONDecoder(source: .remote)
        let propertyList = PropertyListDecoder()
        for path in 0..<3 {
            let events = report()
            let options = DecodingOptions(report: events)
            let model: Model
            switch path {
            case 0:
                foundation.decodingOptions = options
                model = try foundation.decode(Model.self, from: data, source: .remote)
            case 1:
                var decoder = fast
                decoder.decodingOptions = options
                model = try decoder.decode(Model.self, from: data)
            default:
                propertyList.decodingOptions = options
                model = try propertyList.decode(Model.self, from: plist, source: .remote)
            }
            results.append((model, events?.events.map(\.description) ?? []))
        }
        return results
    }

    @Test func wholeFloatsBeyondInt64ReadAsDatesOnEveryPath() throws {
        let results = try Self.decodeEverywhere(Readings.self, json: #"{"values": ["2"], "times": [1e20, 2.5e19]}"#)
        for (model, _) in results {
            #expect(model.values == [2])
            #expect(model.times.count == 2)
        }
        #expect(results[0].0 == results[1].0 && results[1].0 == results[2].0)
    }

    @Test func dictionaryMembersAreReportedInKeyOrderOnEveryPathAndRun() throws {
        let members = (0..<8).map { #""k\#($0)": "bad""# } + [#""ok": 1"#]
        let json = #"{"scores": {"# + members.joined(separator: ", ") + "}}"
        var orders: Set<[String]> = []
        for _ in 0..<5 {
            for (model, events) in try Self.decodeEverywhere(Scores.self, json: json, report: { DecodeReport() }) {
                #expect(model.byName == ["ok": 1])
                #expect(events.count == 8)
                orders.insert(events)
            }
        }
        #expect(orders.count == 1, "\(orders.count) different orders")
        let order = try #require(orders.first)
        #expect(order.first?.contains("k0") == true && order.last?.contains("k7") == true)
    }
}

private struct Pet: VariablyCodable, Equatable {
    var age = 0
    var name = ""
    init(age: Int, name: String) { (self.age, self.name) = (age, name) }
    init(from container: DecodingContainer<Pet>) throws {
        age = try container.decode(\.age)
        name = try container.decode(\.name)
    }
    static let keySets = KeySets<Pet>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.age, "age").default(ifMissing: 0, ifInvalid: -1)
            Key(\.name, "name")
        }
    }
}

private struct Owner: VariablyCodable, Equatable {
    var favorite = Pet(age: 0, name: "")
    var others: [Pet] = []
    init(from container: DecodingContainer<Owner>) throws {
        favorite = try container.decode(\.favorite)
        others = try container.decode(\.others)
    }
    static let keySets = KeySets<Owner>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.favorite, "favorite").default(ifInvalid: Pet(age: 99, name: "default"))
            Key(\.others, "others").elements(.remove)
        }
    }
}

@Suite struct NestedReportTests {
    /// A nested model is decoded once more after a plain attempt fails; what that attempt recorded is
    /// dropped, so every recovery is recorded once.
    @Test func aNestedModelsEventsAreRecordedOnceOnEveryPath() throws {
        let replaced = try BackendAgreementTests.decodeEverywhere(
            Owner.self, json: #"{"favorite": {"age": "x"}, "others": []}"#, report: { DecodeReport() })
        for (owner, events) in replaced {
            #expect(owner.favorite == Pet(age: 99, name: "default"))
            #expect(events.count == 2, "\(events)")
            #expect(events.filter { $0.contains("Pet.age") }.count == 1)
        }
        let filtered = try BackendAgreementTests.decodeEverywhere(
            Owner.self, json: #"{"favorite": {"name": "f"}, "others": [{"age": "x", "name": "a"}, {"age": 1}]}"#,
            report: { DecodeReport() })
        for (owner, events) in filtered {
            #expect(owner.others == [Pet(age: -1, name: "a")])
            #expect(events.count == 3, "\(events)")
        }
    }
}
