import Foundation
import Testing
import VariablySQLite
import VariablySync
import VariablySyncTesting
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// A store killed while it syncs: the test re-launches its own test binary filtered to
// `storeCrashChildProcess`, which works only when `VARIABLY_STORE_CRASH_DIR` is set. The child syncs
// writers, essays and remarks into a WAL file (simulated servers, the same each run, writing new
// essays and remarks as other clients) while the app writes parents and children in one transaction
// and deletes writers (cascading), every other run pulling one feed of the three tables in checkpoints
// (SimulatedChangeFeed); the parent SIGKILLs it at a random moment, then checks the file:
// SQLite's integrity, no orphan (`PRAGMA foreign_key_check`), and every queued save's row present.

enum StoreCrash {
    static let directoryKey = "VARIABLY_STORE_CRASH_DIR"
    static let runKey = "VARIABLY_STORE_CRASH_RUN"
}

@Suite("Reliability: store crash child (does nothing unless launched by the store crash test)")
struct StoreCrashChild {
    @Test func storeCrashChildProcess() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment[StoreCrash.directoryKey], let run = Int64(environment[StoreCrash.runKey] ?? "")
        else { return }
        let directory = URL(fileURLWithPath: path)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("cache.sqlite").path)
        let clock = SimulatedClock()
        let writerServer = try SimulatedServer(records: (1...50).map { Writer(id: $0, name: "w\($0)") }, seed: 1, clock: clock)
        let essayServer = try SimulatedServer(
            records: (1...200).map { Essay(id: 1_000 + $0, writerID: ($0 % 50) + 1, title: "e\($0)") }, seed: 2, clock: clock)
        let remarkServer = try SimulatedServer(
            records: (1...600).map { Remark(id: 10_000 + $0, essayID: 1_000 + ($0 % 200) + 1, text: "r\($0)") }, seed: 3,
            clock: clock)
        let configuration = SyncConfiguration<Writer>(pageSize: 25)
        let writers = try Repository(database: database, remote: writerServer, configuration: configuration)
        let essays = try Repository(database: database, remote: essayServer, configuration: SyncConfiguration(pageSize: 25))
        let remarks = try Repository(database: database, remote: remarkServer, configuration: SyncConfiguration(pageSize: 25))
        // Every other run pulls one feed in checkpoints of three pages (essays and remarks often come
        // before their writers there: the writers are written again by deletions and local creates).
        let store =
            run.isMultiple(of: 2)
            ? SyncStore(
                remarks, essays, writers, feed: SimulatedChangeFeed(writerServer, essayServer, remarkServer),
                configuration: ChangeFeedConfiguration(pageSize: 25, batchSize: 75))
            : SyncStore(remarks, essays, writers)
        #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent("ready-\(run)").path, contents: nil))
        var random = SeededRandomNumberGenerator(seed: UInt64(run))
        for iteration in Int64(0)..<300 {
            let base = 1_000_000 + run * 100_000 + iteration * 10
            try await database.write { db in
                try db.upsert(Remark(id: base + 3, essayID: base + 2, text: "local"))
                try db.upsert(Essay(id: base + 2, writerID: base + 1, title: "local"))
                try db.upsert(Writer(id: base + 1, name: "local", favoriteEssayID: base + 2))
            }
            if let victim = try await writers.fetch(limit: 60).map(\.id).randomElement(using: &random) {
                try await writers.delete(id: victim)
            }
            if let writer = await writerServer.allRecords().map(\.id).randomElement(using: &random) {
                _ = try await essayServer.upsert(Essay(id: base + 5, writerID: writer, title: "there"))
                _ = try await remarkServer.upsert(Remark(id: base + 6, essayID: base + 5, text: "there"))
            }
            _ = try? await store.sync()
        }
    }
}

@Suite("Reliability: store crash consistency under SIGKILL")
struct StoreCrashConsistencyTests {
    @Test(.timeLimit(.minutes(5)))
    func aStoreKilledWhileItSyncsLeavesNoOrphanAndNoLostSave() async throws {
        let executable = try #require(ReliabilityCrashConsistencyTests.testExecutable(), "the test binary cannot be re-launched")
        let directory = try ReliabilityTemporaryDirectory(prefix: "variably-store-crash")
        defer { directory.remove() }
        var random = ReliabilityRandom(seed: 2027 + ReliabilityBudget.seedOffset)
        let runs = ReliabilityBudget.iterations(6)
        var kills = 0
        var rows: SQLValue?
        for run in 1...runs {
            var environment = ProcessInfo.processInfo.environment
            environment[StoreCrash.directoryKey] = directory.url.path
            environment[StoreCrash.runKey] = String(run)
            let devNull = open("/dev/null", O_WRONLY)
            let child = try ChildProcess(
                executable: executable, arguments: ["--testing-library", "swift-testing", "--filter", "storeCrashChildProcess"],
                environment: environment, standardOutput: devNull, standardError: devNull)
            close(devNull)
            let ready = directory.path("ready-\(run)")
            for _ in 0..<20_000 where child.isRunning && !FileManager.default.fileExists(atPath: ready) {
                try await Task.sleep(for: .milliseconds(1))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...400, using: &random)))
            if child.isRunning { kills += 1 }
            _ = child.kill()

            let database = try SQLiteDatabase(path: directory.path("cache.sqlite"))
            let (integrity, orphans, missing) = try await database.read { db in
                let integrity = try db.fetchValue(sql: "PRAGMA integrity_check")
                let orphans = try db.fetch(sql: "PRAGMA foreign_key_check").count
                // A queued save whose row is gone would be a lost save (a cascade removes its change too).
                let missing = try db.fetchValue(
                    sql: """
                        SELECT count(*) FROM "variably_pending_changes" AS change WHERE change."operation" = 'upsert' AND NOT EXISTS (
                            SELECT 1 FROM "store_writers" WHERE change."table_name" = 'store_writers' AND json_quote("id") = change."record_id"
                            UNION ALL SELECT 1 FROM "store_essays" WHERE change."table_name" = 'store_essays' AND json_quote("id") = change."record_id"
                            UNION ALL SELECT 1 FROM "store_remarks" WHERE change."table_name" = 'store_remarks' AND json_quote("id") = change."record_id")
                        """)
                return (integrity, orphans, missing)
            }
            rows = try await database.read { db in
                try db.fetchValue(
                    sql: """
                        SELECT (SELECT count(*) FROM "store_writers") + (SELECT count(*) FROM "store_essays")
                            + (SELECT count(*) FROM "store_remarks")
                        """)
            }
            #expect(integrity == .text("ok"), "run \(run)")
            #expect(orphans == 0, "run \(run): orphans after the kill")
            #expect(missing == .integer(0), "run \(run): queued saves without their row")
        }
        print("[reliability] store crash: \(runs) runs, \(kills) SIGKILLs while syncing, 0 orphans, integrity ok, \(rows ?? .null) rows at the end")
        #expect(kills > 0)
        #expect(rows.map { $0 != .integer(0) } == true)
    }
}
