import Foundation
import Testing
import VariablyCodable

@Suite struct DefaultValueTests {
    static let base = #"{"id": 1, "created_at": "2024-05-01T12:30:00Z", "tags": [], "status": "active""#

    @Test(
        arguments: [
            (#", "age": 30}"#, 30, nil),
            ("}", 0, DecodeEvent.DefaultTrigger.missing),
            (#", "age": null}"#, 0, .null),
            (#", "age": "old"}"#, -1, .invalid),
            (#", "age": 1.5}"#, -1, .invalid),
        ] as [(String, Int, DecodeEvent.DefaultTrigger?)])
    func missingNullAndInvalidEachUseTheirOwnDefault(tail: String, age: Int, trigger: DecodeEvent.DefaultTrigger?)
        throws
    {
        let (account, report) = try decodeReporting(Member.self, Self.base + tail)
        #expect(account.age == age)
        if let trigger {
            #expect(report.events.map(\.kind) == [.defaultUsed(trigger)])
            #expect(report.events.first?.keyPath == "\\Member.age")
            #expect(report.events.first?.source == .remote)
        } else {
            #expect(report.isEmpty)
        }
    }

    @Test func optionalIsNilWhenMissingOrNull() throws {
        let missing = try JSONDecoder().decode(Member.self, from: Data((Self.base + "}").utf8))
        let null = try JSONDecoder().decode(Member.self, from: Data((Self.base + #", "nick": null}"#).utf8))
        #expect(missing.nickname == nil)
        #expect(null.nickname == nil)
    }

    @Test func integerLiteralDefaultsConvertToTheDeclaredIntegerType() throws {
        struct Counter: VariablyCodable, EmptyInitializable {
            var count: Int64 = 5
            var ratio: Double = 0
            static let keySets = KeySets<Counter>(defaultSource: .remote) {
                KeySet(.remote) {
                    Key(\.count, "count").default(ifMissing: 9)
                    Key(\.ratio, "ratio").default(ifNull: 1)
                }
            }
        }
        let counter = try JSONDecoder().decode(Counter.self, from: Data(#"{"ratio": null}"#.utf8))
        #expect(counter.count == 9)
        #expect(counter.ratio == 1.0)
    }

    @Test func strictModeTurnsAUsedDefaultIntoAnErrorNamingSourceKeyPathAndCodingPath() throws {
        let json = "[" + Self.base + #", "age": null}]"#
        let error = try #require(throws: VariablyCodingError.self) {
            try decodeReporting([Member].self, json, isStrict: true)
        }
        #expect(error.reason == .valueNotFound)
        #expect(error.underlyingError is DecodingError)
        #expect(error.source == .remote)
        #expect(error.keyPath == "\\Member.age")
        #expect("\(error)".hasPrefix("Member.age (remote, key \"age\"): "))
        #expect("\(error)".hasSuffix("at [0].age"))
    }

    @Test func aDefaultOfAnotherTypeIsAProblemOfTheKeySet() throws {
        struct Wrong: VariablyCodable, EmptyInitializable {
            var name = ""
            static let keySets = KeySets<Wrong>(defaultSource: .remote) {
                KeySet(.remote) { Key(\.name, "name").default(ifMissing: 3) }
            }
        }
        #expect(try optionProblem(of: Wrong.keySets).contains("ifMissing: 3 (Int) is not a String"))
    }

    @Test func anIntegerDefaultThatDoesNotFitIsAProblemInsteadOfTruncated() throws {
        struct Small: VariablyCodable, EmptyInitializable {
            var level: UInt8 = 0
            static let keySets = KeySets<Small>(defaultSource: .remote) {
                KeySet(.remote) { Key(\.level, "level").default(ifMissing: 300) }
            }
        }
        #expect(try optionProblem(of: Small.keySets).contains("ifMissing: 300 (Int) is not a UInt8"))
    }

    @Test func withoutADefaultAMissingRequiredValueStillFails() throws {
        let json = #"{"id": 1, "age": 3, "tags": [], "status": "active"}"#
        let error = try #require(throws: VariablyCodingError.self) {
            try JSONDecoder().decode(Member.self, from: Data(json.utf8))
        }
        #expect(error.reason == .keyNotFound)
        #expect(error.keyPath == "\\Member.createdAt")
        #expect("\(error)" == "Member.createdAt (remote, key \"created_at\"): key not found at top level")
    }
}

@Suite struct DefaultedPropertyWrapperTests {
    struct Settings: Codable, Equatable {
        @Defaulted<DefaultZero<Int>> var retries: Int
        @Defaulted<DefaultEmptyArray<String>> var tags: [String]
        @Defaulted<DefaultFalse> var isBeta: Bool
        var name: String
    }

    @Test func missingNullAndInvalidAllUseTheProviderAndAreToldApart() throws {
        let (settings, report) = try decodeReporting(Settings.self, #"{"tags": null, "isBeta": "maybe", "name": "n"}"#)
        #expect(settings.retries == 0)
        #expect(settings.tags == [])
        #expect(settings.isBeta == false)
        #expect(report.events.map(\.kind) == [.defaultUsed(.missing), .defaultUsed(.null), .defaultUsed(.invalid)])
        #expect(
            report.events.map { VariablyCodingError.renderForTests($0.codingPath) } == ["retries", "tags", "isBeta"])
    }

    @Test func presentValuesDecodeAndRoundTrip() throws {
        let json = #"{"isBeta":true,"name":"n","retries":3,"tags":["a"]}"#
        let settings = try JSONDecoder().decode(Settings.self, from: Data(json.utf8))
        #expect(settings.retries == 3 && settings.tags == ["a"] && settings.isBeta)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(settings), as: UTF8.self) == json)
    }

    @Test func strictModeRefusesDefaults() throws {
        #expect(throws: DecodingError.self) {
            try decodeReporting(Settings.self, #"{"name": "n", "tags": [], "isBeta": false}"#, isStrict: true)
        }
    }
}
