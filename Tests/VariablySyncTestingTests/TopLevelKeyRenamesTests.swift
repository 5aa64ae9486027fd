import Foundation
import Testing
@testable import VariablySyncTesting

@Suite struct TopLevelKeyRenamesTests {
    private func renamed(_ json: String, _ renames: [(String, String)]) -> String {
        var keyRenames = TopLevelKeyRenames()
        for (from, to) in renames { keyRenames.append(from: from, to: to) }
        return String(decoding: keyRenames.apply(to: Data(json.utf8)), as: UTF8.self)
    }

    @Test func renamesOnlyTopLevelKeysAndKeepsValuesVerbatim() {
        let json = #"{"id":1,"user_name":"user_name","profile":{"user_name":2,"list":[{"user_name":3}]},"n":-1.5e3}"#
        #expect(
            renamed(json, [("user_name", "username")])
                == #"{"id":1,"username":"user_name","profile":{"user_name":2,"list":[{"user_name":3}]},"n":-1.5e3}"#)
    }

    @Test func laterRenamesApplyToEarlierResults() {
        #expect(renamed(#"{"a":1,"z":true}"#, [("a", "b"), ("b", "c")]) == #"{"c":1,"z":true}"#)
    }

    @Test func renamedKeyReplacesAnExistingNewKeyAsADictionaryWould() {
        #expect(renamed(#"{"new":1,"old":2}"#, [("old", "new")]) == #"{"new":2}"#)
        #expect(renamed(#"{"new":1}"#, [("old", "new")]) == #"{"new":1}"#)
    }

    @Test func readsSpacesEscapesAndEmptyObjects() {
        #expect(renamed(#" { "a\"b" : [ 1 , 2 ] , "c" : "x\"}" } "#, [("c", "d")]) == #"{"a\"b":[ 1 , 2 ],"d":"x\"}"}"#)
        #expect(renamed(#"{"a\"b":1}"#, [("a\"b", "e")]) == #"{"e":1}"#)
        #expect(renamed("{}", [("a", "b")]) == "{}")
    }

    @Test(arguments: [#"[{"a":1}]"#, #"{"a":1"#, #"{"a" 1}"#, "", #""a""#])
    func leavesAnythingButAnObjectUnchanged(json: String) {
        #expect(renamed(json, [("a", "b")]) == json)
    }
}
