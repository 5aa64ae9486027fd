import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablyTestSupport

@Suite struct DatabaseTests {
    @Test func fileDatabaseUsesWALWithForeignKeys() throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let db = try SQLiteDatabase(path: path)
        let (mode, foreignKeys, timeout) = try db.read { db in
            (
                try db.fetchValue(sql: "PRAGMA journal_mode"), try db.fetchValue(sql: "PRAGMA foreign_keys"),
                try db.fetchValue(sql: "PRAGMA busy_timeout")
            )
        }
        #expect(mode == .text("wal"))
        #expect(foreignKeys == .integer(1))
        #expect(timeout == .integer(5000))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func rollbackJournalFilesReadOnTheWriter() throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        var configuration = Configuration()
        configuration.journalMode = .delete
        let db = try SQLiteDatabase(path: path, configuration: configuration)
        try db.write { db in
            try db.migrate(User.self)
            try db.insert(User.samples(3))
        }
        #expect(try db.read { try $0.fetchValue(sql: "PRAGMA journal_mode") } == .text("delete"))
        #expect(try db.read { try $0.count(User.self) } == 3)
    }

    @Test func foreignKeysAreEnforced() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.execute(
                sql:
                    "CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (parent_id REFERENCES parent(id))"
            )
        }
        #expect {
            try db.write { try $0.execute(sql: "INSERT INTO child VALUES (?)", arguments: [1]) }
        } throws: { error in
            (error as? SQLiteError)?.code == .constraintForeignKey
        }
    }

    @Test func theTransactionKindCanBeChosen() throws {
        let (db, recorder) = try TestDatabase.users()
        try db.write(.deferred) { try $0.insert(User.sample(0)) }
        #expect(recorder.recorded.first == "BEGIN DEFERRED TRANSACTION")
    }

    @Test func writeOpensAnImmediateTransactionAndCommits() throws {
        let (db, recorder) = try TestDatabase.users()
        try db.write { try $0.insert(User.sample(0)) }
        #expect(recorder.recorded.first == "BEGIN IMMEDIATE TRANSACTION")
        #expect(recorder.recorded.last == "COMMIT TRANSACTION")
        #expect(try db.read { try $0.count(User.self) } == 1)
    }

    @Test func writeRollsBackWhenTheClosureThrows() throws {
        struct Abort: Error {}
        let (db, recorder) = try TestDatabase.users(3)
        #expect(throws: Abort.self) {
            try db.write { db in
                try db.insert(User.sample(10))
                try db.delete(User.self, id: Int64(1))
                throw Abort()
            }
        }
        #expect(recorder.recorded.last == "ROLLBACK TRANSACTION")
        #expect(try db.read { try $0.fetchAll(User.self) } == User.samples(3))
    }

    @Test func nestedTransactionsAreSavepointsThatRollBackAlone() throws {
        struct Abort: Error {}
        let (db, _) = try TestDatabase.users()
        try db.write { db in
            try db.insert(User.sample(0))
            do {
                try db.inTransaction {
                    try db.insert(User.sample(1))
                    try db.inTransaction { try db.insert(User.sample(2)) }
                    throw Abort()
                }
                Issue.record("No error")
            } catch is Abort {
            }
            try db.inTransaction { try db.insert(User.sample(3)) }
        }
        #expect(try db.read { try $0.fetchAll(User.self).map(\.id) } == [1, 4])
    }

    @Test func readersDoNotWrite() throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let db = try SQLiteDatabase(path: path)
        try db.write { try $0.migrate(User.self) }
        do {
            try db.read { try $0.insert(User.sample(0)) }
            Issue.record("A reader connection wrote.")
        } catch ResultCode.readOnly {
        }
    }

    @Test func readersSeeACommittedSnapshotWhileAWriterWrites() async throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let db = try SQLiteDatabase(path: path)
        try await db.write { db in
            try db.migrate(User.self)
            try db.insert(User.samples(10))
        }
        // The writer holds its transaction open while readers on other threads count the rows:
        // in WAL mode they are not blocked and see the last committed state.
        let writerStarted = DispatchSemaphore(value: 0)
        let readersDone = DispatchSemaphore(value: 0)
        let writer = Task.detached {
            try db.write { db in
                try db.insert(User.sample(100))
                writerStarted.signal()
                readersDone.wait()
            }
        }
        writerStarted.wait()
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask { try db.read { try $0.count(User.self) } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        readersDone.signal()
        try await writer.value
        #expect(counts == [10, 10, 10, 10])
        await #expect(try db.read { try $0.count(User.self) } == 11)
    }

    @Test func concurrentWritesAreSerialized() async throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let db = try SQLiteDatabase(path: path)
        try await db.write { try $0.migrate(User.self) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for batch in 0..<8 {
                group.addTask {
                    try db.write { db in
                        try db.insert((0..<50).map { User.sample(batch * 50 + $0) })
                    }
                }
            }
            try await group.waitForAll()
        }
        await #expect(try db.read { try $0.count(User.self) } == 400)
    }

    @Test func aNestedWriteOnTheSameDatabaseTrapsInsteadOfDeadlocking() async {
        await #expect(processExitsWith: .failure) {
            let db = try SQLiteDatabase.inMemory()
            try db.write { _ in try db.write { _ in } }
        }
    }

    @Test func writesToAnotherDatabaseMayNest() throws {
        let (first, _) = try TestDatabase.users()
        let (second, _) = try TestDatabase.users()
        try first.write { db in
            try db.insert(User.sample(0))
            try second.write { try $0.insert(User.sample(1)) }
            try db.insert(User.sample(2))
        }
        #expect(try first.read { try $0.count(User.self) } == 2)
        #expect(try second.read { try $0.count(User.self) } == 1)
    }

    @Test func inMemoryDatabasesAreIndependent() throws {
        let (first, _) = try TestDatabase.users(2)
        let (second, _) = try TestDatabase.users()
        #expect(try first.read { try $0.count(User.self) } == 2)
        #expect(try second.read { try $0.count(User.self) } == 0)
    }
}

@Suite struct ReadOnlyDatabaseTests {
    @Test func aWALFileOpensForReadingWithoutItsCompanionFilesAndRefusesWrites() throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        do {
            let db = try SQLiteDatabase(path: path)
            try db.write { db in
                try db.migrate(User.self)
                try db.insert(User.samples(20))
            }
        }
        // Closed cleanly: SQLite checkpointed and removed the -wal and -shm files.
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        let catalog = try SQLiteDatabase.readOnly(path: path)
        #expect(try catalog.read { try $0.count(User.self) } == 20)
        let third = User.samples(20)[2]
        #expect(try catalog.read { try $0.fetch(User.self, id: third.id) } == third)
        #expect(throws: SQLiteError.self) { try catalog.write { try $0.upsert(User.sample(99)) } }
        #expect(try catalog.read { try $0.count(User.self) } == 20)
        // It created nothing beside the file.
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }

    @Test func aMissingFileIsAnError() {
        #expect(throws: SQLiteError.self) {
            _ = try SQLiteDatabase.readOnly(path: "/nonexistent-\(UUID().uuidString)/catalog.sqlite")
        }
    }
}
