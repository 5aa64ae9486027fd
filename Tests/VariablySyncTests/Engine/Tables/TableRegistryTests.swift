import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// The tables a database's registry holds live as long as their repositories, and no longer: the
/// registry is kept by the database, and a table it held for good would keep the database, its
/// connections and its file open after the app let them go.
@Suite struct TableRegistryTests {
    /// Whether `object` is released within a second (tasks of a finished sync may still be unwinding).
    private func isReleased(_ object: () -> AnyObject?) async throws -> Bool {
        for _ in 0..<100 {
            if object() == nil { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func aDatabaseIsReleasedWithItsRepositoriesAndStore() async throws {
        weak var released: SQLiteDatabase?
        do {
            let database = try SQLiteDatabase.inMemory()
            released = database
            let users = try Repository<User>(
                database: database, remote: SimulatedServer(records: [User(id: 1, userName: "ada")]))
            let posts = try Repository<Post>(
                database: database, remote: SimulatedServer(records: [Post(id: 10, authorID: 1, title: "first")]))
            try await users.sync()
            try await SyncStore(posts, users).sync()
            #expect(try await posts.count() == 1)
        }
        #expect(try await isReleased { released })
    }

    /// A table registered by a repository that is gone takes no part in another table's pull.
    @Test func aRepositoryReleasedLeavesTheRegistry() async throws {
        let database = try SQLiteDatabase.inMemory()
        weak var releasedUsers: Repository<User>?
        do {
            let users = try Repository<User>(
                database: database, remote: SimulatedServer(records: [User(id: 1, userName: "ada")]))
            releasedUsers = users
            try await users.sync()
        }
        #expect(try await isReleased { releasedUsers })
        // Posts pull alone: a post of a user the cache lacks is parked, and no users table is asked.
        let posts = try Repository<Post>(
            database: database, remote: SimulatedServer(records: [Post(id: 20, authorID: 2, title: "orphan")]))
        let report = try await posts.sync()
        #expect(report.parked == 1)
        #expect(try await posts.fetch(id: 20) == nil)
    }
}
