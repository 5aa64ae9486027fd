import Foundation
import Testing
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// Crash consistency: the test re-launches its own test binary (`/proc/self/exe`, as a `ChildProcess`,
// i.e. posix_spawn) filtered to `reliabilityCrashChildProcess`, which only works when
// `VARIABLY_RELIABILITY_CRASH_CHILD_DIR` is set. The child syncs a simulated data set into a WAL
// file while "other clients" write to the server and the app saves locally; the parent SIGKILLs it
// at a random moment, then checks the file: `PRAGMA integrity_check`, the cursor against the rows,
// the pending local saves, and finally that a sync brings the cache to exactly the server's state.
//
// The simulated server lives in the child, so it keeps its own journal (every write and every
// push, appended before the client can observe it); each run, and the parent's checks, rebuild the
// server by replaying the journal into a fresh, deterministic `SimulatedServer`, which gives the
// same versions, the same cursors and the same idempotency keys as the server that was killed.

enum ReliabilityCrash {
    static let directoryKey = "VARIABLY_RELIABILITY_CRASH_CHILD_DIR"
    static let runKey = "VARIABLY_RELIABILITY_CRASH_RUN"
    static let groups: Int64 = 1_000
    static let serverGroups: Range<Int64> = 0..<500
    static let localGroups: Range<Int64> = 500..<1_000
    /// Local saves use generations from here on; server writes stay below.
    static let localGeneration: Int64 = 1_000_000_000
    /// A child runs this many rounds (a few seconds) unless it is killed first, which it nearly always is.
    static let iterationsPerRun = 400

    static var configuration: SyncConfiguration<ReliabilityItem> {
        // Pages and push batches hold whole groups, so the group invariant holds in every snapshot.
        // A save may reach a record before the first sync has pulled it (a kill during that sync,
        // on a loaded machine): the server's untouched initial version then conflicts with it, and
        // the app's save must win for "no committed save is lost" to be the guarantee under test.
        SyncConfiguration(pageSize: 20, pushBatchSize: 10, retryPolicy: reliabilityRetries, conflictPolicy: .clientWins)
    }

    static func makeServer() throws -> SimulatedServer<ReliabilityItem> {
        // Initial records are written in id order: record `id` has version `id`.
        try SimulatedServer(records: ReliabilityItem.initial(groups: Int(groups)), seed: 77)
    }

    /// Version and generation of every write the server applied, by record id.
    typealias History = [Int64: [(version: Int64, generation: Int64)]]

    /// Replays the journal into `server` and returns its history.
    static func replay(_ journal: ReliabilityJournal, into server: SimulatedServer<ReliabilityItem>) async throws
        -> History
    {
        var history: History = [:]
        for item in ReliabilityItem.initial(groups: Int(groups)) { history[item.id] = [(item.id, 0)] }
        let decoder = JSONDecoder(source: .remote)
        for entry in journal.entries() {
            if let write = entry["write"] as? [Int] {
                let rows = ReliabilityItem.group(Int64(write[0]), generation: Int64(write[1]), label: "server")
                let before = Int64((await server.latestCursor).rawValue)!
                try await server.simulateOtherClients(edits: 0, insertions: rows) { _, _ in }
                for (offset, row) in rows.enumerated() {
                    history[row.id, default: []].append((before + 1 + Int64(offset), row.generation))
                }
            } else if let push = entry["push"] as? [[String: Any]] {
                let changes = push.map { change in
                    RemoteChange<Int64>(
                        idempotencyKey: change["key"] as! String, id: Int64(change["id"] as! Int),
                        operation: (change["json"] as? String).map { .upsert(Data(base64Encoded: $0)!) } ?? .delete,
                        baseVersion: (change["base"] as? String).map { RecordVersion(rawValue: $0) })
                }
                let results = try await server.push(changes)
                for (change, result) in zip(changes, results) {
                    guard case .accepted(let version) = result.outcome, case .upsert(let json) = change.operation else {
                        continue
                    }
                    let item = try decoder.decode(ReliabilityItem.self, from: json)
                    history[item.id, default: []].append((Int64(version.rawValue)!, item.generation))
                }
            }
        }
        return history
    }
}

