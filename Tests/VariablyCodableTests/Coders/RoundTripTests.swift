import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablyTestSupport

/// A format a key-set model can be written to and read back from.
enum Format: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case json, propertyList

    var testDescription: String { rawValue }

    func encode<T: Encodable>(_ value: T, source: CodingSource) throws -> Data {
        switch self {
        case .json: try JSONEncoder().encode(value, source: source)
        case .propertyList: try PropertyListEncoder().encode(value, source: source)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, from data: Data, source: CodingSource) throws -> T {
        switch self {
        case .json: try JSONDecoder().decode(type, from: data, source: source)
        case .propertyList: try PropertyListDecoder().decode(type, from: data, source: source)
        }
    }
}

struct Case: Sendable, CustomTestStringConvertible {
    let source: CodingSource
    let format: Format
    var testDescription: String { "\(source) as \(format.rawValue)" }
    static let all: [Case] = [
        Case(source: .remote, format: .json), Case(source: .local, format: .json),
        Case(source: .local, format: .propertyList), Case(source: .sqlite, format: .json),
    ]
}

@Suite struct RoundTripTests {
    @Test(arguments: Case.all)
    func userRoundTripsThroughEachSourceAndFormat(_ testCase: Case) throws {
        let users = User.samples(20)
        let data = try testCase.format.encode(users, source: testCase.source)
        let decoded = try testCase.format.decode([User].self, from: data, source: testCase.source)
        #expect(decoded == users)
    }

    @Test func eachSourceWritesItsOwnKeys() throws {
        let user = User.sample(1)
        let remote = try jsonObject(JSONEncoder().encode(user, source: .remote))
        #expect(
            Set(remote.keys) == [
                "id", "user_name", "email_address", "profile", "is_active", "updated_at", "tags", "nick_name",
            ])
        #expect((remote["profile"] as? [String: Any])?.keys.sorted() == ["age", "score"])
        let local = try jsonObject(JSONEncoder().encode(user, source: .local))
        #expect(
            Set(local.keys) == [
                "ID", "USER_NAME", "EMAIL", "AGE", "IS_ACTIVE", "SCORE", "UPDATED_AT", "TAGS", "NICKNAME",
            ])
        let sqlite = try jsonObject(JSONEncoder().encode(user, source: .sqlite))
        #expect(
            Set(sqlite.keys) == [
                "id", "user_name", "email", "age", "is_active", "score", "updated_at", "tags", "nickname",
            ])
    }

    @Test func entriesFollowDeclarationOrderWithStyledKeysAppendedInFirstSeenOrder() throws {
        let sqlite = try #require(User.keySets[.sqlite])
        #expect(
            sqlite.entries.map(\.key.primary.description) == [
                "id", "user_name", "email", "age", "is_active", "score", "updated_at", "tags", "nickname",
                "favorite_post_id",
            ])
        let remote = try #require(User.keySets[.remote])
        #expect(
            remote.entries.map(\.propertyName) == [
                "id", "userName", "email", "age", "isActive", "score", "updatedAt", "tags", "nickname",
                "favoritePostID",
            ])
    }

    @Test func defaultSourceIsUsedWhenNoneIsNamed() throws {
        let data = try JSONEncoder().encode(User.sample(2))
        #expect(try jsonObject(data)["user_name"] as? String == "user2")
        #expect(try JSONDecoder().decode(User.self, from: data) == User.sample(2))
    }

    @Test func sourceInUserInfoIsUsed() throws {
        let encoder = JSONEncoder(source: .local)
        let decoder = JSONDecoder(source: .local)
        let data = try encoder.encode(User.sample(3))
        #expect(try jsonObject(data)["USER_NAME"] as? String == "user3")
        #expect(try decoder.decode(User.self, from: data) == User.sample(3))
    }

    @Test func nilOptionalIsOmittedAndMissingOptionalDecodesAsNil() throws {
        var user = User.sample(5)
        user.nickname = nil
        let data = try JSONEncoder().encode(user, source: .remote)
        #expect(try jsonObject(data)["nick_name"] == nil)
        #expect(try JSONDecoder().decode(User.self, from: data, source: .remote).nickname == nil)
        let withNull = Data(
            #"{"id":1,"user_name":"a","email_address":"e","profile":{"age":3,"score":1},"is_active":true,"updated_at":0,"nick_name":null}"#
                .utf8)
        let decoded = try JSONDecoder().decode(User.self, from: withNull, source: .remote)
        #expect(decoded.nickname == nil)
        #expect(decoded.tags == [])
    }
}

func jsonObject(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}
