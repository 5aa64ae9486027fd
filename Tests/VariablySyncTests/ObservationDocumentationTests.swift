// The examples below are the documentation's own lines, kept as the documents have them.
// swift-format-ignore-file
import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

// docs/observation.md's examples, compiled and run: keep the two in step.

extension ObservationDocumentationTests {
    struct User: VariablyCodable, SQLiteStorable, Identifiable, Sendable, Equatable {
        var id: Int64
        var userName: String
        var age: Int
        var isActive: Bool

        init(id: Int64, userName: String, age: Int, isActive: Bool) {
            (self.id, self.userName, self.age, self.isActive) = (id, userName, age, isActive)
        }

        init(from container: DecodingContainer<User>) throws {
            id = try container.decode(\.id)
            userName = try container.decode(\.userName)
            age = try container.decode(\.age)
            isActive = try container.decode(\.isActive)
        }

        static let keySets = KeySets<User>(defaultSource: .remote) {
            KeySet(.remote) {
                Key(\.id, "id")
                Key(\.userName, "user_name")
                Key(\.age, "age")
                Key(\.isActive, "is_active")
            }
            KeySet(.sqlite, style: .snakeCase)
        }
        static let sqliteTable = SQLiteTable<User>("doc_users", primaryKey: \.id)
    }

    @MainActor
    final class ActiveUsersModel {
        let query: LiveQuery<User>

        init(repository: Repository<User>) {
            query = LiveQuery(repository, where: #Predicate { $0.isActive }, sortedBy: [SortDescriptor(\.userName)])
        }
    }
}

@MainActor
@Suite struct ObservationDocumentationTests {
    private static let users = (1...200).map { User(id: Int64($0), userName: "user\($0)", age: $0 % 60, isActive: $0 % 3 != 0) }

    private func makeRepository() throws -> (Repository<User>, SQLiteDatabase, @Sendable () -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("variably-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("users.sqlite").path)
        let repository = try Repository(database: database, remote: try SimulatedServer(records: Self.users))
        return (repository, database, { try? FileManager.default.removeItem(at: directory) })
    }

    @Test func asyncAccess() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("variably-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let databasePath = directory.appendingPathComponent("users.sqlite").path
        let users = Self.users
        // From docs/observation.md, "Async access".
        let database = try SQLiteDatabase(path: databasePath)
        try await database.write { try $0.create(table: User.self) }
        let adults = try await database.read { db in
            try db.fetch(User.self, where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 10)
        }
        try await database.write { db in try db.upsert(users) }

        #expect(adults.isEmpty)
        #expect(try await database.read { try $0.count(User.self) } == 200)
        // "Cancellation".
        let export = Task { try await database.read { try $0.fetchAll(User.self) } }
        export.cancel()
        let exported = try? await export.value
        #expect(exported == nil || exported?.count == 200)
    }

    @Test func observingAQuery() async throws {
        let (repository, _, cleanUp) = try makeRepository()
        defer { cleanUp() }
        let sync = Task { try await repository.sync() }
        let expected = Self.users.filter { $0.age > 30 }.count
        var seen = 0
        // From docs/observation.md, "Observing a query".
        for try await adults in repository.observe(where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)], limit: 100) {
            print("\(adults.count) adults")
            seen = adults.count
            if seen == expected { break }
        }
        _ = try await sync.value
        #expect(seen == expected)
    }

    @MainActor
    @Test func liveQuery() async throws {
        let (repository, _, cleanUp) = try makeRepository()
        defer { cleanUp() }
        let model = ActiveUsersModel(repository: repository)
        try await repository.sync()
        let expected = Self.users.filter(\.isActive).sorted { $0.userName < $1.userName }
        for _ in 0..<5_000 where model.query.results != expected { try await Task.sleep(for: .milliseconds(1)) }
        #expect(model.query.results == expected)
    }
}
