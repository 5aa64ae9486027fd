import Foundation

#if canImport(Glibc)
    import Glibc
#endif
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A full sync of `users` from the simulated server (pages of 1,000) into an
/// empty SQLite file, an incremental sync of 1% changes, and the naive pipeline on the same pages in
/// the same run. Prints throughput and memory. Run it in release (see `main.swift`).
func runBenchmark(users: Int, folder: URL) async throws {
    let pageSize = 1_000
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    print("Benchmark: \(grouped(users)) users, pages of \(grouped(pageSize)), files in \(folder.path)")
    let server = try SimulatedServer(records: (0..<users).lazy.map(User.generated), seed: 1)
    let clock = ContinuousClock()
    guard let rounds = try await measureFullSyncs(server: server, pageSize: pageSize, folder: folder) else { return }

    try await server.simulateOtherClients(edits: users / 100) { user, random in
        user.score = Double(Int.random(in: 0..<1_000, using: &random)) / 10
    }
    let incrementalStart = clock.now
    let incremental = try await rounds.repository.sync()
    let incrementalTime = incrementalStart.duration(to: clock.now)
    rounds.printFigures(incremental: incremental, incrementalTime: incrementalTime)
}

/// The best of two rounds of the naive pipeline and the repository's full sync, with the memory the
/// last full sync used.
struct FullSyncRounds {
    var naiveTime = Duration.seconds(1_000_000)
    var naiveCPU = Double.infinity
    var fullCPU = Double.infinity
    var naiveCount = 0
    var fullTime = Duration.seconds(1_000_000)
    var full = SyncReport<User.ID>()
    /// The repository of the last round, synced in full.
    var repository: Repository<User>
    var baseline = 0
    var peak = 0
    /// Resident memory after each page of the last full sync.
    var samples: [Int] = []

    /// Prints the figures, with the incremental sync's.
    func printFigures(incremental: SyncReport<User.ID>, incrementalTime: Duration) {
        func rate(_ count: Int, _ time: Duration) -> String {
            let seconds = Double(time.components.seconds) + Double(time.components.attoseconds) / 1e18
            return "\(grouped(Int(Double(count) / seconds))) records/s"
        }
        let tenth = max(samples.count / 10, 1)
        let early = samples.prefix(tenth).max() ?? 0
        let late = samples.suffix(tenth).max() ?? 0
        print(
            "  repository full sync:   \(seconds(fullTime)) s, \(rate(full.pulled, fullTime)) (\(full.inserted) inserted)"
        )
        print("  naive pipeline:         \(seconds(naiveTime)) s, \(rate(naiveCount, naiveTime))")
        let ratio =
            (Double(naiveTime.components.seconds) + Double(naiveTime.components.attoseconds) / 1e18)
            / (Double(fullTime.components.seconds) + Double(fullTime.components.attoseconds) / 1e18)
        print(
            "  speed-up over naive:    \(String(format: "%.2f", ratio))x wall clock, \(String(format: "%.2f", naiveCPU / fullCPU))x CPU time (\(String(format: "%.2f", fullCPU)) s against \(String(format: "%.2f", naiveCPU)) s)"
        )
        print(
            "  incremental sync (1%):  \(seconds(incrementalTime)) s, \(incremental.pulled) pulled, \(incremental.updated) updated"
        )
        print(
            "  memory: resident before sync \(megabytes(baseline)), peak during sync \(megabytes(peak)) (+\(megabytes(peak - baseline)))"
        )
        print(
            "          resident after the first 10% of pages \(megabytes(early)), after the last 10% \(megabytes(late))"
        )
    }
}

/// Two rounds, alternating, best of each: shared machines are noisy, and only ratios measured in
/// the same run mean anything. The naive pipeline goes first in each round, so that its garbage
/// does not count against the repository's peak.
func measureFullSyncs(server: SimulatedServer<User>, pageSize: Int, folder: URL) async throws -> FullSyncRounds? {
    func freshDatabase(_ name: String) throws -> SQLiteDatabase {
        let path = folder.appendingPathComponent(name).path
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return try SQLiteDatabase(path: path)
    }
    let clock = ContinuousClock()
    var rounds: FullSyncRounds?
    for round in 1...2 {
        let naiveDatabase = try freshDatabase("naive.sqlite")
        let naiveStart = clock.now
        let naiveCPUStart = MemoryUsage.cpuSeconds()
        let naiveCount = try await runNaivePipeline(server: server, database: naiveDatabase, pageSize: pageSize)
        let naiveTime = naiveStart.duration(to: clock.now)
        let naiveCPU = MemoryUsage.cpuSeconds() - naiveCPUStart

        let candidate = try Repository(
            database: try freshDatabase("bench-\(round).sqlite"), remote: server,
            configuration: SyncConfiguration(pageSize: pageSize))
        let progress = candidate.progressUpdates()
        let sampler = Task {
            var samples: [Int] = []
            for await event in progress {
                if case .pageApplied = event { samples.append(MemoryUsage.residentBytes()) }
                if case .finished = event { break }
            }
            return samples
        }
        var next = rounds ?? FullSyncRounds(repository: candidate)
        next.naiveCount = naiveCount
        next.naiveTime = min(next.naiveTime, naiveTime)
        next.naiveCPU = min(next.naiveCPU, naiveCPU)
        next.baseline = MemoryUsage.residentBytes()
        MemoryUsage.resetPeak()
        let fullStart = clock.now
        let fullCPUStart = MemoryUsage.cpuSeconds()
        next.full = try await candidate.sync()
        next.fullTime = min(next.fullTime, fullStart.duration(to: clock.now))
        next.fullCPU = min(next.fullCPU, MemoryUsage.cpuSeconds() - fullCPUStart)
        next.peak = MemoryUsage.peakBytes()
        next.samples = await sampler.value
        next.repository = candidate
        rounds = next
    }
    return rounds
}

/// Resident memory of this process, from `/proc/self/status` (Linux); 0 where it is not available.
enum MemoryUsage {
    static func residentBytes() -> Int { field("VmRSS:") }

    /// User and system CPU time of the process so far, in seconds: robust to a busy machine.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
    static func peakBytes() -> Int { field("VmHWM:") }

    /// Resets the peak (`VmHWM`) to the current resident size (Linux: `clear_refs`, value 5).
    static func resetPeak() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    private static func field(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) })
        else { return 0 }
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kilobytes * 1024
    }
}

func megabytes(_ bytes: Int) -> String {
    String(format: "%.1f MB", Double(bytes) / 1_048_576)
}
