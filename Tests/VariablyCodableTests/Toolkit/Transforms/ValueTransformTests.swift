import Foundation
import Testing
import VariablyCodable

struct Listing: VariablyCodable, EmptyInitializable, Equatable {
    var tags: [String] = []
    var price: Double = 0
    var updatedAt = Date(timeIntervalSince1970: 0)
    var note: String?

    static let keySets = KeySets<Listing>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.tags, "tags").transform(.commaSeparated)
            Key(\.price, "price", transform: .numericString)
            Key(\.updatedAt, "updated", transform: ValueTransform.secondsSince1970.then(.numericString))
            Key(\.note, "note").transform(
                ValueTransform<String, String>(
                    decode: { $0.lowercased() }, encode: { $0.uppercased() }))
        }
        KeySet(.local, style: .snakeCase)
    }
}

@Suite struct ValueTransformTests {
    static let listing = Listing(
        tags: ["a", "b"], price: 12.5, updatedAt: Date(timeIntervalSince1970: 1_714_566_600), note: "hi")

    @Test func transformsApplyPerSourceInBothDirections() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let remote = try encoder.encode(Self.listing, source: .remote)
        #expect(
            String(decoding: remote, as: UTF8.self)
                == #"{"note":"HI","price":"12.5","tags":"a,b","updated":"1714566600.0"}"#)
        #expect(try JSONDecoder().decode(Listing.self, from: remote, source: .remote) == Self.listing)
        let local = try toolkitObject(JSONEncoder().encode(Self.listing, source: .local))
        #expect(local["tags"] as? [String] == ["a", "b"])
        #expect(
            try JSONDecoder().decode(
                Listing.self, from: JSONEncoder().encode(Self.listing, source: .local), source: .local) == Self.listing)
    }

    @Test func aRefusedValueNamesTheProperty() throws {
        let json = #"{"tags": "", "price": "cheap", "updated": "0"}"#
        let error = try #require(throws: VariablyCodingError.self) {
            try JSONDecoder().decode(Listing.self, from: Data(json.utf8))
        }
        #expect(error.keyPath == "\\Listing.price")
        #expect("\(error)".contains(#""cheap" is not a Double"#))
    }

    @Test func transformsCompose() throws {
        let transform = ValueTransform.secondsSince1970.then(.numericString)
        #expect(try transform.encode(Date(timeIntervalSince1970: 2)) == "2.0")
        #expect(try transform.decode("3") == Date(timeIntervalSince1970: 3))
        #expect(try ValueTransform.commaSeparated.decode("a, b,c") == ["a", "b", "c"])
        #expect(try ValueTransform.commaSeparated.decode("") == [])
    }

    @Test func containerHelpersTransformPlainCodable() throws {
        struct Plain: Codable, Equatable {
            var tags: [String]
            init(tags: [String]) { self.tags = tags }
            init(from decoder: any Decoder) throws {
                tags = try decoder.container(keyedBy: AnyCodingKey.self).decode("tags", using: .commaSeparated)
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyCodingKey.self)
                try container.encode(tags, forKey: "tags", using: .commaSeparated)
            }
        }
        let data = try JSONEncoder().encode(Plain(tags: ["x", "y"]))
        #expect(String(decoding: data, as: UTF8.self) == #"{"tags":"x,y"}"#)
        #expect(try JSONDecoder().decode(Plain.self, from: data) == Plain(tags: ["x", "y"]))
    }

    @Test func theEntryExposesTheTransformToOtherBackends() throws {
        let entry = try #require(Listing.keySets[CodingSource.remote]?.entry(for: \Listing.tags))
        #expect(entry.options.transform?.encodedType == String.self)
        #expect(Listing.keySets[.local]?.entry(for: \Listing.tags)?.options.transform == nil)
    }

    enum CommaSeparatedTags: ValueTransformProvider {
        static let transform = ValueTransform.commaSeparated
    }

    @Test func transformedWrapperWorksWithSynthesizedCodable() throws {
        struct Post: Codable, Equatable {
            @Transformed<CommaSeparatedTags> var tags: [String]
        }
        let post = try JSONDecoder().decode(Post.self, from: Data(#"{"tags": "a,b"}"#.utf8))
        #expect(post.tags == ["a", "b"])
        #expect(String(decoding: try JSONEncoder().encode(post), as: UTF8.self) == #"{"tags":"a,b"}"#)
    }

    struct Offer: VariablyCodable, EmptyInitializable, Equatable {
        var discount: Double?
        var code = ""
        static let keySets = KeySets<Offer>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.discount, "discount", transform: .numericString)
                Key(\.code, "code").transform(
                    ValueTransform<String, String>(
                        decode: { $0 },
                        encode: { code in
                            guard !code.isEmpty else {
                                throw EncodingError.invalidValue(
                                    code,
                                    EncodingError.Context(codingPath: [], debugDescription: "An offer needs a code."))
                            }
                            return code
                        }))
            }
        }
    }

    @Test func optionalPropertiesTransformTheirWrappedValue() throws {
        let offer = Offer(discount: 0.5, code: "A")
        let data = try JSONEncoder().encode(offer)
        #expect(try toolkitObject(data)["discount"] as? String == "0.5")
        #expect(try JSONDecoder().decode(Offer.self, from: data) == offer)
        let none = try JSONEncoder().encode(Offer(discount: nil, code: "B"))
        #expect(try toolkitObject(none)["discount"] == nil)
        #expect(
            try JSONDecoder().decode(Offer.self, from: Data(#"{"discount": null, "code": "C"}"#.utf8)).discount == nil)
    }

    @Test func aTransformThatRefusesToEncodeNamesTheProperty() throws {
        let error = try #require(throws: VariablyCodingError.self) {
            try JSONEncoder().encode(Offer(discount: nil, code: ""))
        }
        #expect(error.reason == .invalidValue)
        #expect(error.keyPath == "\\Offer.code")
        #expect("\(error)" == #"Offer.code (remote, key "code"): An offer needs a code. at top level"#)
    }
}
