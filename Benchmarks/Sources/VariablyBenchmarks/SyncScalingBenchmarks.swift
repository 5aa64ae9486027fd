import Foundation
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// The "Sync scaling" group: how a sync's cost grows with the size of the table. Each figure compares
/// a large table with a table ten times smaller, measured in the same run:
///
/// - full sync into an empty file: records per second at each size (target: the large table keeps
///   at least 0.9 of the small one's rate, i.e. the cost per record does not grow with the table);
/// - incremental sync of 1,000 changed records on each synced table: seconds (target: at most 1.5x on
///   the large table, i.e. a sync costs O(changes), not O(table));
/// - memory added by a full sync, each size in its own child process (target: within 1.2x, i.e. a sync
///   holds a page at a time, not the table), and the same with one `malloc` arena: most of the default
///   figure is the pages glibc's per-thread arenas touch, not what the sync holds.
///
/// Full mode: 100,000 and 1,000,000 users, median of 3 interleaved rounds (9 for the incremental
/// syncs); `--quick`: 10,000 and 50,000, one round (a smoke run: sizes this small do not show the
/// scaling, and nothing fails on timing).
struct SyncScaling {
    static let name = "Sync scaling"

    let sizes: TableSizes
    var small: Int { sizes.small }
    var large: Int { sizes.large }
    let rounds: Int
    /// Incremental syncs are short (tens of milliseconds, with a checkpoint's fsync in some of them):
    /// more rounds for a steadier median.
    let incrementalRounds: Int
    let changes = 1_000

    init(configuration: Configuration) {
        sizes = TableSizes(configuration: configuration)
        rounds = configuration.isQuick ? 1 : min(configuration.rounds, 3)
        incrementalRounds = configuration.isQuick ? 1 : 9
    }

    /// One size: the full syncs' median rate and the incremental syncs' median time.
    struct Figures {
        var recordsPerSecond: Double
        var incrementalSeconds: Double
        /// CPU time (every thread) of an incremental sync: what is not waiting on I/O or hand-offs.
        var incrementalCPUSeconds: Double
        /// The same sync on a connection that checkpoints on commit: the write waits for the disk.
        var incrementalOnCommitSeconds: Double
        var memoryAddedMiB: Double
        /// The same with one `malloc` arena (`MALLOC_ARENA_MAX=1`): without the pages that glibc's
        /// per-thread arenas touch, which are most of the figure above.
        var memoryAddedOneArenaMiB: Double
    }

    /// Measures both sizes and prints the group's table.
    func run() throws {
        let (smallFigures, largeFigures) = try measure()
        print("")
        print("| \(Self.name) | \(label(small)) | \(label(large)) | ratio | target | met |")
        print("| --- | ---: | ---: | ---: | ---: | --- |")
        let rate = largeFigures.recordsPerSecond / smallFigures.recordsPerSecond
        print(
            String(
                format: "| full sync, pages of 1,000 (records/s) | %.0fk | %.0fk | %.2f | >= 0.90 | %@ |",
                smallFigures.recordsPerSecond / 1e3, largeFigures.recordsPerSecond / 1e3, rate,
                met(rate >= 0.9)))
        let incremental = largeFigures.incrementalSeconds / smallFigures.incrementalSeconds
        print(
            String(
                format: "| incremental sync of %d changes (s) | %.3f | %.3f | %.2f | <= 1.50 | %@ |", changes,
                smallFigures.incrementalSeconds, largeFigures.incrementalSeconds, incremental,
                met(incremental <= 1.5)))
        print(
            String(
                format: "| incremental sync, CPU time of every thread (s) | %.3f | %.3f | %.2f | | |",
                smallFigures.incrementalCPUSeconds, largeFigures.incrementalCPUSeconds,
                largeFigures.incrementalCPUSeconds / smallFigures.incrementalCPUSeconds))
        print(
            String(
                format: "| incremental sync, checkpoints on commit (SQLite's default) (s) | %.3f | %.3f | %.2f | | |",
                smallFigures.incrementalOnCommitSeconds, largeFigures.incrementalOnCommitSeconds,
                largeFigures.incrementalOnCommitSeconds / smallFigures.incrementalOnCommitSeconds))
        let memory = largeFigures.memoryAddedMiB / smallFigures.memoryAddedMiB
        print(
            String(
                format: "| memory added by the full sync (MiB) | %.1f | %.1f | %.2f | <= 1.20 | %@ |",
                smallFigures.memoryAddedMiB, largeFigures.memoryAddedMiB, memory, met(memory <= 1.2)))
        print(
            String(
                format: "| the same, one malloc arena (MALLOC_ARENA_MAX=1) (MiB) | %.1f | %.1f | %.2f | | |",
                smallFigures.memoryAddedOneArenaMiB, largeFigures.memoryAddedOneArenaMiB,
                largeFigures.memoryAddedOneArenaMiB / smallFigures.memoryAddedOneArenaMiB))
    }

