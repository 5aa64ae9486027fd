import Foundation
import Testing
import VariablyCodable

/// The strict RFC 8259 parser behind `KeySetJSONDecoder`: what it accepts, what it refuses and why.
@Suite struct FastJSONParserTests {
    private func syntaxError(_ bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            _ = try KeySetJSONDecoder().decode(JSONValue.self, from: Data(bytes))
            return nil
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.isEmpty)
            return context.underlyingError as? JSONSyntaxError
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    private func syntaxError(_ text: String) -> JSONSyntaxError? { syntaxError(Array(text.utf8)) }

    static let validDocuments = [
        "0", "-0", "1.5e-3", "-12.25E+2", "true", "false", "null", #""""#, #""a\"b\\c\/d\b\f\n\r\t""#, "[]", "{}",
        " \t\r\n[ 1 , 2 ]\n", #"{"a":{"b":[{"c":null}]}}"#, #""\u00e9\u00E9\ud83d\ude00""#, #""é日本🎉""#,
        "[1e308, 5e-324, 123456789012345678901234567890]", #"{"a":1,"a":2}"#, #"["\u0000"]"#, #"["\u2028\u2029"]"#,
    ]

    @Test(arguments: validDocuments)
    func acceptsValidDocumentsAsFoundationDoes(_ json: String) throws {
        let fast = try KeySetJSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        let foundation = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        #expect(fast == foundation)
    }

