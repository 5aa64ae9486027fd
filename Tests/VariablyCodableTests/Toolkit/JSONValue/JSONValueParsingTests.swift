import Foundation
import Testing
import VariablyCodable

/// `JSONValue(parsing:)` validates as `JSONDecoder` and `KeySetJSONDecoder` do.
@Suite struct JSONValueParsingTests {
    static let invalidInputs: [(name: String, bytes: [UInt8])] = [
        ("invalid UTF-8 byte", Array(#"[""#.utf8) + [0xFF] + Array(#""]"#.utf8)),
        ("overlong slash", Array(#"[""#.utf8) + [0xC0, 0xAF] + Array(#""]"#.utf8)),
        ("overlong three-byte NUL", Array(#"[""#.utf8) + [0xE0, 0x80, 0x80] + Array(#""]"#.utf8)),
        ("encoded surrogate", Array(#"[""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""]"#.utf8)),
        ("beyond U+10FFFF", Array(#"[""#.utf8) + [0xF4, 0x90, 0x80, 0x80] + Array(#""]"#.utf8)),
        ("truncated sequence", Array(#"[""#.utf8) + [0xE2, 0x82] + Array(#""]"#.utf8)),
        ("lone high surrogate escape", Array(#"["\uD800"]"#.utf8)),
        ("lone low surrogate escape", Array(#"["\uDC00"]"#.utf8)),
        ("high surrogate then letter", Array(#"["\uD800a"]"#.utf8)),
        ("high surrogate then non-low escape", Array(#"["\uD800\u0041"]"#.utf8)),
        ("invalid UTF-8 in a key", Array(#"{""#.utf8) + [0xC3] + Array(#"": 1}"#.utf8)),
    ]

    @Test(arguments: invalidInputs.map(\.name))
    func invalidTextIsRefusedAsJSONDecoderRefusesIt(name: String) throws {
        let data = Data(try #require(Self.invalidInputs.first { $0.name == name }).bytes)
        #expect(throws: DecodingError.self) { try JSONValue(parsing: data) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONValue.self, from: data) }
        #expect(throws: DecodingError.self) { try KeySetJSONDecoder().decode(JSONValue.self, from: data) }
    }

    @Test func validEscapesAndMultiByteTextDecodeExactly() throws {
        let value = try JSONValue(parsing: #"["\u00e9\uD83D\uDE00\n\/", "é😀", {"\u0041": null}]"#)
        #expect(value == ["é😀\n/", "é😀", ["A": nil]])
    }

    /// 800,000 escapes, once quadratic: the content must come out exactly (speed is for benchmarks).
    @Test func manyEscapesDecodeExactly() throws {
        let count = 800_000
        let text = "\"" + String(repeating: #"\u00e9"#, count: count) + "\""
        let value = try JSONValue(parsing: text)
        #expect(value.stringValue?.count == count)
        #expect(value.stringValue?.unicodeScalars.allSatisfy { $0 == "\u{E9}" } == true)
    }

    @Test func errorsNameWhereTheTextWentWrong() {
        let error = #expect(throws: DecodingError.self) { try JSONValue(parsing: "[1, ]") }
        guard case .dataCorrupted(let context) = error else { return }
        #expect(context.debugDescription.contains("at byte 4"))
    }
}
