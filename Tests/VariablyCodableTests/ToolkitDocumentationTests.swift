// The examples below are the documentation's own lines, kept as the documents have them.
// swift-format-ignore-file
import Foundation
import Testing
import UserSyncModels
import VariablyCodable

// The examples of docs/toolkit.md and docs/fast-json.md, compiled and run (DocumentationCoverageTests
// checks that every example's lines are here, in order). Keep them in step with the docs. The types are
// nested in an enum so that their names (the docs') do not clash with other tests' fixtures.

enum ToolkitDocumentation {
    // MARK: - toolkit.md: the model

    private struct User: VariablyCodable {
        enum Status: String, Codable { case active, suspended, unknown }
        var id: Int64
        var age: Int
        var createdAt: Date
        var tags: [String]
        var status: Status
        var nickname: String?

        init(from container: DecodingContainer<User>) throws {
            id = try container.decode(\.id)
            age = try container.decode(\.age)
            createdAt = try container.decode(\.createdAt)
            tags = try container.decode(\.tags)
            status = try container.decode(\.status)
            nickname = try container.decode(\.nickname)
        }

        static let keySets = KeySets<User>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id").lenient()
                Key(\.age, "age").lenient().default(ifMissing: 0, ifNull: 0, ifInvalid: -1)
                Key(\.createdAt, "created_at").dates(.iso8601)
                Key(\.tags, "tags").elements(.remove)
                Key(\.status, "status").decodingUnknownCases(as: Status.unknown)
                Key(\.nickname, "nick")
            }
            // The cache we write ourselves: epoch milliseconds, and any surprise is an error.
            KeySet(.local, style: .snakeCase).dates(.millisecondsSince1970).strict()
        }
    }

    static let userJSON = Data(
        #"[{"id": "7", "created_at": "2024-05-01T12:30:00Z", "tags": ["a", 1, "b"], "status": "gone"}]"#.utf8)

    // MARK: - 1. JSONValue

    @Suite struct JSONValueExampleTests {
        @Test func jsonValueExample() throws {
            let data = Data(#"{"ok": true, "count": 1, "ratio": 1.0}"#.utf8)
            let user = try JSONDecoder().decode([User].self, from: userJSON)[0]

            let value: JSONValue = ["id": 1, "tags": ["a", "b"], "nickname": nil, "score": 2.5]
            _ = value["tags"]?[0]
            _ = value["nickname"]?.isNull
            #expect(value["tags"]?[0] == "a" && value["nickname"]?.isNull == true)

            let exact = try JSONValue(parsing: #"{"big": 123456789012345678901234567890, "ratio": 1.0}"#)
            _ = exact["big"]
            _ = exact["ratio"]
            _ = exact.jsonString()
            #expect(exact["big"] == .bigInteger("123456789012345678901234567890") && exact["ratio"] == .double(1.0))
            #expect(exact.jsonString() == #"{"big":123456789012345678901234567890,"ratio":1.0}"#)

            let bridged: JSONValue? = JSONValue(any: try JSONSerialization.jsonObject(with: data))
            #expect(bridged == ["ok": true, "count": 1, "ratio": 1.0])

            let json = try JSONValue(encoding: user)
            let back = try json.decode(as: User.self)
            #expect(back.id == 7 && back.tags == ["a", "b"])

            let event = try JSONDecoder().decode(Event.self, from: Data(#"{"metadata": {"a": 1, "b": [true]}}"#.utf8))
            #expect(event.metadata["a"] as? Int == 1)
            #expect(try JSONValue(encoding: event) == ["metadata": ["a": 1, "b": [true]]])
        }
    }

    /// `[String: Any]` through a container.
    private struct Event: Codable {
        enum CodingKeys: String, CodingKey { case metadata }
        var metadata: [String: Any]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            metadata = try container.decode([String: Any].self, forKey: .metadata)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(metadata, forKey: .metadata)
        }
    }

    // MARK: - 2. Key styles, 3. Dates

    @Suite struct KeyStyleAndDateExampleTests {
        @Test func keyStyleExample() throws {
            _ = KeyStyle.snakeCase.apply(to: "imageURL")
            _ = KeyStyle.camelCase.apply(to: "user_id")
            #expect(KeyStyle.snakeCase.apply(to: "imageURL") == "image_url")
            #expect(KeyStyle.camelCase.apply(to: "user_id") == "userID")

            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromAnyCase
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convert(to: .snakeCase)
            let profile = try decoder.decode(PlainProfile.self, from: Data(#"{"USER_ID": 3, "image-url": "x"}"#.utf8))
            #expect(profile.userID == 3 && profile.imageURL == "x")
            #expect(String(decoding: try encoder.encode(profile), as: UTF8.self).contains(#""user_id":3"#))
            #expect(Profile.keySets[.local]?.entries.map(\.key.primary.description) == ["user-id", "image-url", "updated-at"])
        }

        @Test func datesExample() throws {
            let decoder = JSONDecoder()
            let encoder = JSONEncoder()
            decoder.dateDecodingStrategy = .flexible
            encoder.dateEncodingStrategy = .using(.millisecondsSince1970)
            let date = try decoder.decode([Date].self, from: Data(#"["2024-05-01", 1714566600]"#.utf8))
            #expect(date[1] == Date(timeIntervalSince1970: 1_714_566_600))
            #expect(String(decoding: try encoder.encode([date[1]]), as: UTF8.self) == "[1714566600000]")
        }
    }

    private struct PlainProfile: Codable {
        var userID: Int
        var imageURL: String
    }

    private struct Profile: VariablyCodable, EmptyInitializable {
        var userID: Int64 = 0
        var imageURL = ""
        var updatedAt = Date(timeIntervalSince1970: 0)

        static let keySets = KeySets<Profile>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.userID, "user_id")
                Key(\.imageURL, "image_url")
            }
            KeySet(.local, style: .kebabCase)              // a source's keys derived from property names
            KeySet(.sqlite) {
                Key(\.userID, "user_id")
                Key(\.imageURL, "image_url")
                Key(\.updatedAt, "updated_at")
            }
        }
    }

    private struct Stamped: VariablyCodable, EmptyInitializable {
        var createdAt = Date(timeIntervalSince1970: 0)

        static let keySets = KeySets<Stamped>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.createdAt, "created_at").dates(.iso8601)               // one key
            }
            KeySet(.local, style: .snakeCase).dates(.millisecondsSince1970)  // one source
        }
    }

    @Suite struct DateStrategyExampleTests {
        @Test func dateStrategiesPerKeyAndPerSource() throws {
            _ = DateCodingStrategy.flexible.date(from: "2024-05-01T14:30:00+02:00")
            #expect(DateCodingStrategy.flexible.date(from: "2024-05-01T14:30:00+02:00") == Date(timeIntervalSince1970: 1_714_566_600))
            let stamped = try JSONDecoder().decode(Stamped.self, from: Data(#"{"created_at": "2024-05-01T12:30:00Z"}"#.utf8))
            let local = try JSONEncoder().encode(stamped, source: .local)
            #expect(String(decoding: local, as: UTF8.self) == #"{"created_at":1714566600000}"#)
        }
    }

    // MARK: - 4. Lenient scalars, 5. Defaults, 6. Elements and unknown cases

    private struct Inventory: VariablyCodable, EmptyInitializable {
        enum Status: String, Codable { case active, unknown }
        var age = 0
        var count: Int64 = 0
        var score = 0.0
        var ids: [Int] = []
        var flags: [String: Bool] = [:]
        var removed: [Int] = []
        var replaced: [Int] = []
        var decided: [Int] = []
        var status = Status.active

        static let keySets = KeySets<Inventory>(defaultSource: .remote) {
            KeySet(.local) {
                Key(\.age, "age").lenient()                                  // one key
                Key(\.ids, "ids").lenient().elements(.remove)      // ["1", 2, "x", null, 4] -> [1, 2, 4]
                Key(\.flags, "flags").lenient()                     // {"a": "yes"} -> ["a": true]
            }
            KeySet(.remote) { Key(\.age, "age") }.lenient()              // one source
            KeySet(.sqlite) {
                Key(\.age, "age").default(ifMissing: 0, ifNull: 0, ifInvalid: -1)
                Key(\.count, "count").default(ifMissing: 9)
                Key(\.score, "score").default(0.0)
            }
            KeySet("elements") {
                Key(\.removed, "removed").elements(.remove)
                Key(\.replaced, "replaced").elements(.fallback(0))
                Key(\.decided, "decided").elements(.custom { error in
                    if case .valueNotFound = error { return .fallback(-1) }
                    return .remove
                })
                Key(\.status, "status").decodingUnknownCases(as: Status.unknown)
            }
        }
    }

    @Suite struct OptionExampleTests {
        @Test func lenientDefaultAndElementExamples() throws {
            let decoder = JSONDecoder()
            decoder.decodingOptions.isLenient = true
            let remote = try decoder.decode(Inventory.self, from: Data(#"{"age": "41"}"#.utf8), source: .remote)
            #expect(remote.age == 41)
            let local = try JSONDecoder().decode(
                Inventory.self, from: Data(#"{"age": 1, "ids": ["1", 2, "x", null, 4], "flags": {"a": "yes"}}"#.utf8),
                source: .local)
            #expect(local.ids == [1, 2, 4] && local.flags == ["a": true])
            let sqlite = try JSONDecoder().decode(Inventory.self, from: Data(#"{"age": "x", "score": null}"#.utf8), source: .sqlite)
            #expect(sqlite.age == -1 && sqlite.count == 9 && sqlite.score == 0)
            let elements = try JSONDecoder().decode(
                Inventory.self,
                from: Data(#"{"removed": [1, "x"], "replaced": [1, "x"], "decided": [null, "x", 3], "status": "gone"}"#.utf8),
                source: "elements")
            #expect(elements.removed == [1] && elements.replaced == [1, 0] && elements.decided == [-1, 3])
            #expect(elements.status == .unknown)

            #expect(try JSONDecoder().decode(Product.self, from: Data(#"{"stock": "12"}"#.utf8)).stock == 12)
            #expect(try JSONDecoder().decode(Settings.self, from: Data("{}".utf8)).retries == 0)
            #expect(try JSONDecoder().decode(Scores.self, from: Data(#"{"ids": [1, "x", 3]}"#.utf8)).ids == [1, 3])
            #expect(try JSONDecoder().decode(Feed.self, from: Data(#"{"scores": [1, "x", 3]}"#.utf8)).scores == [1, 3])
            #expect(try JSONDecoder().decode([Level].self, from: Data(#"["low", "mid"]"#.utf8)) == [.low, .other])
        }
    }

    private struct Product: Codable {
        @Lenient var stock: Int
    }

    private struct Settings: Codable {
        @Defaulted<DefaultZero<Int>> var retries: Int
    }

    private struct Scores: Codable {
        var ids: [Int]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyCodingKey.self)
            ids = try container.decode([Int].self, forKey: "ids", elements: .remove)
        }
    }

    private struct Feed: Codable { @LossyArray var scores: [Int] }

    private enum Level: String, Codable, UnknownCaseDecodable {
        case low, high, other
        static let unknownCase = Level.other
    }

    // MARK: - 7. Reports

    @Suite struct ReportExampleTests {
        @Test func reportExample() throws {
            let data = userJSON
            let report = DecodeReport()
            let decoder = JSONDecoder(source: .remote)
            decoder.decodingOptions.report = report
            let users = try decoder.decode([User].self, from: data)
            _ = report.events.map(\.description)
            #expect(users.count == 1)
            let events = report.events.map(\.description)
            #expect(events.count == 4)
            #expect(events.first == "User.id (remote): coerced string \"7\" to Int64 at [0].id")

            decoder.decodingOptions.isStrict = true
            #expect(throws: (any Error).self) { try decoder.decode([User].self, from: data) }
        }
    }

    // MARK: - 8. Transforms

    private struct Listing: VariablyCodable, EmptyInitializable {
        var tags: [String] = []
        var price = 0.0
        var updatedAt = Date(timeIntervalSince1970: 0)
        var note = ""

        static let keySets = KeySets<Listing>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.tags, "tags").transform(.commaSeparated)                       // "a,b" <-> ["a", "b"]
                Key(\.price, "price", transform: .numericString)                     // "12.5" <-> 12.5
                Key(\.updatedAt, "updated", transform: ValueTransform.secondsSince1970.then(.numericString))
                Key(\.note, "note").transform(ValueTransform<String, String>(
                    decode: { $0.lowercased() }, encode: { $0.uppercased() }))
            }
        }
    }

    private struct TaggedPost: Codable {
        var tags: [String]

        init(tags: [String]) { self.tags = tags }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyCodingKey.self)
            tags = try container.decode("tags", using: .commaSeparated)          // plain Codable
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            try container.encode(tags, forKey: "tags", using: .commaSeparated)
        }
    }

    private enum CommaSeparatedTags: ValueTransformProvider {                    // plain Codable, synthesized
        static let transform = ValueTransform.commaSeparated
    }
    private struct Post: Codable {
        @Transformed<CommaSeparatedTags> var tags: [String]
    }

    @Suite struct TransformExampleTests {
        @Test func transformExamples() throws {
            let listing = try JSONDecoder().decode(
                Listing.self, from: Data(#"{"tags": "a,b", "price": "12.5", "updated": "60", "note": "Hi"}"#.utf8))
            #expect(listing.tags == ["a", "b"] && listing.price == 12.5 && listing.note == "hi")
            #expect(listing.updatedAt == Date(timeIntervalSince1970: 60))
            let post = try JSONDecoder().decode(TaggedPost.self, from: Data(#"{"tags": "x,y"}"#.utf8))
            #expect(post.tags == ["x", "y"])
            #expect(String(decoding: try JSONEncoder().encode(TaggedPost(tags: ["z"])), as: UTF8.self) == #"{"tags":"z"}"#)
            #expect(try JSONDecoder().decode(Post.self, from: Data(#"{"tags": "p,q"}"#.utf8)).tags == ["p", "q"])
        }
    }

    // MARK: - 9. Helpers and class hierarchies

    private struct Account: Decodable {
        var age: Int
        var nickname: String?
        var retries: Int

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyCodingKey.self)
            let age: Int = try container.decode("age")
            let nickname: String? = try container.decodeIfPresent("nickname")
            let retries = try container.decode("retries", default: 3)
            (self.age, self.nickname, self.retries) = (age, nickname, retries)
        }
    }

    private class Animal: Codable {
        var name: String
        static let animalKeys = KeySets<Animal>(defaultSource: .remote) {
            KeySet(.remote) { Key(\.name, "animal_name") }
            KeySet(.local) { Key(\.name, "NAME") }
        }
        required init(from decoder: any Decoder) throws {
            let container = try DecodingContainer(decoder: decoder, keySets: Animal.animalKeys)
            name = try container.decode(\.name)
        }
        func encode(to encoder: any Encoder) throws {
            try Animal.animalKeys.encode(self, to: encoder)
        }
    }

    private final class Dog: Animal {
        var breed: String
        var birthday: Date
        static let dogKeys = KeySets<Dog>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.breed, "dog_breed")
                Key(\.birthday, "born").dates(.dateOnly)
            }
            KeySet(.local) {
                Key(\.breed, "BREED")
                Key(\.birthday, "BIRTHDAY")
            }
        }
        required init(from decoder: any Decoder) throws {
            let container = try DecodingContainer(decoder: decoder, keySets: Dog.dogKeys)
            breed = try container.decode(\.breed)
            birthday = try container.decode(\.birthday)
            try super.init(from: decoder)
        }
        override func encode(to encoder: any Encoder) throws {
            try Dog.dogKeys.encode(self, to: encoder)
            try super.encode(to: encoder)
        }
    }

    @Suite struct HelperExampleTests {
        @Test func helperAndClassHierarchyExamples() throws {
            let account = try JSONDecoder().decode(Account.self, from: Data(#"{"age": 30}"#.utf8))
            #expect(account.age == 30 && account.nickname == nil && account.retries == 3)
            let dog = try JSONDecoder().decode(
                Dog.self, from: Data(#"{"animal_name": "Rex", "dog_breed": "collie", "born": "2020-02-03"}"#.utf8))
            #expect(dog.name == "Rex" && dog.breed == "collie")
            let local = try JSONEncoder(source: .local).encode(dog)
            let back = try JSONDecoder(source: .local).decode(Dog.self, from: local)
            #expect(back.name == "Rex" && back.breed == "collie" && back.birthday == dog.birthday)
        }
    }

    // MARK: - toolkit.md: a transform to a type that is not Codable

    struct NotAPair: Error {}

    private struct Place: VariablyCodable {
        var name: String
        var location: (Double, Double)

        static let keySets = KeySets<Place>(defaultSource: .remote) {
            let pair = ValueTransform<(Double, Double), [Double]>(
                decode: { guard $0.count == 2 else { throw NotAPair() }; return ($0[0], $0[1]) },
                encode: { [$0.0, $0.1] })
            KeySet(.remote) {
                Key(\.name, "name")
                Key(\.location, "loc", transform: pair)
            }
        }

        init(from container: DecodingContainer<Place>) throws {
            name = try container.decode(\.name)
            location = try container.decode(\.location)
        }
    }

    @Suite struct UncodableTransformExampleTests {
        @Test func aTupleCodesThroughItsTransformAndARefusedValueIsAnError() throws {
            let place = try JSONDecoder().decode(Place.self, from: Data(#"{"name": "Lyon", "loc": [45.76, 4.84]}"#.utf8))
            #expect(place.location.0 == 45.76 && place.location.1 == 4.84)
            let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(place)) as? [String: Any]
            #expect(json?["loc"] as? [Double] == [45.76, 4.84])
            #expect(throws: (any Error).self) {
                try JSONDecoder().decode(Place.self, from: Data(#"{"name": "Lyon", "loc": [1]}"#.utf8))
            }
        }
    }

    // MARK: - fast-json.md

    private struct Page<Item: Decodable>: Decodable {
        var next: String?
        var users: [Item]
    }

    @Suite struct FastJSONExampleTests {
        @Test func fastJSONExamples() throws {
            let report = DecodeReport()
            var data = Data(#"[{"id": "7", "age": 3, "created_at": "2024-05-01T12:30:00Z", "tags": [], "status": "active"}]"#.utf8)

            let decoder = KeySetJSONDecoder(source: .remote)
            let users = try decoder.decode([User].self, from: data)            // an array of models
            data = Data(#"{"id": 8, "created_at": "2024-05-01T12:30:00Z", "tags": ["a"], "status": "active"}"#.utf8)
            let user = try decoder.decode(User.self, from: data)               // one model
            data = Data(#"{"next": null, "users": [{"id": 9, "created_at": "2024-05-01T12:30:00Z", "tags": [], "status": "x"}]}"#.utf8)
            let page = try decoder.decode(Page<User>.self, from: data)         // any Decodable around models

            var lenient = KeySetJSONDecoder(source: .remote)
            lenient.decodingOptions = DecodingOptions(isLenient: true, report: report)   // toolkit options
            #expect(users[0].id == 7 && users[0].age == 3 && user.id == 8 && page.users[0].status == .unknown)
            data = Data(#"{"id": 1, "created_at": "2024-05-01T12:30:00Z", "tags": [], "status": "active", "nick": 5}"#.utf8)
            #expect(try lenient.decode(User.self, from: data).nickname == "5")
            #expect(!report.isEmpty)
        }

        @Test func fastJSONEncoderExample() throws {
            let users = try JSONDecoder().decode([User].self, from: userJSON)
            let data = try KeySetJSONEncoder(source: .remote).encode(users)
            #expect(try JSONDecoder().decode([User].self, from: data).map(\.id) == [7])
        }
    }
}