/// An append-only file of JSON lines; a line cut by a kill is ignored.
final class ReliabilityJournal: @unchecked Sendable {
    // `@unchecked Sendable`: the file handle is only used while `lock` is held.
    let url: URL
    private let lock = NSLock()
    private var handle: FileHandle?

    init(url: URL) {
        self.url = url
    }

    func append(_ object: [String: Any]) throws {
        var line = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        line.append(UInt8(ascii: "\n"))
        try lock.withLock {
            if handle == nil {
                if !FileManager.default.fileExists(atPath: url.path),
                    !FileManager.default.createFile(atPath: url.path, contents: nil)
                {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
                }
                handle = try FileHandle(forWritingTo: url)
                try handle?.seekToEnd()
            }
            // One write(2) per line: a SIGKILL cannot split it, only prevent it.
            try handle?.write(contentsOf: line)
        }
    }

    func entries() -> [[String: Any]] {
        guard let data = try? Data(contentsOf: url) else { return [] }
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        if data.last != UInt8(ascii: "\n"), !lines.isEmpty { lines.removeLast() }
        return lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    deinit {
        try? handle?.close()
    }
}

/// The child's server: pushes are journaled before their results reach the client.
actor ReliabilityJournalingRemote: RemoteSource {
    typealias Model = ReliabilityItem

    let server: SimulatedServer<ReliabilityItem>
    let journal: ReliabilityJournal

    init(server: SimulatedServer<ReliabilityItem>, journal: ReliabilityJournal) {
        self.server = server
        self.journal = journal
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        let results = try await server.push(changes)
        let entry: [[String: Any]] = changes.map { change in
            var object: [String: Any] = ["key": change.idempotencyKey, "id": Int(change.id)]
            if case .upsert(let json) = change.operation { object["json"] = json.base64EncodedString() }
            if let base = change.baseVersion { object["base"] = base.rawValue }
            return object
        }
        try journal.append(["push": entry])
        return results
    }
}

// MARK: - The child

@Suite("Reliability: crash child (does nothing unless launched by the crash test)")
struct ReliabilityCrashChild {
    @Test func reliabilityCrashChildProcess() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment[ReliabilityCrash.directoryKey],
            let run = Int64(environment[ReliabilityCrash.runKey] ?? "")
        else { return }
        let directory = URL(fileURLWithPath: path)
        let journal = ReliabilityJournal(url: directory.appendingPathComponent("server-journal.jsonl"))
        let intents = ReliabilityJournal(url: directory.appendingPathComponent("local-saves.jsonl"))
        let server = try ReliabilityCrash.makeServer()
        _ = try await ReliabilityCrash.replay(journal, into: server)
        let repository = try Repository(
            database: SQLiteDatabase(path: directory.appendingPathComponent("cache.sqlite").path),
            remote: ReliabilityJournalingRemote(server: server, journal: journal),
            configuration: ReliabilityCrash.configuration)
        #expect(
            FileManager.default.createFile(atPath: directory.appendingPathComponent("ready-\(run)").path, contents: nil)
        )
        var random = ReliabilityRandom(seed: 500 + UInt64(run) + 1_000 * ReliabilityBudget.seedOffset)
        for iteration in 0..<Int64(ReliabilityCrash.iterationsPerRun) {
            for offset in 0..<Int64(3) {
                let group = Int64.random(in: ReliabilityCrash.serverGroups, using: &random)
                let generation = run * 10_000 + iteration * 10 + offset + 1
                let rows = ReliabilityItem.group(group, generation: generation, label: "server")
                try await server.simulateOtherClients(edits: 0, insertions: rows) { _, _ in }
                try journal.append(["write": [Int(group), Int(generation)]])
            }
            let group = Int64.random(in: ReliabilityCrash.localGroups, using: &random)
            let generation = ReliabilityCrash.localGeneration + run * 10_000 + iteration
            try intents.append(["intent": [Int(group), Int(generation)]])
            try await repository.save(ReliabilityItem.group(group, generation: generation, label: "local"))
            try intents.append(["done": [Int(group), Int(generation)]])
            try await repository.sync()
        }
    }
}

// MARK: - The parent

