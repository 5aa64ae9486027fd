import Foundation
import Testing
import VariablySQLite
import VariablyTestSupport

/// WAL checkpoints: in the background by default, on commit when asked, and a WAL that stays bounded.
@Suite struct CheckpointTests {
    /// Writes `rows` rows of about 3 kB each (a page apiece) in one transaction.
    private func write(_ rows: Int, into db: SQLiteDatabase) throws {
        try db.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS blobs (id INTEGER PRIMARY KEY, body BLOB)")
            for _ in 0..<rows { try db.execute(sql: "INSERT INTO blobs (body) VALUES (randomblob(3000))") }
        }
    }

    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    private func configuration(_ checkpoints: CheckpointPolicy) -> Configuration {
        var configuration = Configuration()
        configuration.checkpoints = checkpoints
        return configuration
    }

    /// docs/sqlite.md, Checkpoints.
    @Test func theDocumentationExample() throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        var configuration = Configuration()
        configuration.checkpoints = .inBackground(afterPages: 1_000)  // the default
        configuration.checkpoints = .onCommit(afterPages: 1_000)  // SQLite's own behaviour
        let db = try SQLiteDatabase(path: path, configuration: configuration)
        try write(10, into: db)
        #expect(db.configuration.checkpoints == .onCommit(afterPages: 1_000))
    }

    @Test func theDefaultIsInTheBackgroundAfterAThousandPages() {
        #expect(Configuration().checkpoints == .inBackground(afterPages: 1_000))
    }

    @Test func aCommitPastTheThresholdIsCopiedIntoTheFileInTheBackground() async throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let db = try SQLiteDatabase(path: path, configuration: configuration(.inBackground(afterPages: 10)))
        try write(50, into: db)
        // The checkpoint runs on another connection, after the write returned.
        let deadline = ContinuousClock.now + .seconds(20)
        while size(path) < 50 * 3_000, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(size(path) >= 50 * 3_000)
        #expect(try await db.read { try $0.fetchValue(sql: "SELECT count(*) FROM blobs") } == .integer(50))
    }

    @Test func theCheckpointsOwnStatementsAreNotTraced() async throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let recorder = SQLRecorder()
        var configuration = configuration(.inBackground(afterPages: 10))
        configuration.trace = { recorder.record($0) }
        let db = try SQLiteDatabase(path: path, configuration: configuration)
        recorder.reset()
        try write(50, into: db)
        let deadline = ContinuousClock.now + .seconds(20)
        while size(path) < 50 * 3_000, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(size(path) >= 50 * 3_000)
        // The write's statements only: the checkpoint's connection opens and checks the journal mode.
        #expect(!recorder.recorded.contains { $0.hasPrefix("PRAGMA") })
        #expect(recorder.recorded.contains { $0.hasPrefix("INSERT INTO blobs") })
    }

    @Test func onCommitTheWriteCheckpointsBeforeItReturns() throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let db = try SQLiteDatabase(path: path, configuration: configuration(.onCommit(afterPages: 10)))
        try write(50, into: db)
        #expect(size(path) >= 50 * 3_000)
    }

    @Test func belowTheThresholdNothingIsCheckpointed() async throws {
        for policy in [CheckpointPolicy.inBackground(afterPages: 1_000), .onCommit(afterPages: 1_000)] {
            let (path, cleanUp) = try TestDatabase.temporaryPath()
            defer { cleanUp() }
            let db = try SQLiteDatabase(path: path, configuration: configuration(policy))
            try write(50, into: db)
            try await Task.sleep(for: .milliseconds(100))
            #expect(size(path) < 50 * 3_000, "\(policy)")
            #expect(size(path + "-wal") >= 50 * 3_000, "\(policy)")
        }
    }

    @Test func aStreamOfCommitsKeepsTheWALBounded() throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let threshold = 8
        let db = try SQLiteDatabase(path: path, configuration: configuration(.inBackground(afterPages: threshold)))
        for _ in 0..<300 { try write(2, into: db) }
        // The WAL file keeps the size of its longest run: at most eight times the threshold, plus the
        // commit that crossed it (a few pages), each page a 24-byte frame header and 4,096 bytes.
        let frames = (size(path + "-wal") - 32) / (4_096 + 24)
        #expect(frames <= threshold * 8 + 8, "the WAL reached \(frames) frames")
        #expect(try db.read { try $0.fetchValue(sql: "SELECT count(*) FROM blobs") } == .integer(600))
    }

    @Test func readersSeeEveryCommitWhileCheckpointsRunBesideThem() async throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let db = try SQLiteDatabase(path: path, configuration: configuration(.inBackground(afterPages: 4)))
        try write(1, into: db)
        let reads = Task.detached {
            var counts: [Int64] = []
            while counts.last.map({ $0 < 401 }) ?? true {
                let count = try db.read { try $0.fetchValue(sql: "SELECT count(*) FROM blobs") }
                guard case .integer(let value)? = count else { throw CancellationError() }
                counts.append(value)
            }
            return counts
        }
        for _ in 0..<200 { try write(2, into: db) }
        let counts = try await reads.value
        // Each read is one snapshot: the count never goes back, and the last read sees every commit.
        #expect(counts == counts.sorted())
        #expect(counts.last == 401)
        #expect(try await db.read { try $0.fetchValue(sql: "PRAGMA integrity_check") } == .text("ok"))
    }

    @Test func closingWaitsForTheCheckpointsAndRemovesTheWAL() throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        do {
            let db = try SQLiteDatabase(path: path, configuration: configuration(.inBackground(afterPages: 10)))
            for _ in 0..<20 { try write(5, into: db) }
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let reopened = try SQLiteDatabase(path: path)
        #expect(try reopened.read { try $0.fetchValue(sql: "SELECT count(*) FROM blobs") } == .integer(100))
    }
}
