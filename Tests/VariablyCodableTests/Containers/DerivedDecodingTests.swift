import Foundation
import Testing
import VariablyCodable

@Suite struct DerivedDecodingTests {
    struct Settings: VariablyCodable, EmptyInitializable, Equatable {
        var theme = "light"
        var fontSize = 12
        var recent: [String] = []
        var accent: String?

        static let keySets = KeySets<Settings>(defaultSource: .local) {
            KeySet(.local, style: .snakeCase) {
                Key(\.theme)
                Key(\.fontSize)
                Key(\.recent, "history.recent")
                Key(\.accent)
            }
        }
    }

    @Test func modelWithEmptyInitializerNeedsNoDecodingCode() throws {
        let settings = Settings(theme: "dark", fontSize: 14, recent: ["a"], accent: "blue")
        let data = try JSONEncoder().encode(settings)
        #expect(try jsonObject(data)["font_size"] as? Int == 14)
        #expect(try JSONDecoder().decode(Settings.self, from: data) == settings)
    }

    @Test func missingRequiredKeyIsStillAnError() throws {
        let error = try #require(throws: VariablyCodingError.self) {
            try JSONDecoder().decode(Settings.self, from: json(#"{"theme":"dark","history":{"recent":[]}}"#))
        }
        #expect(error.keyPath == "\\Settings.fontSize")
    }

    @Test func decodeWithDefaultAndContains() throws {
        struct Counter: VariablyDecodable {
            var count: Int
            var hasLabel: Bool
            init(from container: DecodingContainer<Counter>) throws {
                count = try container.decode(\.count, default: 7)
                hasLabel = container.contains(\.hasLabel)
            }
            static let keySets = KeySets<Counter>(defaultSource: .remote) {
                KeySet(.remote) {
                    Key(\.count, "count")
                    Key(\.hasLabel, "label")
                }
            }
        }
        let missing = try JSONDecoder().decode(Counter.self, from: json("{}"))
        #expect(missing.count == 7 && !missing.hasLabel)
        let present = try JSONDecoder().decode(Counter.self, from: json(#"{"count":null,"label":null}"#))
        #expect(present.count == 7 && present.hasLabel)
    }
}
