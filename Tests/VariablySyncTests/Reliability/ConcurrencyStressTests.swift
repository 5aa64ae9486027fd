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

// Readers query continuously (on their own threads, against a WAL file) while syncs with faults,
// server-side writes and local saves run. The invariant the writers keep: the rows of a group are
// always written together with one generation (a server write is one group, a page is one group
// since pages hold `groupSize` changes and every log block is a whole group; a local save is one
// group). A reader that sees a partial group, mixed generations or a bad checksum has seen a
// half-applied page or save.

/// What the reader threads saw.
final class ReliabilityReaderLog: @unchecked Sendable {
    // `@unchecked Sendable`: every property is only touched while `lock` is held.
    private let lock = NSLock()
    private var stopped = false
    private(set) var snapshots = 0
    private(set) var rowsRead = 0
    private(set) var groupCounts = 0
    private(set) var violations: [String] = []
    private(set) var errors: [String] = []
    private var running = 0

    var isStopped: Bool { lock.withLock { stopped } }

    func stop() { lock.withLock { stopped = true } }

    func started() { lock.withLock { running += 1 } }

    func finished() { lock.withLock { running -= 1 } }

    var runningCount: Int { lock.withLock { running } }

    func record(rows: Int, violations found: [String]) {
        lock.withLock {
            snapshots += 1
            rowsRead += rows
            violations += found.prefix(5)
        }
    }

    func recordGroupCount(_ count: Int, group: Int64) {
        lock.withLock {
            groupCounts += 1
            if count != 0 && count != ReliabilityItem.groupSize {
                violations.append("count(where: group == \(group)) = \(count)")
            }
        }
    }

    func record(error: any Error) {
        lock.withLock { errors.append("\(error)") }
    }
}

@Suite("Reliability: concurrency stress")
struct ReliabilityConcurrencyStressTests {
    static let groups: Int64 = 40

    @Test func readersNeverSeeAHalfAppliedPageOrSave() async throws {
        let directory = try ReliabilityTemporaryDirectory()
        defer { directory.remove() }
        let server = try SimulatedServer(
            records: ReliabilityItem.initial(groups: Int(Self.groups)), seed: 21,
            faults: SimulatedFaults(latency: .microseconds(20), transientErrorRate: 0.2, duplicatePageRate: 0.2))
        let database = try SQLiteDatabase(path: directory.path("stress.sqlite"))
        let repository = try Repository(
            database: database, remote: server,
            configuration: SyncConfiguration(
                pageSize: ReliabilityItem.groupSize, pushBatchSize: ReliabilityItem.groupSize * 2,
                retryPolicy: reliabilityRetries))
        let serverGroups: Range<Int64> = 0..<Self.groups / 2
        let localGroups: Range<Int64> = Self.groups / 2..<Self.groups
        let log = ReliabilityReaderLog()
        let syncs = ReliabilityBudget.iterations(25)
        let serverEdits = ReliabilityBudget.iterations(60)
        let localEdits = ReliabilityBudget.iterations(40)

        // Readers: two threads of whole-table snapshots, one of per-group counts.
        for reader in 0..<3 {
            log.started()
            Thread.detachNewThread {
                var random = ReliabilityRandom(seed: 100 + UInt64(reader))
                while !log.isStopped {
                    do {
                        if reader < 2 {
                            // Threads read through the synchronous API.
                            let rows = try repository.database.read { try $0.fetchAll(ReliabilityItem.self) }
                            log.record(rows: rows.count, violations: ReliabilityItem.groupViolations(in: rows))
                        } else {
                            let group = Int64.random(in: 0..<Self.groups, using: &random)
                            let count = try repository.database.read {
                                try $0.count(ReliabilityItem.self, where: #Predicate { $0.group == group })
                            }
                            log.recordGroupCount(count, group: group)
                        }
                    } catch {
                        log.record(error: error)
                    }
                    // Continuous, but leaving the two cores of CI to the writers and the other suites.
                    usleep(200)
                }
                log.finished()
            }
        }

        // The first sync completes before local saves begin: a save of a record the client has not yet
        // pulled is based on a cursor older than the server's version of it, a real conflict that
        // `serverWins` settles for the server. After it, every conflict would be a false one.
        var syncFailures = 0
        var conflicts = 0
        while true {
            do {
                conflicts += try await repository.sync().conflicts.count
                break
            } catch is SyncError {
                syncFailures += 1
            }
        }
        var lastLocalGeneration: [Int64: Int64] = [:]
        try await withThrowingTaskGroup(of: (failures: Int, conflicts: Int, saved: [Int64: Int64]).self) { tasks in
            tasks.addTask {
                var failures = 0
                var conflicts = 0
                for _ in 0..<syncs {
                    do {
                        conflicts += try await repository.sync().conflicts.count
                    } catch is SyncError {
                        failures += 1
                    }
                }
                return (failures, conflicts, [:])
            }
            tasks.addTask {
                var random = ReliabilityRandom(seed: 22)
                for edit in 1...serverEdits {
                    let group = Int64.random(in: serverGroups, using: &random)
                    // One actor call: the whole group lands in the change feed as one block.
                    try await server.simulateOtherClients(
                        edits: 0, insertions: ReliabilityItem.group(group, generation: Int64(edit), label: "server")
                    ) { _, _ in }
                    await Task.yield()
                }
                return (0, 0, [:])
            }
            tasks.addTask {
                var random = ReliabilityRandom(seed: 23)
                var saved: [Int64: Int64] = [:]
                for edit in 1...localEdits {
                    let group = Int64.random(in: localGroups, using: &random)
                    try await repository.save(
                        ReliabilityItem.group(group, generation: 10_000 + Int64(edit), label: "local"))
                    saved[group] = 10_000 + Int64(edit)
                    await Task.yield()
                }
                return (0, 0, saved)
            }
            for try await result in tasks {
                syncFailures += result.failures
                conflicts += result.conflicts
                lastLocalGeneration.merge(result.saved) { $1 }
            }
        }
        log.stop()
        while log.runningCount > 0 { try await Task.sleep(for: .milliseconds(1)) }

        #expect(log.violations.isEmpty, "\(log.violations.prefix(10))")
        #expect(log.errors.isEmpty, "\(log.errors.prefix(5))")
        #expect(log.snapshots > 0 && log.groupCounts > 0)

        // Once quiet, the cache is exactly the server's state and nothing is left to push.
        await server.setFaults(SimulatedFaults())
        try await repository.sync()
        let serverState = await reliabilityServerState(server)
        let cacheState = try await reliabilityCache(repository)
        #expect(cacheState == serverState)
        #expect(ReliabilityItem.groupViolations(in: Array(cacheState.values)).isEmpty)
        await #expect(try repository.pendingChangeCount() == 0)
        var lostLocalSaves = 0
        for group in localGroups {
            let rows = serverState.values.filter { $0.group == group }
            #expect(rows.count == ReliabilityItem.groupSize)
            // The last local save of a group is what the server holds.
            if let generation = lastLocalGeneration[group], rows.first?.generation != generation { lostLocalSaves += 1 }
        }
        #expect(
            lostLocalSaves == 0,
            "\(lostLocalSaves) of \(lastLocalGeneration.count) locally saved groups lost their last save")
        #expect(conflicts == 0, "\(conflicts) false conflicts: local saves touch only groups the server does not edit")
        let statistics = await server.statistics
        reportFigure(
            "stress: \(log.snapshots) table snapshots (\(log.rowsRead) rows) and \(log.groupCounts) group counts read "
                + "during \(syncs) syncs (\(syncFailures) failed on exhausted retries), \(serverEdits) server group writes, "
                + "\(localEdits) local group saves; faults: \(statistics.transientErrors) transient, "
                + "\(statistics.duplicatedPages) duplicated pages; \(conflicts) conflicts, "
                + "\(lostLocalSaves) of \(lastLocalGeneration.count) locally saved groups lost their last save; "
                + "0 half-applied pages seen")
    }