    static let invalidDocuments: [(String, JSONSyntaxError.Reason)] = [
        ("", .unexpectedEnd),
        ("   ", .unexpectedEnd),
        ("[1, 2", .unexpectedEnd),
        ("{\"a\":", .unexpectedEnd),
        ("\"abc", .unexpectedEnd),
        ("tru", .unexpectedEnd),
        ("[1] x", .trailingCharacters),
        ("{} {}", .trailingCharacters),
        ("[1,]", .unexpectedCharacter(UInt8(ascii: "]"))),
        ("{\"a\":1,}", .unexpectedCharacter(UInt8(ascii: "}"))),
        ("[1 2]", .unexpectedCharacter(UInt8(ascii: "2"))),
        ("{\"a\" 1}", .unexpectedCharacter(UInt8(ascii: "1"))),
        ("{a:1}", .unexpectedCharacter(UInt8(ascii: "a"))),
        ("['a']", .unexpectedCharacter(UInt8(ascii: "'"))),
        ("nul", .unexpectedEnd),
        ("nulL", .unexpectedCharacter(UInt8(ascii: "L"))),
        ("True", .unexpectedCharacter(UInt8(ascii: "T"))),
        ("01", .trailingCharacters),
        ("[01]", .unexpectedCharacter(UInt8(ascii: "1"))),
        ("1.", .unexpectedEnd),
        ("[1.]", .invalidNumber),
        ("[.5]", .unexpectedCharacter(UInt8(ascii: "."))),
        ("[-]", .invalidNumber),
        ("[1e]", .invalidNumber),
        ("[1e+]", .invalidNumber),
        ("[+1]", .unexpectedCharacter(UInt8(ascii: "+"))),
        ("[NaN]", .unexpectedCharacter(UInt8(ascii: "N"))),
        ("[0x10]", .unexpectedCharacter(UInt8(ascii: "x"))),
        (#"["a\x"]"#, .invalidEscape),
        (#"["\u12"]"#, .invalidEscape),
        (#"["\u12G4"]"#, .invalidEscape),
        (#"["\ud800"]"#, .loneSurrogate),
        (#"["\ud800\u0041"]"#, .loneSurrogate),
        (#"["\udc00"]"#, .loneSurrogate),
        (#"["\ud800\ud800"]"#, .loneSurrogate),
        ("[\"a\tb\"]", .unescapedControlCharacter),
        ("[\"a\nb\"]", .unescapedControlCharacter),
        ("[\"\u{1}\"]", .unescapedControlCharacter),
        ("[1]\u{0}", .trailingCharacters),
        ("\u{C}[1]", .unexpectedCharacter(0x0C)),
    ]

    @Test(arguments: invalidDocuments)
    func refusesInvalidDocumentsWithTheirReason(_ json: String, _ reason: JSONSyntaxError.Reason) {
        #expect(syntaxError(json)?.reason == reason, "\(json.debugDescription)")
    }

    static let invalidUTF8: [[UInt8]] = [
        [0x22, 0xC0, 0x80, 0x22],  // overlong NUL
        [0x22, 0xC1, 0xBF, 0x22],  // overlong
        [0x22, 0xE0, 0x80, 0x80, 0x22],  // overlong three-byte
        [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-16 surrogate encoded in UTF-8
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // beyond U+10FFFF
        [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22],
        [0x22, 0xFF, 0x22],
        [0x22, 0x80, 0x22],  // lone continuation byte
        [0x22, 0xE2, 0x82, 0x22],  // truncated sequence
        [0x22, 0xF0, 0x9F, 0x98, 0x22],
        [0x5B, 0x22, 0x61, 0x22, 0x2C, 0x22, 0xC3, 0x22, 0x5D],
    ]

    @Test(arguments: invalidUTF8)
    func refusesInvalidUTF8InStrings(_ bytes: [UInt8]) {
        #expect(syntaxError(bytes)?.reason == .invalidUTF8)
    }

    @Test func refusesInvalidUTF8InKeysEvenWhenUnused() {
        let bytes = Array(#"{"id":1,"user_name":"a","x"#.utf8) + [0xC3, 0x28] + Array(#"":1}"#.utf8)
        #expect(syntaxError(bytes)?.reason == .invalidUTF8)
    }

    @Test func acceptsValidMultibyteUTF8() throws {
        let text = "aé\u{7FF}\u{800}日\u{FFFF}\u{10000}🎉\u{10FFFF}z"
        let value = try KeySetJSONDecoder().decode(String.self, from: Data(("\"" + text + "\"").utf8))
        #expect(value == text)
    }

    @Test func limitsNestingDepthAsFoundationDoes() throws {
        let limit = 512
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try KeySetJSONDecoder().decode(JSONValue.self, from: Data(deepest.utf8)) }
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(syntaxError(tooDeep)?.reason == .tooDeep(limit: limit))
        let objects = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(syntaxError(objects)?.reason == .tooDeep(limit: limit))
        // Far beyond the limit, the parser fails cleanly instead of exhausting the stack.
        #expect(syntaxError(String(repeating: "[", count: 1_000_000))?.reason == .tooDeep(limit: limit))
    }

    @Test func aLowerDepthLimitIsHonoured() {
        var decoder = KeySetJSONDecoder()
        decoder.maximumDepth = 2
        #expect(throws: Never.self) { try decoder.decode([[Int]].self, from: Data("[[1]]".utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode([[[Int]]].self, from: Data("[[[1]]]".utf8)) }
        // A higher limit counts as 512: the parser's recursion stays bounded.
        decoder.maximumDepth = 1_000_000
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(throws: DecodingError.self) { try decoder.decode(JSONValue.self, from: Data(tooDeep.utf8)) }
    }

    @Test func reportsTheOffsetOfTheOffendingByte() {
        #expect(syntaxError("[1, 2, x]")?.offset == 7)
        #expect(syntaxError(#"{"a": "b\q"}"#)?.offset == 8)
        #expect(syntaxError("[1] 2")?.offset == 4)
        #expect(syntaxError("[1]  \n [")?.description == "characters after the top-level value at byte 7")
    }

    @Test func skipsAUTF8ByteOrderMarkAndReadsUTF16() throws {
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data("[1]".utf8)
        #expect(try KeySetJSONDecoder().decode([Int].self, from: bom) == [1])
        let utf16 = "{\"a\":\"é\"}".data(using: .utf16LittleEndian)!
        #expect(try KeySetJSONDecoder().decode([String: String].self, from: utf16) == ["a": "é"])
        let utf16WithBOM = "[\"日本\"]".data(using: .utf16)!
        #expect(try KeySetJSONDecoder().decode([String].self, from: utf16WithBOM) == ["日本"])
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let json = #"["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u65E5\uD83C\uDF89", "a\u0000b"]"#
        let strings = try KeySetJSONDecoder().decode([String].self, from: Data(json.utf8))
        #expect(strings == ["\"\\/\u{8}\u{C}\n\r\t", "Aé日🎉", "a\u{0}b"])
    }

    @Test func readsExactIntegersAtTheLimitsOfTheirTypes() throws {
        let decoder = KeySetJSONDecoder()
        #expect(
            try decoder.decode([Int64].self, from: Data("[9223372036854775807,-9223372036854775808]".utf8)) == [
                .max, .min,
            ])
        #expect(try decoder.decode([UInt64].self, from: Data("[18446744073709551615, 0, -0]".utf8)) == [.max, 0, 0])
        #expect(try decoder.decode([Int8].self, from: Data("[127,-128, 1.0, 1e1]".utf8)) == [127, -128, 1, 10])
        for json in [
            "[9223372036854775808]", "[-9223372036854775809]", "[1.5]", "[1e400]", "[123456789012345678901234]",
        ] {
            #expect(throws: DecodingError.self) { try decoder.decode([Int64].self, from: Data(json.utf8)) }
        }
        #expect(throws: DecodingError.self) {
            try decoder.decode([UInt64].self, from: Data("[18446744073709551616]".utf8))
        }
        #expect(throws: DecodingError.self) { try decoder.decode([UInt8].self, from: Data("[256]".utf8)) }
    }

    @Test func roundsDoublesCorrectly() throws {
        let texts = [
            "0.1", "0.30000000000000004", "1.7976931348623157e308", "5e-324", "2.2250738585072014e-308",
            "2.2250738585072011e-308", "9007199254740993", "123456789012345678901234567890",
            "1.00000000000000011102230246251565404236316680908203125",
            "7.2057594037927933e16", "4.9406564584124654e-324", "0.000000000000000000000000000001234", "-0.0",
        ]
        let json = "[" + texts.joined(separator: ",") + "]"
        let values = try KeySetJSONDecoder().decode([Double].self, from: Data(json.utf8))
        #expect(values.map(\.bitPattern) == texts.map { Double($0)!.bitPattern })
    }

    @Test func refusesNumbersThatOverflowOrUnderflowAsFoundationDoes() throws {
        for text in ["1e309", "-1e400", "1e-400", "2e-324"] {
            do {
                _ = try KeySetJSONDecoder().decode([Double].self, from: Data("[\(text)]".utf8))
                Issue.record("\(text) decoded")
            } catch DecodingError.dataCorrupted(let context) {
                #expect(context.codingPath.isEmpty)
                #expect((context.underlyingError as? UnrepresentableJSONNumberError)?.text == text)
            } catch {
                Issue.record("unexpected \(error)")
            }
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode([Double].self, from: Data("[\(text)]".utf8))
            }
        }
        #expect(throws: DecodingError.self) { try KeySetJSONDecoder().decode([Float].self, from: Data("[1e39]".utf8)) }
        #expect(try KeySetJSONDecoder().decode([Double].self, from: Data("[0e999, -0e-999]".utf8)) == [0, 0])
    }
}
