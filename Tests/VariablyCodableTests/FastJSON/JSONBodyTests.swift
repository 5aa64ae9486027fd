import Foundation
import Testing

@testable import VariablyCodable

/// The slicing of records out of a page, which the sync layer and the simulated server share.
@Suite struct JSONBodyTests {
    @Test func recordsAreTheServersBytesAndTheFirstOfDuplicateMembersWins() throws {
        let body = try JSONBody(
            Data(
                #"{"next_cursor": "x", "r\u0065cords" : [ {"a": "]}\"", "a": 2}, [ ] ] , "records": [], "deep": [[[[{}]]]]}"#
                    .utf8))
        let records = try #require(try body.range(at: "records"))
        #expect(String(decoding: body.data(records), as: UTF8.self) == #"[ {"a": "]}\"", "a": 2}, [ ] ]"#)
        let elements = try #require(try body.elements(of: records))
        #expect(elements.map { String(decoding: body.data($0), as: UTF8.self) } == [#"{"a": "]}\"", "a": 2}"#, "[ ]"])
        #expect(
            try body.member("a", of: elements[0]).map { String(decoding: body.data($0), as: UTF8.self) } == #""]}\"""#)
        #expect(try body.range(at: "missing") == nil)
        #expect(try body.elements(of: elements[0]) == nil)
        #expect(try body.text(at: "next_cursor") == "x")
    }

    @Test func aCutOrMalformedBodyIsAnErrorNeverAnOutOfBoundsRead() {
        let whole = Data(#"{"records": [{"a": "x\"]"}, [1, {"b": null}]], "next_cursor": "2"}"#.utf8)
        #expect(throws: Never.self) { try JSONBody(whole) }
        for end in 0..<whole.count {
            #expect(throws: JSONBodyError.self, "cut at \(end)") { try JSONBody(whole.prefix(end)) }
        }
        for text in [
            #"{"a" 1}"#, #"{"a": 1,, "b": 2}"#, #"[1 2]"#, #"{"a": 1} x"#, "]",
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        ] {
            #expect(throws: JSONBodyError.self, "\(text.prefix(20))") { try JSONBody(Data(text.utf8)) }
        }
    }

    /// The first record of a page, whether it ends within the first 64 KiB (read from that prefix) or
    /// beyond (read from the whole page), and nothing for what is no array or an empty one.
    @Test func theFirstElementOfAPageIsReadWhateverItsSize() {
        let filler = String(repeating: "x", count: 70_000)
        let small = #"{"id":1,"at":"2024-01-02 03:04:05.678Z"}"#
        let large = #"{"id":2,"note":"\#(filler)"}"#
        #expect(JSONBody.firstElement(ofArrayIn: Data("[\(small)]".utf8)) == Data(small.utf8))
        #expect(JSONBody.firstElement(ofArrayIn: Data(" [ \(small), \(large)]".utf8)) == Data(small.utf8))
        #expect(JSONBody.firstElement(ofArrayIn: Data("[\(large), \(small)]".utf8)) == Data(large.utf8))
        #expect(JSONBody.firstElement(ofArrayIn: Data("[]".utf8)) == nil)
        #expect(JSONBody.firstElement(ofArrayIn: Data(#"{"a":1}"#.utf8)) == nil)
        #expect(JSONBody.firstElement(ofArrayIn: Data("[\"\(filler)".utf8)) == nil)
    }

    /// Several paths found in one walk give what each alone gives: the first of duplicate keys, keys
    /// written with escapes, nested paths, empty paths, and nothing in a value that is no object.
    @Test func severalPathsInOneWalkAreWhatEachFindsAlone() throws {
        let body = try JSONBody(
            Data(
                #"{"id": 7, "\u0069d": 8, "attributes": {"updated_at": "2026", "deleted": false}, "id": 9, "e": ""}"#
                    .utf8))
        let paths: [DataPath] = [
            "id", "attributes.updated_at", "attributes.deleted", "missing", "attributes.x", "", "e",
        ]
        let found = try body.ranges(at: paths, in: body.root)
        for (path, range) in zip(paths, found) {
            #expect(range == (try body.range(at: path)), "\(path)")
        }
        #expect(
            found.map { $0.map { String(decoding: body.data($0), as: UTF8.self) } } == [
                "7", #""2026""#, "false", nil, nil, String(decoding: body.data(body.root), as: UTF8.self), #""""#,
            ])
        let flag = try #require(try body.range(at: "attributes.deleted"))
        #expect(try body.ranges(at: ["id", ""], in: flag) == [nil, flag])
    }
}
