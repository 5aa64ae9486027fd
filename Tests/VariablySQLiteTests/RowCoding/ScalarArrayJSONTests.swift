import Foundation
import Testing
import VariablySQLite

/// The `[String]` fast path must read what Foundation writes and write what Foundation reads.
@Suite struct ScalarArrayJSONTests {
    @Test(arguments: [
        [], [""], ["a", "b"], ["quote \" backslash \\ slash /"], ["\n\r\t\u{1}\u{1F}"], ["é", "😀", "日本"],
        [String(repeating: "long ", count: 200)], ["plain first", "then \"quoted\""], ["e\u{301}", "plain"],
    ])
    func stringArraysMatchFoundation(_ strings: [String]) throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(AllTypes.self)
            var value = AllTypes.full
            value.strings = strings
            try db.insert(value)
        }
        guard case .text(let stored) = try db.read({ try $0.fetchValue(sql: "SELECT strings FROM all_types") }) else {
            Issue.record("Not text")
            return
        }
        #expect(try JSONDecoder().decode([String].self, from: Data(stored.utf8)) == strings)
        let foundation = String(decoding: try JSONEncoder().encode(strings), as: UTF8.self)
        try db.write { try $0.execute(sql: "UPDATE all_types SET strings = ?", arguments: [foundation]) }
        #expect(try db.read { try $0.fetch(AllTypes.self, id: Int64(7))?.strings } == strings)
    }

    @Test func storedTextEscapesQuotesBackslashesAndControlCharacters() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(AllTypes.self)
            var value = AllTypes.full
            value.strings = ["\n\r\t\u{1}\u{1F}", "q\"b\\", "é😀", ""]
            try db.insert(value)
        }
        let stored = try db.read { try $0.fetchValue(sql: "SELECT strings FROM all_types") }
        #expect(stored == .text(#"["\n\r\t\u0001\u001f","q\"b\\","é😀",""]"#))
    }

    /// A stored array is read in one pass when it is written as the library writes it, and by the full
    /// reader otherwise (whitespace, escapes); text that is no array of strings is an error, not a guess.
    @Test(arguments: [
        (#"["a","b"]"#, ["a", "b"]), (#"[]"#, []), (#"[ ]"#, []), (#"[ "a" , "b" ]"#, ["a", "b"]),
        (#"["q\"b","c"]"#, ["q\"b", "c"]), (#"["\u00e9",""]"#, ["é", ""]), (#"["é😀","日本"]"#, ["é😀", "日本"]),
    ])
    func storedArraysReadBack(_ stored: String, _ expected: [String]) throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(AllTypes.self)
            try db.insert(AllTypes.full)
            try db.execute(sql: "UPDATE all_types SET strings = ?", arguments: [stored])
        }
        #expect(try db.read { try $0.fetch(AllTypes.self, id: Int64(7))?.strings } == expected)
    }

    // (`["a",]` is not among them: Foundation's `JSONDecoder`, which reads what the fast path does not,
    // accepts a trailing comma.)
    @Test(arguments: [#"["a""#, #"["a" "b"]"#, #"["a"]]"#, #"[1]"#, #"{"a":1}"#])
    func storedTextThatIsNoArrayOfStringsIsAnError(_ stored: String) throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(AllTypes.self)
            try db.insert(AllTypes.full)
            try db.execute(sql: "UPDATE all_types SET strings = ?", arguments: [stored])
        }
        #expect(throws: (any Error).self) { try db.read { try $0.fetch(AllTypes.self, id: Int64(7)) } }
    }
}
