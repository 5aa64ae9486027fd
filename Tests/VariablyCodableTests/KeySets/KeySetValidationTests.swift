import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablyCodableTesting
import VariablyTestSupport

private struct Item: VariablyEncodable {
    var id = 0
    var name = ""
    var note = ""
    var cache = ""
    static var keySets: KeySets<Item> { Item.declared }
    nonisolated(unsafe) static var declared = KeySets<Item> { KeySet(.remote) { Key(\.id, "id") } }
}

@Suite struct KeySetValidationTests {
    @Test func fixturesHaveValidKeySets() throws {
        try User.keySets.validate()
        try Profile.keySets.validate()
        try Account.keySets.validate()
        expectValidKeySets(User.self)
        expectValidKeySets(Address.self)
    }

    @Test func duplicateKeysInOneSourceAreReported() {
        let keySets = KeySets<Item> {
            KeySet(.remote) {
                Key(\.id, "id")
                Key(\.name, ["name", "title"])
                Key(\.note, "title")
            }
        }
        #expect(
            keySets.problems.map(\.description) == [
                #"remote: \Item.note uses key "title", which \Item.name already uses"#
            ])
    }

    @Test func aPropertyMissingFromASourceIsReportedUnlessExcluded() throws {
        let keySets = KeySets<Item> {
            KeySet(.remote) {
                Key(\.id, "id")
                Key(\.name, "name")
                Key(\.cache, "cache")
            }
            KeySet(.local) { Key(\.id, "ID") }
            KeySet(.sqlite, excluding: [\Item.cache]) {
                Key(\.id, "id")
                Key(\.name, "name")
            }
        }
        #expect(
            keySets.problems.map(\.description) == [
                #"local: \Item.name has no key (add a Key, a style, or list it in `excluding:`)"#,
                #"local: \Item.cache has no key (add a Key, a style, or list it in `excluding:`)"#,
            ])
        let error = try #require(throws: KeySetValidationError.self) { try keySets.validate() }
        #expect(error.description.hasPrefix("Key sets of Item have 2 problem(s):"))
    }

    @Test func emptyKeysAndEmptyPathPartsAreReported() {
        let keySets = KeySets<Item> {
            KeySet(.remote) {
                Key(\.id, "")
                Key(\.name, "data..name")
                Key(\.note, "note")
            }
        }
        #expect(keySets.problems.map(\.kind) == [.emptyKey, .emptyKey, .missingKeyPath, .missingKeyPath])
        #expect(keySets.problems[0].description == #"remote: \Item.id has an empty key or an empty part in """#)
    }

    @Test func aKeyUsedAsValueAndAsObjectIsReported() {
        let keySets = KeySets<Item> {
            KeySet(.remote) {
                Key(\.id, "meta")
                Key(\.name, "meta.name")
            }
        }
        #expect(
            keySets.problems.map(\.description) == [
                #"remote: \Item.name nests under "meta", which another property uses as a value"#
            ])
    }

    @Test func duplicateSourcesAndAMissingDefaultSourceAreReported() {
        let keySets = KeySets<Item>(defaultSource: .sqlite) {
            KeySet(.remote) { Key(\.id, "id") }
            KeySet(.remote) { Key(\.id, "ID") }
        }
        #expect(keySets.problems.map(\.kind) == [.duplicateSource, .defaultSourceWithoutKeySet])
    }

    @Test func aPropertyListedTwiceIsReported() {
        let keySets = KeySets<Item> {
            KeySet(.remote) {
                Key(\.id, "id")
                Key(\.id, "identifier")
            }
        }
        #expect(keySets.problems.map(\.kind) == [.duplicateKeyPath])
    }

    @Test func styledKeySetsDeriveEveryPropertyWithOverridesAndExclusions() throws {
        let keySets = KeySets<Item> {
            KeySet(.remote, style: .snakeCase) {
                Key(\.id)
                Key(\.name, "display_name")
                Key(\.note)
                Key(\.cache)
            }
            KeySet(.local, style: .kebabCase, excluding: [\Item.cache]) { Key(\.note, "memo") }
            KeySet(.sqlite, style: .pascalCase)
        }
        try keySets.validate()
        #expect(
            keySets[.remote]?.entries.map(\.key.description) == [#""id""#, #""display_name""#, #""note""#, #""cache""#])
        #expect(keySets[.local]?.entries.map(\.key.description) == [#""memo""#, #""id""#, #""name""#])
        #expect(keySets[.sqlite]?.entries.map(\.key.description) == [#""ID""#, #""Name""#, #""Note""#, #""Cache""#])
    }

    @Test func verbatimAndPathKeysKeepDots() throws {
        let keySets = KeySets<Item> {
            KeySet(.remote) {
                Key(\.id, .verbatim("rate.usd"))
                Key(\.name, .path("data", "v1.0", "name"))
            }
        }
        let entries = try #require(keySets[.remote]?.entries)
        #expect(entries[0].key.primary.keys == ["rate.usd"])
        #expect(entries[1].key.primary.keys == ["data", "v1.0", "name"])
    }

    @Test func aPropertyThatIsNotCodableWithoutATransformInAStyledSourceIsReported() {
        struct Place {
            var location = (0.0, 0.0)
            var home: (Double, Double)?
        }
        let pair = ValueTransform<(Double, Double), [Double]>(decode: { ($0[0], $0[1]) }, encode: { [$0.0, $0.1] })
        let keySets = KeySets<Place> {
            KeySet(.remote) {
                Key(\.location, "loc", transform: pair)
                Key(\.home, "home", transform: pair)
            }
            KeySet(.sqlite, style: .snakeCase)
            KeySet(.local, style: .snakeCase) {
                Key(\.location, transform: pair)
                Key(\.home, transform: pair)
            }
        }
        #expect(keySets.problems.map(\.kind) == [.transformMissing, .transformMissing])
        #expect(keySets.problems.map(\.source) == [.sqlite, .sqlite])
        #expect(
            keySets.problems[0].description
                == "sqlite: \\Place.location is not Codable and has a transform only in another source (give it a "
                + "Key with a transform in this key set too, or list it in `excluding:`)")
    }

    @Test func anOptionalPropertyWithATransformOfTheWholeOptionalIsSound() throws {
        struct Membership: VariablyCodable, EmptyInitializable {
            var teamID: String?
            static let keySets = KeySets<Membership>(defaultSource: .remote) {
                KeySet(.remote) {
                    Key(
                        \.teamID, "team",
                        transform: ValueTransform<String?, String>(
                            decode: { $0.isEmpty ? nil : $0 }, encode: { $0 ?? "" }))
                }
                KeySet(.sqlite, style: .snakeCase)
            }
        }
        try Membership.keySets.validate()
        let remote = try #require(Membership.keySets[.remote]?.entries.first?.coder)
        let sqlite = try #require(Membership.keySets[.sqlite]?.entries.first?.coder)
        #expect(remote.isOptional && remote.storedType == String?.self)
        #expect(sqlite.isOptional && sqlite.storedType == String.self)
    }

    @Test func unmappedKeyPathTrapsWithAMessageThatSaysHowToFixIt() async {
        await #expect(processExitsWith: .failure) {
            struct Partial: VariablyDecodable {
                var id = 0
                var name = ""
                init(from container: DecodingContainer<Partial>) throws {
                    id = try container.decode(\.id)
                    name = try container.decode(\.name)
                }
                static let keySets = KeySets<Partial>(defaultSource: .remote) { KeySet(.remote) { Key(\.id, "id") } }
            }
            _ = try? JSONDecoder().decode(Partial.self, from: Data(#"{"id":1}"#.utf8))
        }
    }
}
