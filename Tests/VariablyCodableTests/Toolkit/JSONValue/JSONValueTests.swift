import Foundation
import Testing
import VariablyCodable

@Suite struct JSONValueTests {
    @Test func literalsAndSubscriptsReadNaturally() {
        let value: JSONValue = ["id": 1, "tags": ["a", "b"], "nickname": nil, "score": 2.5, "ok": true]
        #expect(value["tags"]?[0] == "a")
        #expect(value["id"]?.intValue == 1)
        #expect(value["nickname"]?.isNull == true)
        #expect(value["score"]?.doubleValue == 2.5)
        #expect(value["ok"]?.boolValue == true)
        #expect(value["missing"] == nil)
        #expect(value["tags"]?[5] == nil)
    }

    @Test func parsingKeepsBoolIntDoubleBigIntegerAndNullApart() throws {
        let text =
            #"{"t": true, "one": 1, "onePointZero": 1.0, "exp": 1e2, "big": 123456789012345678901234567890, "u64": 18446744073709551615, "null": null, "list": [null, 0]}"#
        let value = try JSONValue(parsing: text)
        #expect(value["t"] == .bool(true))
        #expect(value["one"] == .int(1))
        #expect(value["onePointZero"] == .double(1.0))
        #expect(value["exp"] == .double(100))
        #expect(value["big"] == .bigInteger("123456789012345678901234567890"))
        #expect(value["u64"] == .bigInteger("18446744073709551615"))
        #expect(value["null"] == .null)
        #expect(value["list"] == [nil, 0])
    }

    @Test func writingKeepsFloatingValuesAndBigIntegersExact() throws {
        let text = #"{"big":123456789012345678901234567890,"f":1.0,"i":1,"n":null,"s":"a\"b","t":true}"#
        #expect(try JSONValue(parsing: text).jsonString() == text)
    }

    @Test(arguments: ["{", "[1,]", "01", "\"\\x\"", "tru", "1 2"])
    func malformedTextIsRefusedWithItsOffset(text: String) {
        #expect(throws: DecodingError.self) { try JSONValue(parsing: text) }
    }

    @Test func codableRoundTripKeepsKindsAndNulls() throws {
        let value: JSONValue = [
            "a": [true, 1, 2.5, "x", nil], "b": ["c": nil], "big": .bigInteger("18446744073709551616"),
        ]
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(decoded == value)
        #expect(decoded["a"]?[0] == .bool(true))
        #expect(decoded["a"]?[1] == .int(1))
        #expect(decoded["b"]?["c"] == .null)
    }

    @Test func decodingThroughJSONDecoderKeepsBigIntegers() throws {
        let data = Data(#"[18446744073709551615, 123456789012345678901234567890, -9223372036854775808]"#.utf8)
        let value = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(
            value == [.bigInteger("18446744073709551615"), .bigInteger("123456789012345678901234567890"), .int(.min)])
    }

    @Test func bridgingFromJSONSerializationKeepsBoolsAndIntsApartOnEveryPlatform() throws {
        let object = try JSONSerialization.jsonObject(with: Data(#"[true, 1, 1.5, 0, false, null, "s"]"#.utf8))
        let value = try #require(JSONValue(any: object))
        #expect(value == [true, 1, 1.5, 0, false, nil, "s"])
    }

    @Test func onlyJSONDecoderLosesTheFractionOfAnIntegralNumber() throws {
        // Foundation's JSONDecoder does not say whether it read `1` or `1.0` (documented limitation).
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data("[1.0]".utf8)) == [.int(1)])
        #expect(try JSONValue(parsing: "[1.0]") == [.double(1.0)])
        let object = try JSONSerialization.jsonObject(with: Data("[1.0]".utf8))
        #expect(JSONValue(any: object) == [.double(1.0)])
    }

    @Test func bridgingFromSwiftValues() throws {
        let any: [String: Any] = ["b": true, "i": 3, "d": 1.0, "s": "x", "n": NSNull(), "a": [1, "two"] as [Any]]
        let value = try #require(JSONValue(any: any))
        #expect(value == ["b": true, "i": 3, "d": 1.0, "s": "x", "n": nil, "a": [1, "two"]])
        #expect(JSONValue(any: ["date": Date()]) == nil)
    }

    @Test func bridgingToAnyGivesFoundationFriendlyTypes() throws {
        let value: JSONValue = ["b": true, "i": 3, "d": 1.0, "n": nil, "a": [1]]
        let any = try #require(value.anyValue as? [String: Any])
        #expect(any["b"] as? Bool == true)
        #expect(type(of: any["i"]!) == Int.self)
        #expect(type(of: any["d"]!) == Double.self)
        #expect(any["n"] is NSNull)
        #expect((any["a"] as? [Any])?.count == 1)
    }

    @Test func stringAnyDictionariesDecodeAndEncodeThroughContainers() throws {
        struct Event: Codable {
            var name: String
            var metadata: [String: Any]
            var extra: [Any]?
            enum CodingKeys: String, CodingKey { case name, metadata, extra }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                name = try container.decode(String.self, forKey: .name)
                metadata = try container.decode([String: Any].self, forKey: .metadata)
                extra = try container.decodeIfPresent([Any].self, forKey: .extra)
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(name, forKey: .name)
                try container.encode(metadata, forKey: .metadata)
            }
        }
        let json = #"{"name":"tap","metadata":{"count":1,"flag":true,"nothing":null,"ratio":0.5}}"#
        let event = try JSONDecoder().decode(Event.self, from: Data(json.utf8))
        #expect(event.metadata["flag"] as? Bool == true)
        #expect(type(of: event.metadata["count"]!) == Int.self)
        #expect(event.metadata["nothing"] is NSNull)
        #expect(event.extra == nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = String(decoding: try encoder.encode(event), as: UTF8.self)
        #expect(encoded == #"{"metadata":{"count":1,"flag":true,"nothing":null,"ratio":0.5},"name":"tap"}"#)
    }

    @Test func encodingANonJSONValueInAnAnyDictionaryFailsWithItsPath() throws {
        struct Bad: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyCodingKey.self)
                try container.encode(["when": Date()] as [String: Any], forKey: "meta")
            }
        }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Bad()) }
    }

    @Test func codableValuesConvertToAndFromJSONValue() throws {
        let json = try JSONValue(encoding: Member.sample)
        #expect(json["nick"] == "ada")
        #expect(json["tags"] == ["a", "b"])
        #expect(try json.decode(as: Member.self) == Member.sample)
    }
}
