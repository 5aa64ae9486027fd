import Foundation
import Testing
import VariablyCodable

/// A custom policy that answers with a fallback of the wrong type: only known while decoding.
private struct Scores: VariablyCodable, EmptyInitializable {
    var values: [Int] = []

    static let keySets = KeySets<Scores>(defaultSource: .remote) {
        KeySet(.remote) { Key(\.values, "values").elements(.custom { _ in .fallback("zero") }) }
    }
}

/// Option values are checked when the key set is built; decoding never traps on data.
@Suite struct OptionValueCheckTests {
    @Test func aKeySetWideFallbackOfAnotherTypeIsAProblemOfTheKeySet() throws {
        struct Numbers: VariablyCodable, EmptyInitializable {
            var values: [Int] = []
            static let keySets = KeySets<Numbers>(defaultSource: .remote) {
                KeySet(.remote) { Key(\.values, "values") }.elements(.fallback("x"))
            }
        }
        #expect(try optionProblem(of: Numbers.keySets).contains("x (String) is not an element of Array<Int>"))
    }

    @Test func aKeySetWideFallbackOfTheElementTypeIsAccepted() throws {
        struct Numbers: VariablyCodable, EmptyInitializable {
            var values: [Int] = []
            static let keySets = KeySets<Numbers>(defaultSource: .remote) {
                KeySet(.remote) { Key(\.values, "values") }.elements(.fallback(0))
            }
        }
        let numbers = try JSONDecoder(source: .remote).decode(
            Numbers.self, from: Data(#"{"values": [1, "x", 3]}"#.utf8))
        #expect(numbers.values == [1, 0, 3])
    }

    @Test(arguments: [false, true])
    func aWrongFallbackFromACustomPolicyThrowsInsteadOfTrapping(fast: Bool) throws {
        let data = Data(#"{"values": [1, "x", 3]}"#.utf8)
        let error = #expect(throws: VariablyCodingError.self) {
            if fast {
                _ = try KeySetJSONDecoder(source: .remote).decode(Scores.self, from: data)
            } else {
                _ = try JSONDecoder(source: .remote).decode(Scores.self, from: data)
            }
        }
        #expect(error?.keyPath == "\\Scores.values")
        #expect("\(error!)".contains("fallback zero (String) is not a Int"))
    }

    @Test func aWrongFallbackInTheKeyedContainerHelperThrows() {
        struct Plain: Decodable {
            let ids: [Int]
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyCodingKey.self)
                ids = try container.decode([Int].self, forKey: "ids", elements: .fallback("none"))
            }
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Plain.self, from: Data(#"{"ids": [1, "two"]}"#.utf8))
        }
    }
}
