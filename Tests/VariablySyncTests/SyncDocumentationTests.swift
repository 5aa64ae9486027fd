// The examples below are the documentation's own lines, kept as the documents have them.
// swift-format-ignore-file
import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

// The examples of docs/sync.md that no other test holds, compiled and run (DocumentationCoverageTests
// checks that every example's lines are here, in order). The model is nested in the suite so that it
// never meets the tests' own `User`. RepositoryIdentityTests tests declared primary keys at length.

@Suite struct SyncDocumentationTests {
    /// docs/sync.md, "Identity: the declared primary key".
    struct User: VariablyCodable, SQLiteStorable, Identifiable, Sendable {
        var userID: String
        var userName: String
        var note: String          // stored in SQLite only: see "Local-only columns"
        var id: String { userID }

        init(userID: String, userName: String, note: String = "") {
            (self.userID, self.userName, self.note) = (userID, userName, note)
        }
        init(from container: DecodingContainer<User>) throws {
            userID = try container.decode(\.userID)
            userName = try container.decode(\.userName)
            note = try container.decode(\.note, default: "")
        }

        static let keySets = KeySets<User>(defaultSource: .remote) {
            KeySet(.remote, excluding: [\.note]) { Key(\.userID, "user_id"); Key(\.userName, "user_name") }
            KeySet(.sqlite) { Key(\.userID, "user_id"); Key(\.userName, "user_name"); Key(\.note, "note") }
        }
        static let sqliteTable = SQLiteTable<User>("users", primaryKey: \.userID)
    }

    @Test func aDeclaredPrimaryKeyNamesTheRecordAndALocalOnlyColumnStaysLocal() async throws {
        let server = try SimulatedServer(records: [User(userID: "u-1", userName: "ada")])
        let repository = try Repository<User>(database: SQLiteDatabase.inMemory(), remote: server)
        try await repository.sync()
        var ada = try #require(try await repository.fetch(id: "u-1"))
        ada.note = "met at the conference"
        try await repository.save(ada)
        try await repository.sync()
        _ = try await server.upsert(User(userID: "u-1", userName: "ada lovelace"))
        try await repository.sync()
        let synced = try await repository.fetch(id: "u-1")
        #expect(synced?.userName == "ada lovelace")
        #expect(synced?.note == "met at the conference")
    }

    /// docs/sync.md, "Where the server lists no deletions".
    @Test func removeDeletedRecordsAndAStoreResync() async throws {
        let server = try SimulatedServer(records: (1...3).map { UserSyncModels.User(id: $0, userName: "user \($0)") })
        let users = try Repository(database: SQLiteDatabase.inMemory(), remote: server)
        try await users.sync()
        await server.delete(id: 2)
        let store = try SyncStore(users)
        let report = try await users.removeDeletedRecords()
        print(report.listedIDs, report.deleted)
        let all = try await store.resync()
        #expect(report.listedIDs == 2 && report.deleted == 1)
        #expect(all.for(UserSyncModels.User.self)?.isComplete == true)
    }
}
