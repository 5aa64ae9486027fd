import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablyTestSupport

@Suite struct VariablyCodingErrorTests {
    static let validUser =
        #"{"id":1,"user_name":"a","email_address":"e","profile":{"age":3,"score":1},"is_active":true,"updated_at":0}"#

    func decodeError<T: Decodable>(_ type: T.Type, _ text: String, source: CodingSource? = .remote) throws
        -> VariablyCodingError
    {
        let decoder = JSONDecoder()
        if let source { decoder.userInfo[.codingSource] = source }
        return try #require(throws: VariablyCodingError.self) { try decoder.decode(type, from: json(text)) }
    }

    @Test func missingKeyNamesModelPropertySourceKeysAndPath() throws {
        let text =
            "{\"data\":[\(Self.validUser),\(Self.validUser),\(Self.validUser),\(Self.validUser.replacingOccurrences(of: "\"user_name\":\"a\",", with: ""))]}"
        struct Page: Decodable { var data: [User] }
        let error = try decodeError(Page.self, text)
        #expect(error.reason == .keyNotFound)
        #expect(error.source == .remote)
        #expect(error.modelType == "User")
        #expect(error.keyPath == "\\User.userName")
        #expect(error.keys == ["user_name", "username"])
        #expect(
            error.description == #"User.userName (remote, keys "user_name" | "username"): key not found at data[3]"#)
        #expect(error.underlyingError is DecodingError)
    }

    @Test func missingNestedKeyReportsTheWholePath() throws {
        let error = try decodeError(User.self, Self.validUser.replacingOccurrences(of: "\"age\":3,", with: ""))
        #expect(error.reason == .keyNotFound)
        #expect(error.description.hasPrefix(#"User.age (remote, key "profile.age"): "#))
    }

    @Test func typeMismatchKeepsTheCodingPathOfTheValue() throws {
        let error = try decodeError(
            User.self, Self.validUser.replacingOccurrences(of: "\"age\":3", with: "\"age\":\"old\""))
        #expect(error.reason == .typeMismatch)
        #expect(error.codingPath.map(\.stringValue) == ["profile", "age"])
        #expect(error.description.hasPrefix(#"User.age (remote, key "profile.age"): expected Int"#))
        #expect(error.description.hasSuffix("at profile.age"))
    }

    @Test func nullForARequiredValueIsValueNotFound() throws {
        let error = try decodeError(
            User.self,
            Self.validUser.replacingOccurrences(of: "\"email_address\":\"e\"", with: "\"email_address\":null"))
        #expect(error.reason == .valueNotFound)
        #expect(error.keyPath == "\\User.email")
    }

    @Test func invalidEnumRawValueIsDataCorrupted() throws {
        let text =
            #"{"data":{"profile":{"name":"x","role":"owner"}},"joined":0,"avatar":"","token":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8","balance":1,"limits":{},"address":{"street_line":"x","city":"y"},"previous_addresses":[]}"#
        let error = try decodeError(Profile.self, text)
        #expect(error.reason == .dataCorrupted)
        #expect(error.keyPath == "\\Profile.role")
    }

    @Test func errorsInNestedModelsNameTheNestedProperty() throws {
        let error = try decodeError(Account.self, #"{"id":1,"owner":"a","address":{"street_line":"s"}}"#)
        #expect(error.modelType == "Address")
        #expect(error.keyPath == "\\Address.city")
        #expect(error.description == #"Address.city (remote, key "city"): key not found at address"#)
    }

    @Test func noSourceAndNoDefaultIsAClearError() throws {
        let error = try decodeError(Account.self, #"{"id":1,"owner":"a"}"#, source: nil)
        #expect(error.reason == .noSource)
        #expect(error.description.contains("no coding source chosen"))
        let encodeError = try #require(throws: VariablyCodingError.self) {
            try JSONEncoder().encode(Account(id: 1, owner: "a", address: nil))
        }
        #expect(encodeError.reason == .noSource)
    }

    @Test func sourceWithoutKeySetListsTheDeclaredOnes() throws {
        let error = try decodeError(Account.self, "{}", source: .sqlite)
        #expect(error.reason == .noKeySet(declared: [.remote, .remoteV2]))
        #expect(
            error.description
                == "Account (sqlite): no key set for this source (declared: remote, remote.v2) at top level")
    }

    @Test func aNonObjectIsATypeMismatchForTheModel() throws {
        let error = try decodeError(User.self, "[1,2]")
        #expect(error.reason == .typeMismatch)
        #expect(error.keyPath == nil)
    }

    @Test func encodingErrorsNameTheProperty() throws {
        struct Reading: VariablyEncodable {
            var value: Double
            static let keySets = KeySets<Reading>(defaultSource: .remote) { KeySet(.remote) { Key(\.value, "v") } }
        }
        let error = try #require(throws: VariablyCodingError.self) { try JSONEncoder().encode(Reading(value: .nan)) }
        #expect(error.reason == .invalidValue)
        #expect(error.keyPath == "\\Reading.value")
    }
}
