// The examples below are the documentation's own lines, kept as the documents have them.
// swift-format-ignore-file
import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

// The README's example, compiled and run: keep the two in step.

extension ReadmeExampleTests {
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
            age = try container.decode(\.age, default: 0)
            isActive = try container.decode(\.isActive)
            updatedAt = try container.decode(\.updatedAt)
        }

        static let keySets = KeySets<User>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id")
                Key(\.userName, ["user_name", "username"])
                Key(\.email, "contact.email_address")
                Key(\.age, "age")
                Key(\.isActive, "is_active")
                Key(\.updatedAt, "updated_at")
            }
            KeySet(.local, style: .screamingSnakeCase)
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<User>("users", primaryKey: \.id, [.index(\.userName)])
    }
}

extension ReadmeExampleTests.User: Equatable {}

@Suite struct ReadmeExampleTests {
    /// A user's post, for the README's second example.
    struct Post: VariablyCodable, SQLiteStorable, Identifiable, Sendable {
        var id: Int64
        var authorID: Int64
        var title: String

        init(id: Int64, authorID: Int64, title: String) { (self.id, self.authorID, self.title) = (id, authorID, title) }
        init(from container: DecodingContainer<Post>) throws {
            id = try container.decode(\.id)
            authorID = try container.decode(\.authorID)
            title = try container.decode(\.title)
        }

        static let keySets = KeySets<Post>(defaultSource: .remote) {
            KeySet(.remote) { Key(\.id, "id"); Key(\.authorID, "author_id"); Key(\.title, "title") }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<Post>("posts", primaryKey: \.id)
    }

    @Test func readmeExampleSyncsAndQueries() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = (0..<200).map { (index: Int) -> User in
            let name = "user" + String(1000 + index)
            return User(
                id: Int64(index + 1), userName: name, email: name + "@example.com", age: 20 + index % 30, isActive: index % 2 == 0,
                updatedAt: Date(timeIntervalSince1970: 1_793_613_600.123 + Double(index)))
        }
        let databasePath = folder.appendingPathComponent("users.sqlite").path

        let server = try SimulatedServer(records: users)           // or HTTPRemoteSource(baseURL:)
        let repository = try await Repository<User>.open(database: SQLiteDatabase(path: databasePath), remote: server)
        let report = try await repository.sync()
        let firstTen = try await repository.fetch(
            where: #Predicate<User> { $0.isActive && $0.age > 30 }, sortedBy: [SortDescriptor(\User.userName)], limit: 10)

        #expect(report.inserted == 200)
        let expected = users.filter { $0.isActive && $0.age > 30 }.sorted { $0.userName < $1.userName }.prefix(10)
        #expect(firstTen == Array(expected))
    }

    /// The README's `updated_at` comment: ISO 8601 with microseconds, read with no date strategy declared.
    @Test func readmeUserReadsISO8601WithoutADateStrategy() throws {
        let json = #"{"id": 1, "user_name": "ada", "contact": {"email_address": "a@example.com"}, "is_active": true, "updated_at": "2026-11-02T10:00:00.123456Z"}"#
        let user = try KeySetJSONDecoder(source: .remote).decode(User.self, from: Data(json.utf8))
        #expect(user.updatedAt == Date(timeIntervalSince1970: 1_793_613_600.123456))
        #expect(try JSONDecoder(source: .remote).decode(User.self, from: Data(json.utf8)) == user)
    }

    /// The README's second example: compiled here; DRFSyncTests runs creates and refusals against a real
    /// Django REST Framework.
    private func createsAndFailedChanges(posts: Repository<Post>, me: User) async throws {
        let post = try await posts.create { Post(id: $0, authorID: me.id, title: "Written offline") }   // a provisional id
        let report = try await posts.sync()                     // POSTed; the server's id replaces the provisional one
        for failure in try await posts.failedChanges() {        // refused changes wait for the app
            print(failure)                                      // 7: save refused: HTTP 400: {"title": [...]}
            try await posts.revert(failedChangeOf: failure.id)  // or retry(failedChangeOf:), discard(failedChangeOf:)
        }
        _ = (post, report)
    }
}