@Suite("Reliability: crash consistency under SIGKILL")
struct ReliabilityCrashConsistencyTests {
    struct Snapshot {
        var cursor: Int64 = 0
        var rows = 0
        var pending = 0
    }

    /// The checks after a kill; records an issue for each broken guarantee.
    static func verifyAfterKill(_ directory: URL, context: String) async throws -> Snapshot {
        let journal = ReliabilityJournal(url: directory.appendingPathComponent("server-journal.jsonl"))
        let intents = ReliabilityJournal(url: directory.appendingPathComponent("local-saves.jsonl")).entries()
        let server = try ReliabilityCrash.makeServer()
        let history = try await ReliabilityCrash.replay(journal, into: server)
        let path = directory.appendingPathComponent("cache.sqlite").path
        guard FileManager.default.fileExists(atPath: path) else { return Snapshot() }
        let database = try SQLiteDatabase(path: path)
        await #expect(
            try database.read { try $0.fetchValue(sql: "PRAGMA integrity_check") } == .text("ok"), "\(context)")
        // One snapshot: rows, cursor and pending changes as one transaction saw them.
        let (rows, cursorText, pendingIDs) = try await database.read {
            db -> ([ReliabilityItem], String?, Set<String>) in
            guard try db.tableExists("reliability_items"), try db.tableExists("variably_pending_changes") else {
                return ([], nil, [])
            }
            let cursor = try db.fetchValue(
                sql: #"SELECT "cursor" FROM "variably_sync_state" WHERE "table_name" = 'reliability_items'"#)
            let pending = try db.fetch(sql: #"SELECT "record_id" FROM "variably_pending_changes""#).map {
                row -> String in
                if case .text(let id) = row[0] { id } else { "" }
            }
            let text: String? = if case .text(let text)? = cursor { text } else { nil }
            return (try db.fetchAll(ReliabilityItem.self), text, Set(pending))
        }
        let cursor = cursorText.flatMap { Int64($0) } ?? 0
        #expect(cursor <= Int64((await server.latestCursor).rawValue)!, "\(context): cursor beyond the server")
        #expect(
            ReliabilityItem.groupViolations(in: rows).isEmpty,
            "\(context): \(ReliabilityItem.groupViolations(in: rows).prefix(3))")