    private func met(_ isMet: Bool) -> String { sizes.met(isMet) }

    private func label(_ records: Int) -> String { sizes.label(records) }

    /// One table size: its server and the last file a full sync filled.
    private final class Table {
        let records: Int
        let server: SimulatedServer<BenchUser>
        /// The last file a full sync filled, its repository, and a second repository on the same file
        /// whose connection checkpoints on commit (SQLite's default) instead of in the background.
        var synced: (file: TemporaryDatabase, repository: Repository<BenchUser>, onCommit: Repository<BenchUser>)?
        var syncSeconds: [Double] = []
        var incrementalSeconds: [Double] = []
        var incrementalCPUSeconds: [Double] = []
        var incrementalOnCommitSeconds: [Double] = []

        init(records: Int) throws {
            self.records = records
            server = try SimulatedServer(records: (0..<records).lazy.map(BenchUser.make), seed: 5)
        }
    }

    /// Full syncs into empty files, then incremental syncs of ``changes`` edits on the last file, the
    /// two sizes interleaved round after round (in rotating order) so that drift on a shared machine
    /// hits both alike; then the memory job of each size in a child process. Only the syncs are timed.
    private func measure() throws -> (Figures, Figures) {
        let tables = [try Table(records: small), try Table(records: large)]
        for round in 0..<rounds {
            for offset in tables.indices {
                let table = tables[(offset + round) % tables.count]
                table.synced = nil  // the previous file goes first: two files never share the disk cache
                let file = try TemporaryDatabase()
                let repository = try Repository<BenchUser>(
                    database: try SQLiteDatabase(path: file.path), remote: table.server)
                let start = DispatchTime.now().uptimeNanoseconds
                let report = try runBlocking { try await repository.sync() }
                table.syncSeconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                guard report.inserted == table.records else {
                    throw BenchmarkError("synced \(report.inserted) of \(table.records)")
                }
                var onCommit = VariablySQLite.Configuration()
                onCommit.checkpoints = .onCommit(afterPages: 1_000)
                table.synced = (
                    file, repository,
                    try Repository<BenchUser>(
                        database: try SQLiteDatabase(path: file.path, configuration: onCommit), remote: table.server)
                )
            }
        }
        let edits = changes
        /// One incremental sync of `edits` other clients' changes: (seconds, CPU seconds of every thread).
        func incremental(_ repository: Repository<BenchUser>, of table: Table, profiledAs section: String) throws
            -> (Double, Double)
        {
            let server = table.server
            _ = try runBlocking { try await server.simulateOtherClients(edits: edits) { user, _ in user.score += 1 } }
            let start = DispatchTime.now().uptimeNanoseconds
            let cpuStart = processCPUSeconds()
            let report = try ProfiledSection.run(section) { try runBlocking { try await repository.sync() } }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let cpuSeconds = processCPUSeconds() - cpuStart
            guard report.pulled == edits else { throw BenchmarkError("pulled \(report.pulled) of \(edits)") }
            return (seconds, cpuSeconds)
        }
        for round in 0..<incrementalRounds {
            for offset in tables.indices {
                let table = tables[(offset + round) % tables.count]
                guard let synced = table.synced else { throw BenchmarkError("no full sync ran") }
                let (seconds, cpuSeconds) = try incremental(
                    synced.repository, of: table, profiledAs: "incremental sync \(label(table.records))")
                table.incrementalSeconds.append(seconds)
                table.incrementalCPUSeconds.append(cpuSeconds)
                let (onCommitSeconds, _) = try incremental(
                    synced.onCommit, of: table, profiledAs: "incremental sync on commit \(label(table.records))")
                table.incrementalOnCommitSeconds.append(onCommitSeconds)
            }
        }
        FileHandle.standardError.write(Data("measured \(Self.name): syncs\n".utf8))
        let figures = try tables.map { table in
            table.synced = nil
            let (peak, before) = try MemoryJob.fullSync.measure(records: table.records)
            let (onePeak, oneBefore) = try MemoryJob.fullSync.measure(records: table.records, oneArena: true)
            return Figures(
                recordsPerSecond: Double(table.records) / median(table.syncSeconds),
                incrementalSeconds: median(table.incrementalSeconds),
                incrementalCPUSeconds: median(table.incrementalCPUSeconds),
                incrementalOnCommitSeconds: median(table.incrementalOnCommitSeconds), memoryAddedMiB: peak - before,
                memoryAddedOneArenaMiB: onePeak - oneBefore)
        }
        FileHandle.standardError.write(Data("measured \(Self.name): memory\n".utf8))
        return (figures[0], figures[1])
    }
}