    // The pending change a `save` enqueues takes the sync cursor as its base. When the save lands
    // after a sync pushed an earlier edit of the same record but before that sync pulled it back,
    // the base is older than the server's version of the record, which is the client's own push:
    // the next push reports a conflict with itself, and `serverWins` drops the newer local save.
    @Test
    func saveBetweenPushAndPullIsNotLost() async throws {
        let server = try SimulatedServer(records: ReliabilityItem.initial(groups: 2), seed: 40)
        let remote = ReliabilityHookedRemote(server: server)
        let repository = try Repository(
            database: .inMemory(), remote: remote,
            configuration: SyncConfiguration(pageSize: 5, retryPolicy: reliabilityRetries))
        try await repository.sync()
        try await repository.save(ReliabilityItem.group(1, generation: 1, label: "first edit"))
        let second = ReliabilityItem.group(1, generation: 2, label: "second edit")
        await remote.runAfterNextPush { try await repository.save(second) }
        try await repository.sync()
        let report = try await repository.sync()
        #expect(report.conflicts.isEmpty, "\(report.conflicts)")
        for item in second {
            #expect(await server.record(id: item.id) == item)
            await #expect(try repository.fetch(id: item.id) == item)
        }
    }
}

/// A simulated server with a hook that runs inside the first pull after a push: the moment a sync
/// has pushed and not yet pulled.
actor ReliabilityHookedRemote: RemoteSource {
    typealias Model = ReliabilityItem

    let server: SimulatedServer<ReliabilityItem>
    private var hasPushed = false
    private var hook: (@Sendable () async throws -> Void)?

    init(server: SimulatedServer<ReliabilityItem>) {
        self.server = server
    }

    func runAfterNextPush(_ hook: @escaping @Sendable () async throws -> Void) {
        hasPushed = false
        self.hook = hook
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        if hasPushed, let hook {
            self.hook = nil
            try await hook()
        }
        return try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        let results = try await server.push(changes)
        hasPushed = true
        return results
    }
}
