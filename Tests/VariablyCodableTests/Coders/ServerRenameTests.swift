import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablyTestSupport

/// The seed scenario: the server renames `user_name` to `username`; the cache must stay readable.
@Suite struct ServerRenameTests {
    @Test func alternativeKeyAbsorbsTheRenameAndTheCacheStaysReadable() throws {
        let before = try JSONEncoder().encode(User.samples(3), source: .remote)
        let cached = try PropertyListEncoder().encode(
            try JSONDecoder().decode([User].self, from: before, source: .remote), source: .local)

        // API v2 renames the key.
        let renamed = String(decoding: before, as: UTF8.self).replacingOccurrences(
            of: "\"user_name\"", with: "\"username\"")
        #expect(!renamed.contains("user_name"))
        let after = try JSONDecoder().decode([User].self, from: json(renamed), source: .remote)
        #expect(after == User.samples(3))

        // The local cache written before the rename still decodes, and encoding keeps the first key.
        #expect(try PropertyListDecoder().decode([User].self, from: cached, source: .local) == User.samples(3))
        #expect(try jsonObject(JSONEncoder().encode(after[0], source: .remote))["user_name"] as? String == "user0")
    }

    @Test func firstPresentAlternativeWins() throws {
        let text =
            #"{"id":1,"user_name":"old","username":"new","email_address":"e","profile":{"age":3,"score":1},"is_active":true,"updated_at":0}"#
        #expect(try JSONDecoder().decode(User.self, from: json(text), source: .remote).userName == "old")
    }
}
