import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablyTestSupport

/// `KeySetJSONEncoder` writes the same JSON as `JSONEncoder(source:)`: the same values, formatted the
/// same way, with object keys in key-set order (`JSONEncoder` on Linux writes them in hash order, which
/// changes from one encode to the next, so documents are compared as values, not bytes).
@Suite struct FastJSONEncoderTests {
    private func expectSameBytes<T: Encodable>(
        _ value: T, source: CodingSource, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let foundation = Result { try JSONEncoder(source: source).encode(value) }
        let fast = Result { try KeySetJSONEncoder(source: source).encode(value) }
        switch (foundation, fast) {
        case (.success(let expected), .success(let actual)):
            let expectedValue = try? JSONDecoder().decode(JSONValue.self, from: expected)
            let actualValue = try? JSONDecoder().decode(JSONValue.self, from: actual)
            #expect(
                expectedValue != nil && actualValue == expectedValue,
                "\(String(decoding: actual, as: UTF8.self))\n\(String(decoding: expected, as: UTF8.self))",
                sourceLocation: sourceLocation)
        case (.failure(let expected), .failure(let actual)):
            #expect(ErrorSignature(actual) == ErrorSignature(expected), sourceLocation: sourceLocation)
        default:
            Issue.record("Foundation: \(foundation), KeySetJSONEncoder: \(fast)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [UInt64(71), 72])
    func generatedModelsEncodeToTheSameBytes(seed: UInt64) throws {
        var generator = PayloadGenerator(seed: seed)
        var encoded = 0
        for _ in 0..<600 {
            let json = generator.items(count: Int.random(in: 1...3, using: &generator.random))
            guard let items = try? JSONDecoder(source: .remote).decode([FastItem].self, from: Data(json.utf8)) else {
                continue
            }
            encoded += 1
            expectSameBytes(items, source: .remote)
            expectSameBytes(items, source: .local)
            expectSameBytes(items[0], source: .remote)
            expectSameBytes(FastPageBox(items: items, next: "a/b"), source: .remote)
        }
        #expect(encoded > 100)
    }

    @Test func coreFixturesEncodeToTheSameBytes() throws {
        let users = User.samples(20)
        for source in [CodingSource.remote, .local, .sqlite] { expectSameBytes(users, source: source) }
        let account = Account(id: 3, owner: "Grace", address: Address(street: "s", city: "c"))
        expectSameBytes(account, source: .remote)
        expectSameBytes(account, source: .remoteV2)
        expectSameBytes(Account(id: 4, owner: "n", address: nil), source: .remoteV2)
        let profile = Profile(
            name: "Ada", role: .admin, joined: Date(timeIntervalSinceReferenceDate: 12.5), avatar: Data([1, 2, 3]),
            homepage: URL(string: "https://example.com/x"), token: UUID(), balance: Decimal(string: "12.34")!,
            limits: ["a": 1], address: Address(street: "1 rue", city: "Paris"), previous: [Address()], scores: [1, 2.5])
        expectSameBytes(profile, source: .remote)
        expectSameBytes(profile, source: .local)
        expectSameBytes(Member.sample, source: .remote)
        expectSameBytes(Member.sample, source: .local)
    }

    @Test func numbersAndStringsAreFormattedAsJSONEncoderFormatsThem() {
        let doubles: [Double] = [
            0, -0.0, 1, -1, 0.1, 1e23, 1e-7, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e16, 1e15, 123456.789,
            2.5e-5, 100,
        ]
        let strings = [
            "", "a/b", "\"\\", "\u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1F}\u{7F}", "é🎉\u{2028}", "\u{FEFF}",
        ]
        for double in doubles {
            expectSameBytes(
                FastChildBox(number: double, float: Float(double), text: "x", ints: [Int64.min, 0, .max]),
                source: .remote)
        }
        for text in strings {
            expectSameBytes(FastChildBox(number: 1, float: 1, text: text, ints: []), source: .remote)
        }
        expectSameBytes(FastChildBox(number: .infinity, float: 1, text: "", ints: []), source: .remote)
        expectSameBytes(FastChildBox(number: 1, float: .nan, text: "", ints: []), source: .remote)
    }

    @Test func writesKeysInKeySetOrderAndNestedObjectsWhereTheirFirstKeyIs() throws {
        let user = User.sample(1)
        let text = String(decoding: try KeySetJSONEncoder(source: .remote).encode(user), as: UTF8.self)
        let keys = [
            "\"id\"", "\"user_name\"", "\"email_address\"", "\"profile\"", "\"age\"", "\"score\"", "\"is_active\"",
            "\"updated_at\"",
        ]
        let positions = keys.map { text.range(of: $0)?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil })
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "\(text)")
        #expect(text.contains("\"profile\":{\"age\":"))
    }

    @Test func formatsLikeJSONEncoderByteForByteWithoutObjects() throws {
        let values: [Double] = [
            0, -0.0, 1, 0.1, 1e23, 1e-7, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e16, 1e15, 2.5e-5, 100,
        ]
        #expect(try KeySetJSONEncoder().encode(values) == (try JSONEncoder().encode(values)))
        let strings = ["", "a/b", "\"\\", "\u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1F}\u{7F}", "é🎉\u{2028}"]
        #expect(try KeySetJSONEncoder().encode(strings) == (try JSONEncoder().encode(strings)))
        let users = User.samples(3)
        let fast = try KeySetJSONEncoder(source: .remote).encode(users.map(\.tags))
        #expect(fast == (try JSONEncoder(source: .remote).encode(users.map(\.tags))))
    }

    @Test func reportsErrorsOfValuesItDelegatesAtTheirPath() {
        struct Holder: VariablyCodable, EmptyInitializable {
            var values: [String: Double] = [:]
            static let keySets = KeySets<Holder>(defaultSource: .remote) { KeySet(.remote) { Key(\.values, "values") } }
        }
        var holder = Holder()
        holder.values = ["a": .infinity]
        expectSameBytes([holder], source: .remote)
    }

    @Test func encodedModelsDecodeBack() throws {
        let users = User.samples(50)
        let data = try KeySetJSONEncoder(source: .remote).encode(users)
        #expect(try KeySetJSONDecoder(source: .remote).decode([User].self, from: data) == users)
    }
}

/// A plain `Encodable` around models.
struct FastPageBox: Encodable {
    var items: [FastItem]
    var next: String?
}

/// Scalars of every formatting kind in a flat key set.
struct FastChildBox: VariablyCodable, EmptyInitializable {
    var number = 0.0
    var float: Float = 0
    var text = ""
    var ints: [Int64] = []

    init() {}

    init(number: Double, float: Float, text: String, ints: [Int64]) {
        self.number = number
        self.float = float
        self.text = text
        self.ints = ints
    }

    static let keySets = KeySets<FastChildBox>(defaultSource: .remote) {
        KeySet(.remote, style: .snakeCase) {
            Key(\.number); Key(\.float, "values.float"); Key(\.text); Key(\.ints)
        }
    }
}