        var intended: [Int64: Set<Int64>] = [:]
        var lastDone: [Int64: Int64] = [:]
        for entry in intents {
            if let intent = entry["intent"] as? [Int] {
                intended[Int64(intent[0]), default: []].insert(Int64(intent[1]))
            }
            if let done = entry["done"] as? [Int] {
                lastDone[Int64(done[0])] = max(lastDone[Int64(done[0])] ?? 0, Int64(done[1]))
            }
        }
        let cached = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0) })
        for row in rows {
            let versions = history[row.id] ?? []
            if pendingIDs.contains(String(row.id)) {
                // A pending local save is still there: an intended one, not older than the last committed.
                #expect(
                    row.generation >= ReliabilityCrash.localGeneration, "\(context): pending row \(row.id) is not local"
                )
                #expect(
                    intended[row.group]?.contains(row.generation) == true,
                    "\(context): pending row \(row.id) was never saved")
                #expect(row.generation >= lastDone[row.group] ?? 0, "\(context): row \(row.id) lost a committed save")
            } else if row.generation < ReliabilityCrash.localGeneration {
                // A pulled row comes from a page at or before the cursor, never after it.
                #expect(
                    versions.contains { $0.version <= cursor && $0.generation == row.generation },
                    "\(context): row \(row.id) generation \(row.generation) is not from a page up to cursor \(cursor)")
            } else {
                // A local save that is no longer pending was pushed and accepted.
                #expect(
                    versions.contains { $0.generation == row.generation }, "\(context): row \(row.id) was never pushed")
            }
        }
        // Every page up to the cursor is applied: a record whose last write is at or before the
        // cursor is cached with that write (unless a local save of it is pending).
        for (id, versions) in history where !pendingIDs.contains(String(id)) {
            guard let last = versions.max(by: { $0.version < $1.version }), last.version <= cursor else { continue }
            #expect(
                cached[id]?.generation == last.generation, "\(context): record \(id) misses version \(last.version)")
        }
        // No committed local save is lost: it is pending, or the server accepted it (or a later one).
        for (group, generation) in lastDone {
            for row in ReliabilityItem.group(group, generation: generation, label: "") {
                let kept =
                    (pendingIDs.contains(String(row.id)) && (cached[row.id]?.generation ?? 0) >= generation)
                    || (history[row.id] ?? []).contains { $0.generation >= generation }
                #expect(kept, "\(context): the committed save \(generation) of row \(row.id) is lost")
            }
        }
        return Snapshot(cursor: cursor, rows: rows.count, pending: pendingIDs.count)
    }

    static func testExecutable() -> String? {
        let path =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first
        guard let path, FileManager.default.isExecutableFile(atPath: path) else { return nil }
        return path
    }

    @Test(.timeLimit(.minutes(10)))
    func syncSurvivesSIGKILLAtRandomMoments() async throws {
        let executable = try #require(Self.testExecutable(), "the test binary cannot be re-launched")
        let directory = try ReliabilityTemporaryDirectory(prefix: "variably-crash")
        defer { directory.remove() }
        var random = ReliabilityRandom(seed: 2026 + ReliabilityBudget.seedOffset)
        let runs = ReliabilityBudget.iterations(5)
        var kills = 0
        var completedRuns = 0
        var last = Snapshot()
        var maximumPending = 0
        for run in 1...runs {
            var environment = ProcessInfo.processInfo.environment
            environment[ReliabilityCrash.directoryKey] = directory.url.path
            environment[ReliabilityCrash.runKey] = String(run)
            environment["VARIABLY_RELIABILITY_SCALE"] = nil
            let devNull = open("/dev/null", O_WRONLY)
            let child = try ChildProcess(
                executable: executable,
                arguments: ["--testing-library", "swift-testing", "--filter", "reliabilityCrashChildProcess"],
                environment: environment, standardOutput: devNull, standardError: devNull)
            close(devNull)
            // Wait until the child is syncing (except one run in six, killed while it starts: opening,
            // migrating, replaying the WAL), then let it run a random while.
            let ready = directory.path("ready-\(run)")
            if Int.random(in: 0..<6, using: &random) == 0 {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...40, using: &random)))
            } else {
                for _ in 0..<20_000 where child.isRunning && !FileManager.default.fileExists(atPath: ready) {
                    try await Task.sleep(for: .milliseconds(1))
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...200, using: &random)))
            }
            if child.isRunning {
                kills += 1
            }
            let termination = child.kill()
            if case .exited(let status) = termination {
                #expect(status == 0, "run \(run): the child failed")
                completedRuns += 1
            }
            last = try await Self.verifyAfterKill(directory.url, context: "after run \(run)")
            maximumPending = max(maximumPending, last.pending)
        }

        // The next sync, in this process, completes to exactly the server's state.
        let journal = ReliabilityJournal(url: directory.url.appendingPathComponent("server-journal.jsonl"))
        let server = try ReliabilityCrash.makeServer()
        _ = try await ReliabilityCrash.replay(journal, into: server)
        let database = try SQLiteDatabase(path: directory.path("cache.sqlite"))
        let repository = try Repository(
            database: database, remote: ReliabilityJournalingRemote(server: server, journal: journal),
            configuration: ReliabilityCrash.configuration)
        let report = try await repository.sync()
        // Conflicts only with server versions the cache had not pulled yet; the saves win them.
        #expect(report.conflicts.allSatisfy { $0.resolution == .keptLocal }, "\(report.conflicts)")
        let serverState = await reliabilityServerState(server)
        await #expect(try reliabilityCache(repository) == serverState)
        await #expect(try repository.pendingChangeCount() == 0)
        await #expect(try database.read { try $0.fetchValue(sql: "PRAGMA integrity_check") } == .text("ok"))
        reportFigure(
            "crash: \(runs) child runs, \(kills) SIGKILLs survived, \(completedRuns) runs completed before the kill; "
                + "up to \(maximumPending) pending saves across a kill; final sync pulled \(report.pulled) and pushed "
                + "\(report.pushed); \(serverState.count) records equal to the server, integrity ok, 0 lost")
    }
}
