import Foundation
import Testing
import VariablyCodable

/// Leading and trailing underscores, digits and acronyms, in every style.
@Suite struct KeyStyleEdgeTests {
    @Test(arguments: [
        ("_asd_ert_", ["_asd_ert_", "_asdErt_", "_AsdErt_", "_asd-ert_", "_ASD_ERT_"]),
        ("__private", ["__private", "__private", "__Private", "__private", "__PRIVATE"]),
        ("_userID", ["_user_id", "_userID", "_UserID", "_user-id", "_USER_ID"]),
        ("image_url__", ["image_url__", "imageURL__", "ImageURL__", "image-url__", "IMAGE_URL__"]),
        ("_", ["_", "_", "_", "_", "_"]),
        ("___", ["___", "___", "___", "___", "___"]),
        ("base64_value", ["base64_value", "base64Value", "Base64Value", "base64-value", "BASE64_VALUE"]),
        ("_2fa_code", ["_2fa_code", "_2faCode", "_2faCode", "_2fa-code", "_2FA_CODE"]),
        ("_HTTPStatus_", ["_http_status_", "_httpStatus_", "_HTTPStatus_", "_http-status_", "_HTTP_STATUS_"]),
        ("a__b", ["a_b", "aB", "AB", "a-b", "A_B"]),
    ])
    func everyStyleKeepsLeadingAndTrailingUnderscores(name: String, expected: [String]) {
        let styles: [KeyStyle] = [.snakeCase, .camelCase, .pascalCase, .kebabCase, .screamingSnakeCase]
        #expect(styles.map { $0.apply(to: name) } == expected)
        #expect(styles.map { KeyStyleConverter($0).convert(name) } == expected)
    }

    private struct Keys: Decodable, Equatable {
        var _asdErt_: Int
        var __private: Int
        var userName_: Int
        var base64Value: Int
    }

    /// The any-case strategy agrees with `convertFromSnakeCase` on snake_case keys with underscores
    /// around them, digits and runs of underscores.
    @Test func anyCaseAgreesWithFoundationsSnakeCaseOnUnderscores() throws {
        let json = Data(#"{"_asd_ert_": 1, "__private": 2, "user_name_": 3, "base64_value": 4}"#.utf8)
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        let anyCase = JSONDecoder()
        anyCase.keyDecodingStrategy = .convertFromAnyCase
        let expected = Keys(_asdErt_: 1, __private: 2, userName_: 3, base64Value: 4)
        #expect(try foundation.decode(Keys.self, from: json) == expected)
        #expect(try anyCase.decode(Keys.self, from: json) == expected)
    }
}
