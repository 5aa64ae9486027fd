import Foundation
import Testing
import VariablyCodable

@Suite struct KeyStyleTests {
    @Test(arguments: [
        ("userID", KeyStyle.snakeCase, "user_id"),
        ("user_id", .camelCase, "userID"),
        ("imageURL", .snakeCase, "image_url"),
        ("image_url", .camelCase, "imageURL"),
        ("myABBRKey", .camelCase, "myAbbrKey"),
        ("HTTPStatus", .snakeCase, "http_status"),
        ("userName", .kebabCase, "user-name"),
        ("user-name", .pascalCase, "UserName"),
        ("userName", .screamingSnakeCase, "USER_NAME"),
        ("USER_NAME", .camelCase, "userName"),
        ("base64Value", .snakeCase, "base64_value"),
    ])
    func convertsBetweenStylesWithAcronyms(name: String, style: KeyStyle, expected: String) {
        #expect(style.apply(to: name) == expected)
        #expect(KeyStyleConverter(style).convert(name) == expected)
    }

    /// The table of docs/toolkit.md, row by row.
    @Test(arguments: [
        ("userID", ["user_id", "userID", "UserID", "user-id", "USER_ID"]),
        ("imageURL", ["image_url", "imageURL", "ImageURL", "image-url", "IMAGE_URL"]),
        ("HTTPStatus", ["http_status", "httpStatus", "HTTPStatus", "http-status", "HTTP_STATUS"]),
        ("myABBRKey", ["my_abbr_key", "myAbbrKey", "MyAbbrKey", "my-abbr-key", "MY_ABBR_KEY"]),
    ])
    func documentedTableHolds(name: String, expected: [String]) {
        let styles: [KeyStyle] = [.snakeCase, .camelCase, .pascalCase, .kebabCase, .screamingSnakeCase]
        #expect(styles.map { $0.apply(to: name) } == expected)
    }

    struct Profile: Codable, Equatable {
        var userID: Int
        var imageURL: String
        var displayName: String
        var httpStatus: Int
    }

    @Test(arguments: [
        #"{"user_id": 1, "image_url": "u", "display_name": "d", "http_status": 200}"#,
        #"{"user-id": 1, "image-url": "u", "display-name": "d", "http-status": 200}"#,
        #"{"UserID": 1, "ImageURL": "u", "DisplayName": "d", "HTTPStatus": 200}"#,
        #"{"USER_ID": 1, "IMAGE_URL": "u", "DISPLAY_NAME": "d", "HTTP_STATUS": 200}"#,
        #"{"userID": 1, "imageURL": "u", "displayName": "d", "httpStatus": 200}"#,
    ])
    func anyStyleStrategyAcceptsEveryStyle(json: String) throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromAnyCase
        let profile = try decoder.decode(Profile.self, from: Data(json.utf8))
        #expect(profile == Profile(userID: 1, imageURL: "u", displayName: "d", httpStatus: 200))
    }

    @Test func encodingStrategyWritesTheStyleAndRoundTrips() throws {
        let profile = Profile(userID: 1, imageURL: "u", displayName: "d", httpStatus: 200)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convert(to: .snakeCase)
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(profile)
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"display_name":"d","http_status":200,"image_url":"u","user_id":1}"#)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromAnyCase
        #expect(try decoder.decode(Profile.self, from: data) == profile)
    }

    @Test func keySetsDeriveEachSourcesKeysFromPropertyNames() throws {
        struct Photo: VariablyCodable, EmptyInitializable, Equatable {
            var imageURL = ""
            var ownerID = 0
            static let keySets = KeySets<Photo>(defaultSource: .remote) {
                KeySet(.remote, style: .snakeCase) {
                    Key(\.imageURL)
                    Key(\.ownerID)
                }
                KeySet(.local, style: .kebabCase)
                KeySet(.sqlite, style: .screamingSnakeCase)
            }
        }
        #expect(Photo.keySets[.remote]?.entries.map(\.key.primary.description) == ["image_url", "owner_id"])
        #expect(Photo.keySets[.local]?.entries.map(\.key.primary.description) == ["image-url", "owner-id"])
        #expect(Photo.keySets[.sqlite]?.entries.map(\.key.primary.description) == ["IMAGE_URL", "OWNER_ID"])
    }
}

@Suite struct KeyStyleConverterConcurrencyTests {
    @Test func oneConverterServesManyThreads() async {
        let converter = KeyStyleConverter(.camelCase)
        let names = (0..<200).map { "field_\($0)_url" }
        let results = await withTaskGroup(of: Bool.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    names.shuffled().allSatisfy { converter.convert($0) == KeyStyle.camelCase.apply(to: $0) }
                        && converter.convert("user_id") == "userID" && worker >= 0
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
    }
}
