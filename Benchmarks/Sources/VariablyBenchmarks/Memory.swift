import Foundation
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Peak memory is measured in child processes of this executable, one job each, so that every job
/// starts from the same empty process: `VariablyBenchmarks --memory JOB --records N`.
enum MemoryJob: String, CaseIterable {
    case fullSync = "sync"
    case fetchAll = "fetch-all"
    case jsonDecode = "json-decode"

    var title: String {
        switch self {
        case .fullSync: "full sync from the simulated server (pages of 1,000)"
        case .fetchAll: "VariablySQLite fetchAll of every user"
        case .jsonDecode: "JSONDecoder, synthesized Codable, whole payload"
        }
    }

    /// Runs the job in this process and prints `peak-MiB before-MiB`.
    func run(records: Int) throws {
        let users = (0..<records).map(BenchUser.make)
        switch self {
        case .fullSync:
            let server = try SimulatedServer(records: users, seed: 3)
            let file = try TemporaryDatabase()
            let repository = try Repository<BenchUser>(database: try SQLiteDatabase(path: file.path), remote: server)
            let before = residentMiB()
            resetPeak()
            _ = try runBlocking { try await repository.sync() }
            print(String(format: "%.1f %.1f", peakResidentMiB() ?? 0, before))
        case .fetchAll:
            let file = try TemporaryDatabase()
            let database = try SQLiteDatabase(path: file.path)
            try database.write { db in
                try db.create(table: BenchUser.self)
                try db.insert(users)
            }
            let before = residentMiB()
            resetPeak()
            let fetched = try database.read { try $0.fetchAll(BenchUser.self) }
            print(String(format: "%.1f %.1f", peakResidentMiB() ?? 0, before), fetched.count)
        case .jsonDecode:
            let payload = try JSONEncoder().encode(users, source: .remote)
            let before = residentMiB()
            resetPeak()
            let decoded = try JSONDecoder().decode([SynthesizedUser].self, from: payload)
            print(String(format: "%.1f %.1f", peakResidentMiB() ?? 0, before), decoded.count)
        }
    }

    /// Runs the job in a child process; returns (peak, resident before the job) in MiB. With `oneArena`,
    /// the child's `malloc` keeps one arena (`MALLOC_ARENA_MAX=1`) instead of one per thread that
    /// allocates: what the job holds, without the pages glibc's other arenas touch.
    func measure(records: Int, oneArena: Bool = false) throws -> (Double, Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--memory", rawValue, "--records", String(records)]
        if oneArena {
            process.environment = ProcessInfo.processInfo.environment.merging(["MALLOC_ARENA_MAX": "1"]) { $1 }
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let numbers = output.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
        guard process.terminationStatus == 0, numbers.count >= 2 else {
            throw BenchmarkError("memory job \(rawValue) failed: \(output)")
        }
        return (numbers[0], numbers[1])
    }
}

func residentMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (line.split(separator: " ").compactMap { Double($0) }.first ?? 0) / 1024
    }
    return 0
}

/// Resets the peak (VmHWM) to the current resident size (Linux `clear_refs`, value 5).
func resetPeak() {
    try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
}
