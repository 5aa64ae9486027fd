import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablyTestSupport

/// `KeySetJSONDecoder` on the core's and the toolkit's fixtures: same values, errors and reports as
/// `JSONDecoder` with the same source.
@Suite struct FastJSONDecoderTests {
    @Test func decodesAModelAnArrayAndAPlainWrapper() throws {
        let json = #"""
            {"items": [{"id": 1, "user_name": "ada", "score": 1.5, "is_active": true, "tags": ["a", "b"],
                        "address": {"city": "Paris", "postal": {"zip": "75001"}}, "child": {"code": 7, "name": "x"}}],
             "total": 1}
            """#
        let page = try KeySetJSONDecoder(source: .remote).decode(FastPage.self, from: Data(json.utf8))
        #expect(page.items.count == 1)
        #expect(page.items[0].name == "ada")
        #expect(page.items[0].city == "Paris")
        #expect(page.items[0].zip == "75001")
        #expect(
            page.items[0].child
                == (try JSONDecoder(source: .remote).decode(FastPage.self, from: Data(json.utf8))).items[0].child)
        expectSameOutcome(FastPage.self, json)
    }

    @Test(arguments: [CodingSource.remote, .local, .remoteV2])
    func decodesTheCoreFixturesInEverySource(source: CodingSource) throws {
        let profile = Profile(
            name: "Ada", role: .admin, joined: Date(timeIntervalSinceReferenceDate: 12.5), avatar: Data([1, 2, 3]),
            homepage: URL(string: "https://example.com"), token: UUID(), balance: Decimal(string: "12.34")!,
            limits: ["a": 1, "b": 2], address: Address(street: "1 rue", city: "Paris"),
            previous: [Address(street: "2", city: "Lyon")], scores: [1, 2.5])
        if source != .remoteV2 {
            let data = try JSONEncoder(source: source).encode(profile)
            let decoded = try KeySetJSONDecoder(source: source).decode(Profile.self, from: data)
            #expect(decoded == profile)
            expectSameOutcome(Profile.self, String(decoding: data, as: UTF8.self), source: source)
        }
        let account = Account(id: 3, owner: "Grace", address: Address(street: "s", city: "c"))
        if source != .local {
            let data = try JSONEncoder(source: source).encode(account)
            #expect(try KeySetJSONDecoder(source: source).decode(Account.self, from: data) == account)
        } else {
            // No key set for this source: the same error as Foundation's.
            expectSameOutcome(Account.self, #"{"id": 1}"#, source: source)
        }
        let user = User.sample(0)
        let data = try JSONEncoder(source: .remote).encode([user])
        #expect(try KeySetJSONDecoder(source: .remote).decode([User].self, from: data) == [user])
    }

    @Test func keepsTheSameErrorsAndCodingPaths() {
        let cases = [
            #"[{"id": 1, "owner": "a", "address": null}, {"id": "2", "owner": "b"}]"#,
            #"[{"id": 1}]"#,
            #"[{"id": 1, "owner_name": null, "owner": "b"}]"#,
            #"[{"id": 1, "owner": "a", "address": {"street_line": 5, "city": "c"}}]"#,
            #"[{"id": 1, "owner": "a", "address": 7}]"#,
            #"[{"id": 1, "owner": "a"}, null]"#,
            #"[{"id": 1, "owner": "a"}, []]"#,
            #"{"id": 1}"#,
            #"[{"id": 1.5, "owner": "a"}]"#,
            #"[{"id": 99999999999999999999, "owner": "a"}]"#,
        ]
        for json in cases { expectSameOutcome([Account].self, json) }
        let v2 = [
            #"{"account_id": 1, "meta": {"owner": "x"}}"#, #"{"account_id": 1, "meta": null}"#,
            #"{"account_id": 1, "meta": "x"}"#, #"{"account_id": 1, "meta": {"address": []}}"#, #"{"account_id": 1}"#,
        ]
        for json in v2 { expectSameOutcome(Account.self, json, source: .remoteV2) }
    }

    @Test func errorsNameTheSourceKeyPathAndCodingPath() throws {
        let json = #"[{"id": 1, "owner": "a"}, {"id": 2, "owner": 3}]"#
        #expect {
            try KeySetJSONDecoder(source: .remote).decode([Account].self, from: Data(json.utf8))
        } throws: { error in
            "\(error)"
                == #"Account.owner (remote, keys "owner_name" | "owner"): expected String: Expected to decode String but found number instead. at [1].owner"#
        }
    }

    @Test func usesTheModelsDefaultSourceWithoutOne() throws {
        let json = #"{"id": 1, "user_name": "ada", "score": 2, "is_active": false}"#
        let item = try KeySetJSONDecoder().decode(FastItem.self, from: Data(json.utf8))
        #expect(item.name == "ada")
        expectSameOutcome(Account.self, #"{"id": 1, "owner": "a"}"#, source: "nowhere")
    }

    @Test func decodesDerivedModelsThatAssignKeyPaths() throws {
        let json = #"{"street_line": "1 rue", "city": "Paris"}"#
        #expect(
            try KeySetJSONDecoder(source: .remote).decode(Address.self, from: Data(json.utf8))
                == Address(street: "1 rue", city: "Paris"))
        expectSameOutcome(Address.self, #"{"street_line": 1}"#)
        expectSameOutcome(Address.self, #"{"city": "x"}"#)
    }

    @Test func matchesKeysWrittenWithEscapesOrInAnotherNormalForm() throws {
        let json = #"{"i\u0064": 1, "own\u0065r": "a"}"#
        #expect(try KeySetJSONDecoder(source: .remote).decode(Account.self, from: Data(json.utf8)).owner == "a")
        expectSameOutcome([String: Int].self, "{\"e\u{301}\": 1, \"\u{E9}\": 2}")
    }

    @Test func keepsTheFirstOfDuplicateKeysAsFoundationDoes() throws {
        let json = #"{"id": 1, "owner": "first", "owner": "second", "id": 2}"#
        let account = try KeySetJSONDecoder(source: .remote).decode(Account.self, from: Data(json.utf8))
        #expect(account.owner == "first" && account.id == 1)
        expectSameOutcome(Account.self, json)
    }

    @Test func reusesKeyOrderHintsAcrossObjectsWithDifferentOrders() throws {
        let json = #"""
            [{"id": 1, "owner": "a"}, {"owner": "b", "id": 2}, {"x": 0, "id": 3, "owner_name": "c"}, {"id": 4, "owner": "d"}]
            """#
        let accounts = try KeySetJSONDecoder(source: .remote).decode([Account].self, from: Data(json.utf8))
        #expect(accounts.map(\.owner) == ["a", "b", "c", "d"])
        #expect(accounts.map(\.id) == [1, 2, 3, 4])
    }

    // MARK: - Toolkit options

    @Test func appliesToolkitOptionsAsFoundationDoes() {
        let payloads = [
            #"[{"id": "7", "age": "x", "created_at": "2024-05-01T10:00:00Z", "tags": ["a", 2, null], "status": "gone"}]"#,
            #"[{"id": 7, "age": null, "created_at": "2024-05-01T10:00:00Z", "tags": [], "status": "active", "nick": "n"}]"#,
            #"[{"id": 7.0, "created_at": "nope", "tags": ["a"], "status": 3}]"#,
            #"[{"id": true, "age": 1.5, "created_at": "2024-05-01T10:00:00Z", "tags": "a", "status": "active"}]"#,
            #"[{"id": 1, "age": 2, "created_at": null, "tags": ["a"], "status": null}]"#,
        ]
        for json in payloads {
            for options in [
                DecodingOptions(), DecodingOptions(isLenient: true), DecodingOptions(isStrict: true),
                DecodingOptions(isLenient: true, isStrict: true),
            ] {
                expectSameOutcome([Member].self, json, options: options)
            }
        }
        let local = #"{"ID": 1, "AGE": "2", "CREATED_AT": 1714566600000, "TAGS": [], "STATUS": "active"}"#
        expectSameOutcome(Member.self, local, source: .local)
        expectSameOutcome(Member.self, local.replacingOccurrences(of: "\"2\"", with: "2"), source: .local)
    }

    @Test func recordsTheSameDecodeReport() throws {
        let json = #"""
            [{"id": "7", "created_at": "2024-05-01T10:00:00Z", "tags": ["a", 2], "status": "gone"}]
            """#
        let foundationReport = DecodeReport()
        let foundation = JSONDecoder(source: .remote)
        foundation.decodingOptions = DecodingOptions(report: foundationReport)
        let expected = try foundation.decode([Member].self, from: Data(json.utf8))
        let fastReport = DecodeReport()
        var fast = KeySetJSONDecoder(source: .remote)
        fast.decodingOptions = DecodingOptions(report: fastReport)
        let members = try fast.decode([Member].self, from: Data(json.utf8))
        #expect(members == expected)
        #expect(fastReport.events.map(\.kind) == foundationReport.events.map(\.kind))
        #expect(fastReport.events.map(\.keyPath) == foundationReport.events.map(\.keyPath))
        #expect(
            fastReport.events.map { $0.codingPath.map(\.stringValue) }
                == foundationReport.events.map { $0.codingPath.map(\.stringValue) })
        #expect(!fastReport.events.isEmpty)
    }

    // MARK: - Plain Decodable types

    @Test func decodesPlainTypesThroughAStandardDecoder() throws {
        struct Wrapper: Decodable, Equatable {
            enum Kind: Int, Decodable { case a = 1, b = 2 }
            var kinds: [Kind]
            var nested: [String: [Double?]]
            var set: Set<Int>
            var optional: Int?
            var date: Date
            var uuid: UUID
        }
        let json = #"""
            {"kinds": [1, 2], "nested": {"x": [1, null, 2.5]}, "set": [3, 3, 4], "date": 12.5,
             "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "optional": null}
            """#
        let value = try KeySetJSONDecoder().decode(Wrapper.self, from: Data(json.utf8))
        #expect(value == (try JSONDecoder().decode(Wrapper.self, from: Data(json.utf8))))
        expectSameOutcome(Wrapper.self, json.replacingOccurrences(of: "[1, 2]", with: "[1, 3]"))
        expectSameOutcome(Wrapper.self, json.replacingOccurrences(of: "12.5", with: "\"x\""))
        expectSameOutcome(Wrapper.self, json.replacingOccurrences(of: "\"set\": [3, 3, 4],", with: ""))
    }

    @Test func superDecodersAndNestedContainersBehaveAsFoundations() throws {
        struct Custom: Decodable, Equatable {
            var a: Int
            var b: [String]
            var c: Int?
            var missing: Bool
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyCodingKey.self)
                var list = try container.nestedUnkeyedContainer(forKey: "list")
                a = try list.decode(Int.self)
                let inner = try list.nestedContainer(keyedBy: AnyCodingKey.self)
                b = try inner.decode([String].self, forKey: "b")
                c = try list.decodeIfPresent(Int.self)
                _ = try list.decodeIfPresent(Int.self)
                missing = try container.superDecoder(forKey: "nope").singleValueContainer().decodeNil()
            }
        }
        expectSameOutcome(Custom.self, #"{"list": [1, {"b": ["x"]}, null]}"#)
        expectSameOutcome(Custom.self, #"{"list": [1, {"b": ["x"]}]}"#)
        expectSameOutcome(Custom.self, #"{"list": [1, {"b": [1]}]}"#)
        expectSameOutcome(Custom.self, #"{"list": [1]}"#)
        expectSameOutcome(Custom.self, #"{"list": {}}"#)
    }

    @Test func decodesClassHierarchiesThroughTheStandardDecoder() throws {
        let json = #"[{"animal_name": "Rex", "dog_breed": "collie", "born": "2020-05-01"}]"#
        let fast = try KeySetJSONDecoder(source: .remote).decode([Dog].self, from: Data(json.utf8))
        let foundation = try JSONDecoder(source: .remote).decode([Dog].self, from: Data(json.utf8))
        #expect(fast.map { [$0.name, $0.breed] } == foundation.map { [$0.name, $0.breed] })
        #expect(fast.map(\.birthday) == foundation.map(\.birthday))
        let broken = #"[{"animal_name": 1, "dog_breed": "collie", "born": "2020-05-01"}]"#
        #expect(
            outcome { try KeySetJSONDecoder(source: .remote).decode([Dog].self, from: Data(broken.utf8)).count }
                == outcome { try JSONDecoder(source: .remote).decode([Dog].self, from: Data(broken.utf8)).count })
    }

    @Test func decodesFromManyThreadsAtOnce() async throws {
        let data = try JSONEncoder(source: .remote).encode(User.samples(50))
        let decoder = KeySetJSONDecoder(source: .remote)
        try await withThrowingTaskGroup(of: [User].self) { group in
            for _ in 0..<8 { group.addTask { try decoder.decode([User].self, from: data) } }
            for try await users in group { #expect(users == User.samples(50)) }
        }
    }
}
