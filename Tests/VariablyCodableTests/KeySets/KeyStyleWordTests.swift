import Testing
import VariablyCodable

@Suite struct KeyStyleWordTests {
    @Test(arguments: [
        ("userName", ["user", "Name"]), ("user_id", ["user", "id"]), ("HTTPStatus", ["HTTP", "Status"]),
        ("myABBRKey", ["my", "ABBR", "Key"]), ("imageURL", ["image", "URL"]), ("base64Value", ["base64", "Value"]),
        ("USER_NAME", ["USER", "NAME"]), ("kebab-case-key", ["kebab", "case", "key"]), ("", []),
    ])
    func splitsIdentifiersIntoWords(name: String, words: [String]) {
        #expect(KeyStyle.words(in: name) == words)
    }

    @Test(arguments: [
        ("userID", KeyStyle.snakeCase, "user_id"), ("user_id", .camelCase, "userID"),
        ("imageURL", .snakeCase, "image_url"), ("image_url", .camelCase, "imageURL"),
        ("myABBRKey", .camelCase, "myAbbrKey"), ("HTTPStatus", .snakeCase, "http_status"),
        ("userName", .kebabCase, "user-name"), ("userName", .pascalCase, "UserName"),
        ("userName", .screamingSnakeCase, "USER_NAME"), ("USER_NAME", .camelCase, "userName"),
    ])
    func convertsBetweenStyles(name: String, style: KeyStyle, expected: String) {
        #expect(style.apply(to: name) == expected)
    }
}
