import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablyTestSupport

/// A statement that keeps SQLite busy for hours (a recursive count to 10^13): it only ends early when
/// it is interrupted, so a `CancellationError` proves the interruption without timing anything.
private let slowSQL =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000000000000) SELECT count(*) FROM n"

@Suite("Async access: off the cooperative pool, interrupted by cancellation")
struct AsyncAccessTests {
    @Test func asyncReadsAndWritesSeeEachOther() async throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let database = try SQLiteDatabase(path: path)
        try await database.write { db in
            try db.migrate(User.self)
            try db.insert(User.samples(20))
        }
        let count = try await database.read { try $0.count(User.self) }
        #expect(count == 20)
        // Many concurrent readers and writers: none waits on a cooperative thread.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 20..<60 {
                group.addTask { try await database.write { try $0.insert(User.sample(index)) } }
                group.addTask { _ = try await database.read { try $0.count(User.self) } }
            }
            try await group.waitForAll()
        }
        #expect(try await database.read { try $0.count(User.self) } == 60)
    }

    @Test(arguments: [true, false])
    func cancellingALongReadInterruptsIt(onFile: Bool) async throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let database = onFile ? try SQLiteDatabase(path: path) : try SQLiteDatabase.inMemory()
        let read = Task { try await database.read { try $0.fetchValue(sql: slowSQL) } }
        try await Task.sleep(for: .milliseconds(100))
        read.cancel()
        await #expect(throws: CancellationError.self) { _ = try await read.value }
        // Usable afterwards, on the same connections.
        #expect(try await database.read { try $0.fetchValue(sql: "SELECT 42") } == .integer(42))
    }

    @Test func cancellingALongWriteRollsItBack() async throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let database = try SQLiteDatabase(path: path)
        try await database.write { db in
            try db.migrate(User.self)
            try db.insert(User.samples(5))
        }
        let write = Task {
            try await database.write { db in
                try db.insert(User.sample(100))
                _ = try db.fetchValue(sql: slowSQL)
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        write.cancel()
        await #expect(throws: CancellationError.self) { try await write.value }
        #expect(try await database.read { try $0.count(User.self) } == 5)
        try await database.write { try $0.insert(User.sample(6)) }
        #expect(try await database.read { try $0.count(User.self) } == 6)
    }

    @Test func aJobCancelledBeforeItStartsDoesNothing() async throws {
        let database = try SQLiteDatabase.inMemory()
        try await database.write { try $0.migrate(User.self) }
        let write = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await database.write { try $0.insert(User.sample(1)) }
        }
        await #expect(throws: CancellationError.self) { try await write.value }
        await #expect(try database.read { try $0.count(User.self) } == 0)
    }
}
