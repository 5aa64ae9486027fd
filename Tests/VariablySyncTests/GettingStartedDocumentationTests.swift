// The examples below are the documentation's own lines, kept as the documents have them.
// swift-format-ignore-file
import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

// The examples of docs/getting-started.md and docs/sync.md, compiled and run (DocumentationCoverageTests
// checks that every example's lines are here, in order). Keep them in step with the docs.

extension GettingStartedDocumentationTests {
    struct User: VariablyCodable, SQLiteStorable, Identifiable, Sendable {
        var id: Int64
        var userName: String
        var email: String
        var age: Int
        var isActive: Bool
        var updatedAt: Date

        init(id: Int64, userName: String, email: String, age: Int, isActive: Bool, updatedAt: Date) {
            (self.id, self.userName, self.email, self.age, self.isActive, self.updatedAt) =
                (id, userName, email, age, isActive, updatedAt)
        }

        init(from container: DecodingContainer<User>) throws {
            id = try container.decode(\.id)
            userName = try container.decode(\.userName)
            email = try container.decode(\.email)
            age = try container.decode(\.age)
            isActive = try container.decode(\.isActive)
            updatedAt = try container.decode(\.updatedAt)
        }

        static let keySets = KeySets<User>(defaultSource: .remote) {
            KeySet(.remote) {                                   // the server's JSON
                Key(\.id, "id")
                Key(\.userName, ["user_name", "username"])      // API v2 renamed it: both decode
                Key(\.email, "email_address")
                Key(\.age, "profile.age")                       // nested object
                Key(\.isActive, "is_active")
                Key(\.updatedAt, "updated_at")                  // ISO 8601 text, as servers send it
            }
            KeySet(.local, style: .screamingSnakeCase)          // the cache file: USER_NAME, ...
            KeySet(.sqlite, style: .snakeCase)                  // the table's columns: user_name, ...
        }

        static let sqliteTable = SQLiteTable<User>("users", primaryKey: \.id, [.index(\.userName), .index(\.age)])
    }
}

extension GettingStartedDocumentationTests.User: Equatable {}

@Suite(.timeLimit(.minutes(3))) struct GettingStartedDocumentationTests {
    private static let start = Date(timeIntervalSince1970: 1_700_000_000)
    private static let initialUsers = (1...100).map { index in
        User(
            id: Int64(index), userName: "user\(index)", email: "user\(index)@example.com", age: 15 + index % 40,
            isActive: index % 3 != 0, updatedAt: start)
    }

    @Test func gettingStartedSyncsQueriesEditsAndCaches() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("getting-started-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let databasePath = folder.appendingPathComponent("users.sqlite").path
        let cacheURL = folder.appendingPathComponent("current-user.json")
        let initialUsers = Self.initialUsers

        // 3. Pick a server
        let server = try SimulatedServer(records: initialUsers, seed: 42)
        let http = HTTPRemoteSource<User>(baseURL: URL(string: "https://api.example.com/v1/users")!)
        _ = http

        // 4. Open the repository and sync
        let database = try SQLiteDatabase(path: databasePath)             // a file; WAL, readers run beside the writer
        let repository = try await Repository<User>.open(
            database: database, remote: server,
            configuration: SyncConfiguration(conflictPolicy: .newestWins(by: \.updatedAt)))

        let report = try await repository.sync()
        print(report)
        #expect(report.inserted == 100)

        let configuration = SyncConfiguration<User>(pageSize: 500, conflictPolicy: .newestWins(by: \.updatedAt))
        #expect(configuration.pageSize == 500)

        // 5. Query the cache
        let firstTen = try await repository.fetch(
            where: #Predicate { $0.isActive && $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 10)
        let adults = try await repository.count(where: #Predicate { $0.age >= 18 })
        let ada = try await repository.fetch(id: 42)
        let expected = initialUsers.filter { $0.isActive && $0.age > 30 }.sorted { $0.userName < $1.userName }.prefix(10)
        #expect(firstTen == Array(expected))
        #expect(adults == initialUsers.filter { $0.age >= 18 }.count)
        #expect(ada == initialUsers[41])

        // 6. Edit locally, push on the next sync
        var user = try await repository.fetch(id: 42)!
        user.email = "ada@example.org"
        user.updatedAt = Date()
        try await repository.save(user)          // cache + queue, one transaction; survives a restart
        try await repository.delete(id: 7)
        let pushed = try await repository.sync() // pushes first, then pulls
        print(pushed.pushed, pushed.conflicts)
        #expect(pushed.pushed == 2 && pushed.conflicts.isEmpty)
        #expect(await server.record(id: 42)?.email == "ada@example.org")
        #expect(await server.record(id: 7) == nil)

        // 7. Keep the current user in a file
        let cache = FileCache<User>(url: cacheURL)     // e.g. current-user.json in the app's folder
        try cache.store(user)                    // {"AGE": 36, "EMAIL": "ada@example.org", ...}: the local keys
        let restored = try cache.load()          // a corrupt file throws FileCacheError.corrupt and is kept aside
        #expect(restored == user)
        let written = String(decoding: try Data(contentsOf: cacheURL), as: UTF8.self)
        #expect(written.contains("\"EMAIL\"") && written.contains("\"USER_NAME\"") && written.contains("ada@example.org"), "\(written)")
    }

    @Test func syncExampleServerInjectsFaultsThatRetriesAbsorb() async throws {
        let users = Self.initialUsers
        let server = try SimulatedServer(
            records: users, seed: 7,
            faults: SimulatedFaults(transientErrorRate: 0.3, malformedRecordRate: 0.01, interruptAfterPulls: 3))
        let repository = try Repository<User>(database: SQLiteDatabase.inMemory(), remote: server)
        var completed = false
        for _ in 0..<10 where !completed {
            completed = (try? await repository.sync()) != nil
        }
        #expect(completed)
        let count = try await repository.count()
        #expect(count > 90 && count <= users.count)
    }

    /// The first example, which declares no date strategy, decodes the timestamps the common frameworks
    /// write: Rails (`…:02.561Z`), Django REST Framework (`…:02.561873Z`, `…:02Z`), Express (`…:02.561Z`,
    /// or an offset) and PocketBase (`… 10:00:02.561Z`, a space for the `T`).
    @Test(arguments: [
        "2026-11-27T10:00:02.561873Z", "2026-11-27T10:00:02Z", "2026-11-27T10:00:02.561Z", "2026-11-27T11:00:02.561+01:00",
        "2026-11-27 10:00:02.561Z",
    ])
    func theFirstExampleDecodesTheTimestampsFrameworksWrite(timestamp: String) throws {
        let json = Data(
            #"{"id": 1, "user_name": "ada", "email_address": "a@example.com", "profile": {"age": 36}, "is_active": true, "#
                .utf8) + Data(#""updated_at": "\#(timestamp)"}"#.utf8)
        let user = try KeySetJSONDecoder(source: .remote).decode(User.self, from: json)
        #expect(abs(user.updatedAt.timeIntervalSince1970 - 1_795_773_602.561) < 0.6)
    }
}
