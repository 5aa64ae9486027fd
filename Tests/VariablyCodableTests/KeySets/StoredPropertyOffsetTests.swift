import Foundation
import Testing
@testable import VariablyCodable

/// Reading and writing stored properties at their offset, as derived coding does.
@Suite struct StoredPropertyOffsetTests {
    private struct Inner: Equatable {
        var label = "inner"
        var count = 1
    }

    private struct Outer {
        var flag = false
        var name = "a"
        var inner = Inner()
        var tags: [String]? = ["x"]
        var computed: String { name + "!" }
    }

    private final class Box {
        var name = "box"
    }

    @Test func storedPropertiesOfStructsHaveAnOffsetAndOthersDoNot() {
        #expect(StoredPropertyOffset.of(\Outer.name) != nil)
        #expect(StoredPropertyOffset.of(\Outer.inner.count) != nil)
        #expect(StoredPropertyOffset.of(\Outer.computed) == nil)
        #expect(StoredPropertyOffset.of(\Box.name) == nil)
    }

    @Test func readsAndWritesGoToTheProperty() throws {
        var outer = Outer()
        let name = try #require(StoredPropertyOffset.of(\Outer.name))
        let count = try #require(StoredPropertyOffset.of(\Outer.inner.count))
        let tags = try #require(StoredPropertyOffset.of(\Outer.tags))
        #expect(StoredPropertyOffset.read(String.self, at: name, in: outer) == "a")
        // A long string is heap-allocated: writing releases the old one and keeps the new one alive.
        let long = String(repeating: "é", count: 100)
        StoredPropertyOffset.write(long, at: name, in: &outer)
        StoredPropertyOffset.write(String(long.prefix(3)), at: name, in: &outer)
        StoredPropertyOffset.write(7, at: count, in: &outer)
        StoredPropertyOffset.write([String]?.none, at: tags, in: &outer)
        #expect(outer.name == "ééé")
        #expect(outer.inner == Inner(label: "inner", count: 7))
        #expect(outer.tags == nil)
        #expect(outer.flag == false)
        #expect(StoredPropertyOffset.read([String]?.self, at: tags, in: outer) == nil)
    }

    /// Derived decoding and encoding go through offsets for structs and key paths for classes.
    @Test func derivedCodingRoundTripsThroughOffsets() throws {
        struct Settings: VariablyCodable, EmptyInitializable, Equatable {
            var theme = "light"
            var retries = 3
            var ratio: Double? = nil
            var tags: [String] = []
            static let keySets = KeySets<Settings>(defaultSource: .local) {
                KeySet(.local, style: .snakeCase) {
                    Key(\.theme); Key(\.retries); Key(\.ratio); Key(\.tags)
                }
            }
        }
        let settings = Settings(theme: String(repeating: "dark", count: 20), retries: 5, ratio: 0.5, tags: ["a", "b"])
        let data = try JSONEncoder(source: .local).encode(settings)
        #expect(try toolkitObject(data).count == 4)
        let decoded = try JSONDecoder(source: .local).decode(Settings.self, from: data)
        #expect(decoded == settings, "\(String(decoding: data, as: UTF8.self)) -> \(decoded)")
        #expect(try KeySetJSONDecoder(source: .local).decode(Settings.self, from: data) == settings)
    }
}
