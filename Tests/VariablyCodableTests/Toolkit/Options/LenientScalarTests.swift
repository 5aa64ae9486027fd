import Foundation
import Testing
import VariablyCodable

/// Every scalar kind, leniently decoded per key.
struct Scalars: VariablyCodable, EmptyInitializable, Equatable {
    var int = 0
    var double = 0.0
    var bool = false
    var string = ""
    var small: UInt8 = 0

    static let keySets = KeySets<Scalars>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.int, "int")
            Key(\.double, "double")
            Key(\.bool, "bool")
            Key(\.string, "string")
            Key(\.small, "small")
        }
        .lenient()
        KeySet(.local) {
            Key(\.int, "int")
            Key(\.double, "double")
            Key(\.bool, "bool")
            Key(\.string, "string")
            Key(\.small, "small")
        }
    }
}

extension Scalars {
    /// A payload with plain values, except `field`, which holds `json`.
    static func json(_ field: String, _ json: String) -> String {
        let plain = ["int": "0", "double": "0.5", "bool": "false", "string": #""s""#, "small": "0"]
        let members = plain.keys.sorted().map { key in #""\#(key)": \#(key == field ? json : plain[key]!)"# }
        return "{" + members.joined(separator: ", ") + "}"
    }
}

@Suite struct LenientScalarTests {
    @Test(arguments: [
        (#""42""#, JSONValue.int(42)), ("42", .int(42)), ("2.0", .int(2)), (#""-7""#, .int(-7)),
    ])
    func integersAcceptExactNumbersAndIntegerStrings(json: String, expected: JSONValue) throws {
        let scalars = try decode("int", json)
        #expect(JSONValue.int(Int64(scalars.int)) == expected)
    }

    @Test(arguments: ["1.5", #""1.5""#, #"" 42""#, "true", #""forty""#])
    func integersRefuseLossyOrMeaninglessValues(json: String) throws {
        let error = try #require(throws: VariablyCodingError.self) { try decode("int", json) }
        #expect(error.reason == .typeMismatch)
        #expect(error.keyPath == "\\Scalars.int")
        #expect("\(error)".contains("Cannot convert"))
    }

    @Test func outOfRangeIntegersAreRefused() throws {
        #expect(throws: VariablyCodingError.self) { try decode("small", "256") }
        #expect(try decode("small", #""255""#).small == 255)
    }

    @Test(
        arguments: [("true", true), ("false", false), ("0", false), ("1", true)]
            + [
                "true", "TRUE", "yes", "Yes", "1",
            ].map { (#""\#($0)""#, true) } + ["false", "False", "NO", "no", "0"].map { (#""\#($0)""#, false) })
    func boolsAcceptZeroOneAndWordsInAnyCase(json: String, expected: Bool) throws {
        #expect(try decode("bool", json).bool == expected)
    }

    @Test(arguments: [#""2""#, "2", #""y""#, #""on""#])
    func boolsRefuseEverythingElse(json: String) throws {
        #expect(throws: VariablyCodingError.self) { try decode("bool", json) }
    }

    @Test(arguments: [("42", "42"), ("3.5", "3.5"), ("true", "true"), (#""x""#, "x")])
    func stringsAcceptNumbersAndBools(json: String, expected: String) throws {
        #expect(try decode("string", json).string == expected)
    }

    @Test(arguments: [(#""3.5""#, 3.5), ("3", 3.0), (#""1e3""#, 1000.0)])
    func doublesAcceptNumericStrings(json: String, expected: Double) throws {
        #expect(try decode("double", json).double == expected)
    }

    @Test(arguments: [#""nan""#, #""inf""#, #""3.5kg""#])
    func doublesRefuseNonFiniteAndNonNumericStrings(json: String) throws {
        #expect(throws: VariablyCodingError.self) { try decode("double", json) }
    }

    @Test func theConversionTableHoldsOnJSONValues() {
        #expect(Int.lenientValue(from: "+7")?.value == 7)
        #expect(Int.lenientValue(from: .bigInteger("18446744073709551616")) == nil)
        #expect(UInt64.lenientValue(from: .bigInteger("18446744073709551615"))?.value == .max)
        #expect(Int.lenientValue(from: .bool(true)) == nil)
        #expect(Double.lenientValue(from: .int(9_007_199_254_740_993)) == nil)
        #expect(Double.lenientValue(from: .bigInteger("18446744073709551616")) == nil)
        #expect(Bool.lenientValue(from: .double(0.5)) == nil)
        #expect(Bool.lenientValue(from: "No")?.value == false)
        #expect(String.lenientValue(from: [1]) == nil)
        #expect(String.lenientValue(from: .bigInteger("18446744073709551616"))?.value == "18446744073709551616")
        #expect(Float.lenientValue(from: "0.5")?.value == 0.5)
    }

    @Test func coercionsAreReportedWithTheirSourceAndKind() throws {
        let (_, report) = try decodeReporting(Scalars.self, Scalars.json("int", #""42""#))
        #expect(report.events.map(\.kind) == [.coerced(from: #"string "42""#, to: "Int")])
        #expect("\(report.events[0])" == #"Scalars.int (remote): coerced string "42" to Int at int"#)
    }

    @Test func aSourceWithoutLenienceStaysStrictAboutTypes() throws {
        #expect(throws: VariablyCodingError.self) {
            try JSONDecoder().decode(Scalars.self, from: Data(Scalars.json("int", #""42""#).utf8), source: .local)
        }
    }

    @Test func theDecoderCanMakeEverySourceLenient() throws {
        let (scalars, report) = try decodeReporting(
            Scalars.self, Scalars.json("int", #""42""#), source: .local, isLenient: true)
        #expect(scalars.int == 42)
        #expect(report.events.count == 1)
    }

    @Test func decoderWideLenienceWorksWithKeySetJSONDecoderToo() throws {
        let report = DecodeReport()
        var decoder = KeySetJSONDecoder(source: .local)
        decoder.decodingOptions = DecodingOptions(isLenient: true, report: report)
        let scalars = try decoder.decode(Scalars.self, from: Data(Scalars.json("bool", #""yes""#).utf8))
        #expect(scalars.bool)
        #expect(report.events.map(\.kind) == [.coerced(from: #"string "yes""#, to: "Bool")])
    }

    @Test func strictModeRefusesCoercions() throws {
        let error = try #require(throws: VariablyCodingError.self) {
            try decodeReporting(Scalars.self, Scalars.json("int", #""42""#), isStrict: true)
        }
        #expect(error.reason == .typeMismatch)
        #expect("\(error)".contains("refused to coerce"))
    }

    /// Decodes a `Scalars` whose `field` holds `json` and whose other fields are plain.
    private func decode(_ field: String, _ json: String) throws -> Scalars {
        try JSONDecoder().decode(Scalars.self, from: Data(Scalars.json(field, json).utf8))
    }
}

@Suite struct LenientPropertyWrapperTests {
    struct Product: Codable, Equatable {
        @Lenient var stock: Int
        @Lenient var isActive: Bool
        @Lenient var code: String
    }

    @Test func lenientWrapperConvertsExactlyInPlainCodable() throws {
        let (product, report) = try decodeReporting(Product.self, #"{"stock": "12", "isActive": "yes", "code": 7}"#)
        #expect(product == Product(stock: 12, isActive: true, code: "7"))
        #expect(
            report.events.map(\.kind) == [
                .coerced(from: #"string "12""#, to: "Int"), .coerced(from: #"string "yes""#, to: "Bool"),
                .coerced(from: "integer 7", to: "String"),
            ])
        #expect(
            report.events.map { VariablyCodingError.renderForTests($0.codingPath) } == ["stock", "isActive", "code"])
    }

    @Test func lenientWrapperRefusesLossyValuesWithTheirCodingPath() throws {
        do {
            _ = try JSONDecoder().decode(
                [Product].self, from: Data(#"[{"stock": 1.5, "isActive": true, "code": "a"}]"#.utf8))
            Issue.record("expected an error")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["Index 0", "stock"])
            #expect(context.debugDescription == "Cannot convert number 1.5 to Int without loss.")
        }
    }

    @Test func lenientWrapperEncodesThePlainValue() throws {
        let product = Product(stock: 3, isActive: false, code: "x")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(
            String(decoding: try encoder.encode(product), as: UTF8.self) == #"{"code":"x","isActive":false,"stock":3}"#)
    }
}

@Suite struct LenientCollectionTests {
    struct Counts: VariablyCodable, EmptyInitializable, Equatable {
        var ids: [Int] = []
        var flags: [String: Bool] = [:]
        static let keySets = KeySets<Counts>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.ids, "ids").lenient().elements(.remove)
                Key(\.flags, "flags").lenient()
            }
        }
    }

    @Test func eachElementConvertsLenientlyAndThePolicyHandlesTheRest() throws {
        let json = #"{"ids": ["1", 2, "x", null, 4], "flags": {"a": "yes"}}"#
        let (counts, report) = try decodeReporting(Counts.self, json)
        #expect(counts.ids == [1, 2, 4])
        #expect(counts.flags == ["a": true])
        #expect(
            report.events.map(\.kind) == [
                .coerced(from: #"string "1""#, to: "Int"), .elementRemoved, .elementRemoved,
                .coerced(from: #"string "yes""#, to: "Bool"),
            ])
        #expect(
            report.events.map { VariablyCodingError.renderForTests($0.codingPath) } == [
                "ids[0]", "ids[2]", "ids[3]", "flags.a",
            ])
    }

    @Test func withoutAPolicyAnUnconvertibleElementFailsWithItsPath() throws {
        let error = try #require(throws: VariablyCodingError.self) {
            try JSONDecoder().decode(Counts.self, from: Data(#"{"ids": [], "flags": {"a": "maybe"}}"#.utf8))
        }
        #expect(error.reason == .typeMismatch)
        #expect("\(error)".hasSuffix("at flags.a"))
    }
}

@Suite struct LenientPropertyListTests {
    @Test func lenientDecodingWorksThroughPropertyLists() throws {
        let object: [String: Any] = ["int": "42", "double": 1, "bool": 1, "string": 7, "small": "8"]
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let report = DecodeReport()
        let decoder = PropertyListDecoder()
        decoder.decodingOptions = DecodingOptions(isLenient: true, report: report)
        let scalars = try decoder.decode(Scalars.self, from: data, source: .local)
        #expect(scalars.int == 42)
        #expect(scalars.double == 1)
        #expect(scalars.bool == true)
        #expect(scalars.string == "7")
        #expect(scalars.small == 8)
        #expect(report.events.count == 4)
    }
}
