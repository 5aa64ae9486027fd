import Foundation
import Testing
import VariablyCodable

/// Arrays and dictionaries with each policy.
struct Basket: VariablyCodable, EmptyInitializable, Equatable {
    var removed: [Int] = []
    var replaced: [Int] = []
    var decided: [Int] = []
    var failing: [Int] = []
    var prices: [String: Double] = [:]

    static let keySets = KeySets<Basket>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.removed, "removed").elements(.remove).default(ifMissing: [Int]())
            Key(\.replaced, "replaced").elements(.fallback(0)).default(ifMissing: [Int]())
            Key(\.decided, "decided").elements(
                .custom { error in
                    if case .valueNotFound = error { return .fallback(-1) }
                    return .remove
                }
            )
            .default(ifMissing: [Int]())
            Key(\.failing, "failing").default(ifMissing: [Int]())
            Key(\.prices, "prices").elements(.remove).default(ifMissing: [String: Double]())
        }
    }
}

@Suite struct ElementPolicyTests {
    @Test func removeDropsOnlyTheFailingElementsAndTheNextOnesStillDecode() throws {
        let (basket, report) = try decodeBasket(Basket.self, #"{"removed": [1, "x", 3, null, 5]}"#)
        #expect(basket.removed == [1, 3, 5])
        #expect(report.map(\.kind) == [.elementRemoved, .elementRemoved])
        #expect(report.map { VariablyCodingError.renderForTests($0.codingPath) } == ["removed[1]", "removed[3]"])
        #expect(report.allSatisfy { $0.keyPath == "\\Basket.removed" && $0.source == .remote })
    }

    @Test func fallbackReplacesTheFailingElementInPlace() throws {
        let (basket, report) = try decodeBasket(Basket.self, #"{"replaced": [1, "x", 3]}"#)
        #expect(basket.replaced == [1, 0, 3])
        #expect(report.map(\.kind) == [.elementReplaced])
    }

    @Test func customDecidesPerErrorAndNeverReDecodesTheFollowingElement() throws {
        // The element after each failure must be decoded once, as itself (the Codability bug).
        let (basket, report) = try decodeBasket(Basket.self, #"{"decided": [null, 2, "x", 4, null]}"#)
        #expect(basket.decided == [-1, 2, 4, -1])
        #expect(report.map(\.kind) == [.elementReplaced, .elementRemoved, .elementReplaced])
    }

    @Test func failIsTheDefaultAndKeepsTheElementsCodingPath() throws {
        let error = try #require(throws: VariablyCodingError.self) {
            try JSONDecoder().decode(Basket.self, from: Data(#"{"failing": [1, "x"]}"#.utf8))
        }
        #expect(error.keyPath == "\\Basket.failing")
        #expect(error.reason == .typeMismatch)
        #expect("\(error)".hasSuffix("at failing[1]"))
    }

    @Test func dictionariesApplyThePolicyPerValue() throws {
        let (basket, report) = try decodeBasket(Basket.self, #"{"prices": {"tea": 2.5, "cake": "free"}}"#)
        #expect(basket.prices == ["tea": 2.5])
        #expect(report.map(\.kind) == [.elementRemoved])
    }

    @Test func strictModeTurnsARemovedElementIntoItsError() throws {
        let error = try #require(throws: VariablyCodingError.self) {
            try decodeReporting(
                Basket.self, #"{"removed": [1, "x"], "replaced": [], "decided": [], "failing": [], "prices": {}}"#,
                isStrict: true)
        }
        #expect(error.reason == .typeMismatch)
        #expect("\(error)".hasPrefix("Basket.removed (remote, key \"removed\")"))
        #expect("\(error)".hasSuffix("at removed[1]"))
    }

    @Test func aPolicyOnAPropertyThatIsNotACollectionIsAProblem() throws {
        struct Single: VariablyCodable, EmptyInitializable {
            var name = ""
            static let keySets = KeySets<Single>(defaultSource: .remote) {
                KeySet(.remote) { Key(\.name, "name").elements(.remove) }
            }
        }
        #expect(try optionProblem(of: Single.keySets).contains("elements(_:) applies to arrays and dictionaries"))
    }

    @Test func aFallbackOfAnotherTypeIsAProblem() throws {
        struct Numbers: VariablyCodable, EmptyInitializable {
            var values: [Int] = []
            static let keySets = KeySets<Numbers>(defaultSource: .remote) {
                KeySet(.remote) { Key(\.values, "values").elements(.fallback("zero")) }
            }
        }
        #expect(
            try optionProblem(of: Numbers.keySets).contains(
                "the fallback zero (String) is not an element of Array<Int>"))
    }

    @Test func arraysRoundTripUnchanged() throws {
        var basket = Basket()
        basket.removed = [1, 2]
        basket.prices = ["tea": 2.5]
        let data = try JSONEncoder().encode(basket)
        #expect(try JSONDecoder().decode(Basket.self, from: data) == basket)
    }

    @Test func keyedContainerHelperAppliesAPolicy() throws {
        struct Plain: Decodable {
            let ids: [Int]
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyCodingKey.self)
                ids = try container.decode([Int].self, forKey: "ids", elements: .remove)
            }
        }
        let plain = try JSONDecoder().decode(Plain.self, from: Data(#"{"ids": [1, "two", 3]}"#.utf8))
        #expect(plain.ids == [1, 3])
    }

    @Test func lossyArrayWrapperWorksWithSynthesizedCodable() throws {
        struct Feed: Codable, Equatable {
            @LossyArray var scores: [Int]
        }
        let (feed, report) = try decodeReporting(Feed.self, #"{"scores": [1, "x", 3]}"#)
        #expect(feed.scores == [1, 3])
        #expect(report.events.map(\.kind) == [.elementRemoved])
        #expect(report.events.first.map { VariablyCodingError.renderForTests($0.codingPath) } == "scores[1]")
        let data = try JSONEncoder().encode(feed)
        #expect(String(decoding: data, as: UTF8.self) == #"{"scores":[1,3]}"#)
    }
}

/// Decodes a basket, leaving out of the report the defaults used for the keys a test does not send.
func decodeBasket(_ type: Basket.Type, _ json: String) throws -> (Basket, [DecodeEvent]) {
    let (basket, report) = try decodeReporting(type, json)
    return (basket, report.events.filter { $0.kind != .defaultUsed(.missing) })
}

extension VariablyCodingError {
    /// `data[3].name` for a coding path.
    static func renderForTests(_ path: [AnyCodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
