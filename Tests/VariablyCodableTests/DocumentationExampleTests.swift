// The examples below are the documentation's own lines, kept as the documents have them.
// swift-format-ignore-file
import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablyCodableTesting

// The examples of docs/key-sets.md, compiled and run (DocumentationCoverageTests checks that every
// example's lines are here). Keep them in step with the docs.

extension DocumentationExampleTests {
    struct User: VariablyCodable, Identifiable, Hashable {
        var id: Int64
        var userName: String
        var email: String
        var age: Int
        var nickname: String?

        init(id: Int64, userName: String, email: String, age: Int, nickname: String? = nil) {
            (self.id, self.userName, self.email, self.age, self.nickname) = (id, userName, email, age, nickname)
        }

        init(from container: DecodingContainer<User>) throws {
            id = try container.decode(\.id)
            userName = try container.decode(\.userName)
            email = try container.decode(\.email)
            age = try container.decode(\.age, default: 0)
            nickname = try container.decode(\.nickname)
        }

        static let keySets = KeySets<User>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id")
                Key(\.userName, ["user_name", "username"])
                Key(\.email, "contact.email_address")
                Key(\.age, "profile.age")
                Key(\.nickname, "nick_name")
            }
            KeySet(.local, style: .screamingSnakeCase)
            KeySet(.sqlite, style: .snakeCase)
        }
    }
}

private struct Settings: VariablyCodable, EmptyInitializable {
    var theme = "light"
    var fontSize = 12
    static let keySets = KeySets<Settings>(defaultSource: .local) {
        KeySet(.local, style: .snakeCase) { Key(\.theme); Key(\.fontSize) }
    }
}

extension Settings: Equatable {}

/// `excluding:` in docs/key-sets.md: a property the local cache does not store.
private enum ExcludingExample {
    struct User: VariablyCodable {
        var id: Int64
        var avatarCache = Data()

        init(id: Int64, avatarCache: Data) {
            (self.id, self.avatarCache) = (id, avatarCache)
        }

        init(from container: DecodingContainer<User>) throws {
            id = try container.decode(\.id)
            if container.contains(\.avatarCache) {   // false in sources that exclude it
                avatarCache = try container.decode(\.avatarCache)
            }
        }

        static let keySets = KeySets<User>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id")
                Key(\.avatarCache, "avatar")
            }
            KeySet(.local, style: .snakeCase, excluding: [\User.avatarCache])
        }
    }
}

@Test func userKeySetsAreComplete() {
    expectValidKeySets(User.self)
}

@Suite struct DocumentationExampleTests {
    @Test func keySetsExampleDecodesServerDataAndWritesTheCache() throws {
        let serverData = Data(#"{"id":7,"username":"ada","contact":{"email_address":"ada@example.com"},"nick_name":null}"#.utf8)
        let user = try JSONDecoder().decode(User.self, from: serverData, source: .remote)
        #expect(user == User(id: 7, userName: "ada", email: "ada@example.com", age: 0))
        let cache = try PropertyListEncoder().encode(user, source: .local)
        #expect(try PropertyListDecoder().decode(User.self, from: cache, source: .local) == user)
        let sqliteKeys = User.keySets[.sqlite]?.entries.map(\.key.primary.description)
        #expect(sqliteKeys == ["id", "user_name", "email", "age", "nickname"])
        expectValidKeySets(User.self)
    }

    @Test func anExcludedPropertyIsNeitherWrittenNorReadInThatSource() throws {
        let user = ExcludingExample.User(id: 3, avatarCache: Data([1, 2]))
        let local = try JSONEncoder().encode(user, source: .local)
        #expect(String(decoding: local, as: UTF8.self) == #"{"id":3}"#)
        let fromCache = try JSONDecoder().decode(ExcludingExample.User.self, from: local, source: .local)
        #expect(fromCache.id == 3 && fromCache.avatarCache.isEmpty)
        let remote = try JSONEncoder().encode(user, source: .remote)
        let fromServer = try JSONDecoder().decode(ExcludingExample.User.self, from: remote, source: .remote)
        #expect(fromServer.avatarCache == Data([1, 2]))
        expectValidKeySets(ExcludingExample.User.self)
    }

    @Test func settingsExampleNeedsNoDecodingCode() throws {
        let data = try JSONEncoder().encode(Settings(theme: "dark", fontSize: 15))
        #expect(String(decoding: data, as: UTF8.self).contains("\"font_size\":15"))
        #expect(try JSONDecoder().decode(Settings.self, from: data) == Settings(theme: "dark", fontSize: 15))
    }
}
