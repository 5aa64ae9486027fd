import Testing
import VariablyCodable

@Suite struct DataPathTests {
    @Test func dottedTextLiteralsAndKeysAreOnePath() {
        let literal: DataPath = "data.profile.name"
        #expect(literal.keys == ["data", "profile", "name"])
        #expect(literal == DataPath(dotted: "data.profile.name"))
        #expect(literal == DataPath(["data", "profile", "name"]))
        #expect("\(literal)" == "data.profile.name")
        #expect(DataPath(dotted: "a..b").keys == ["a", "", "b"])
    }

    @Test func aKeyWithADotIsGivenAsKeys() {
        let path = DataPath(["meta", "next.cursor"])
        #expect(path.keys.count == 2)
        #expect(path != DataPath(dotted: "meta.next.cursor"))
    }

    @Test func theEmptyPathIsTheRoot() {
        let empty: DataPath = ""
        #expect(empty == .root && empty.keys.isEmpty)
        #expect("\(DataPath.root)" == "(root)")
    }

    @Test func aKeySetRejectsTheRootAsAKey() {
        struct Item: VariablyCodable, Equatable {
            var id = 0
            init() {}
            init(from container: DecodingContainer<Item>) throws { id = try container.decode(\.id) }
            static let keySets = KeySets<Item> { KeySet(.remote) { Key(\.id, SourceKey(alternatives: [.root])) } }
        }
        #expect(
            Item.keySets.problems.map(\.description).first
                == #"remote: \Item.id has an empty key or an empty part in """#)
    }
}
