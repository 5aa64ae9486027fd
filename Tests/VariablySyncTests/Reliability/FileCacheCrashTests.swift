import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySync
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What the parent tells a writer child, through its environment.
enum FileCacheCrash {
    static let folderKey = "VARIABLY_RELIABILITY_FILECACHE_CHILD_DIR"
    static let modeKey = "VARIABLY_RELIABILITY_FILECACHE_CHILD_MODE"
    static let runKey = "VARIABLY_RELIABILITY_FILECACHE_CHILD_RUN"
    /// The users every writer stores: a file of about 400 KB.
    static let users = User.samples(2_000)

    static func cache(in folder: URL) -> FileCache<User> {
        FileCache<User>(url: folder.appendingPathComponent("users.json"))
    }

    /// The temporary files beside the cache file.
    static func temporaryFiles(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".users.json.tmp-") }
            .sorted()
    }

    /// A temporary file as a writer names and locks it (`.<name>.tmp-<pid>-<uuid>`), made by hand so that
    /// the test states the rule rather than borrowing the cache's code; returns its locked descriptor.
    static func makeWritersTemporaryFile(in folder: URL, pid: pid_t) throws -> (name: String, descriptor: Int32) {
        let name = ".users.json.tmp-\(pid)-\(UUID().uuidString)"
        let descriptor = open(folder.appendingPathComponent(name).path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        try #require(flock(descriptor, LOCK_EX) == 0)
        return (name, descriptor)
    }
}

// MARK: - The child

@Suite("Reliability: file cache writer child (does nothing unless launched by the file cache crash test)")
struct ReliabilityFileCacheWriterChild {
    @Test func reliabilityFileCacheWriterChildProcess() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment[FileCacheCrash.folderKey], let mode = environment[FileCacheCrash.modeKey],
            let run = environment[FileCacheCrash.runKey]
        else { return }
        let folder = URL(fileURLWithPath: path)
        let ready = folder.appendingPathComponent("ready-\(run)").path
        if mode == "hold" {
            // A writer stopped between writing its temporary file and renaming it.
            let held = try FileCacheCrash.makeWritersTemporaryFile(in: folder, pid: getpid())
            #expect(FileManager.default.createFile(atPath: ready, contents: nil))
            // Held until the test kills it, however slowly a loaded machine runs the test; a child whose
            // parent died gives up within a second, and any child after ten minutes.
            let parent = getppid()
            for _ in 0..<600 where getppid() == parent { Thread.sleep(forTimeInterval: 1) }
            close(held.descriptor)
            return
        }
        let cache = FileCacheCrash.cache(in: folder)
        for round in 0..<10_000 {
            try cache.store(FileCacheCrash.users)
            if round == 0 { #expect(FileManager.default.createFile(atPath: ready, contents: nil)) }
        }
    }
}

// MARK: - The parent

@Suite("Reliability: FileCache temporary files of killed writers", .timeLimit(.minutes(3)))
struct ReliabilityFileCacheCrashTests {
    /// Starts the test binary as a writer child in `mode`.
    static func startChild(_ mode: String, run: Int, folder: URL) throws -> ChildProcess {
        let executable = try #require(
            ReliabilityCrashConsistencyTests.testExecutable(), "the test binary cannot be re-launched")
        var environment = ProcessInfo.processInfo.environment
        environment[FileCacheCrash.folderKey] = folder.path
        environment[FileCacheCrash.modeKey] = mode
        environment[FileCacheCrash.runKey] = String(run)
        environment["VARIABLY_RELIABILITY_SCALE"] = nil
        let devNull = open("/dev/null", O_WRONLY)
        defer { close(devNull) }
        return try ChildProcess(
            executable: executable,
            arguments: ["--testing-library", "swift-testing", "--filter", "reliabilityFileCacheWriterChildProcess"],
            environment: environment, standardOutput: devNull, standardError: devNull)
    }

    /// Waits, with a deadline, until the child of `run` says it is writing.
    static func waitUntilReady(_ child: ChildProcess, run: Int, folder: URL) async throws {
        let ready = folder.appendingPathComponent("ready-\(run)").path
        for _ in 0..<30_000 where child.isRunning && !FileManager.default.fileExists(atPath: ready) {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(FileManager.default.fileExists(atPath: ready), "run \(run): the child never got ready")
    }

    @Test func killedWritersLeaveNoTemporaryFileAfterTheNextRead() async throws {
        let directory = try ReliabilityTemporaryDirectory(prefix: "variably-filecache-crash")
        defer { directory.remove() }
        let folder = directory.url
        var random = ReliabilityRandom(seed: 77 + ReliabilityBudget.seedOffset)
        let batches = ReliabilityBudget.iterations(5)
        var kills = 0
        var leftBehind = 0
        for batch in 0..<batches {
            // Four writers at once, as processes sharing a cache file would.
            let runs = (batch * 4)..<(batch * 4 + 4)
            var children: [ChildProcess] = []
            for run in runs { children.append(try Self.startChild("write", run: run, folder: folder)) }
            for (run, child) in zip(runs, children) { try await Self.waitUntilReady(child, run: run, folder: folder) }
            // Each writer is killed as soon as a temporary file shows (its own when its name says so):
            // inside a write, between creating the file and renaming it.
            let deadline = ContinuousClock.now + .seconds(20)
            var seen = Set(try FileCacheCrash.temporaryFiles(in: folder))
            while children.contains(where: \.isRunning), ContinuousClock.now < deadline {
                let names = Set(try FileCacheCrash.temporaryFiles(in: folder)).subtracting(seen)
                guard !names.isEmpty else { continue }
                seen.formUnion(names)
                let running = children.filter(\.isRunning)
                let victim = running.first { child in names.contains { $0.contains("tmp-\(child.processIdentifier)-") }
                }
                _ = (victim ?? running[Int.random(in: 0..<running.count, using: &random)]).kill()
                kills += 1
            }
            for child in children where child.isRunning { _ = child.kill() }
            leftBehind += try FileCacheCrash.temporaryFiles(in: folder).count
            // The next read removes what the dead writers left, and reads one writer's whole file.
            #expect(try FileCacheCrash.cache(in: folder).loadAll() == FileCacheCrash.users, "batch \(batch)")
            #expect(try FileCacheCrash.temporaryFiles(in: folder) == [], "batch \(batch)")
        }
        reportFigure(
            "file cache: \(kills) writers SIGKILLed while a temporary file showed, in batches of 4, \(leftBehind) temporary files left behind, "
                + "all removed by the next read; the file read whole each time")
    }

    @Test func aLiveWritersTemporaryFileIsKeptAndADeadOnesRemoved() async throws {
        let directory = try ReliabilityTemporaryDirectory(prefix: "variably-filecache-hold")
        defer { directory.remove() }
        let folder = directory.url
        let cache = FileCacheCrash.cache(in: folder)
        try cache.store(User.samples(2))
        let child = try Self.startChild("hold", run: 0, folder: folder)
        try await Self.waitUntilReady(child, run: 0, folder: folder)
        let held = try FileCacheCrash.temporaryFiles(in: folder)
        #expect(held.count == 1 && held.first?.hasPrefix(".users.json.tmp-\(child.processIdentifier)-") == true)
        // Unlocked, but named by a running process: the instant between a writer's open and its lock.
        let unlocked = try FileCacheCrash.makeWritersTemporaryFile(in: folder, pid: getpid())
        close(unlocked.descriptor)

        #expect(try cache.loadAll() == User.samples(2))
        try cache.store(User.samples(3))
        #expect(
            try FileCacheCrash.temporaryFiles(in: folder) == (held + [unlocked.name]).sorted(),
            "live writers' files stay")

        _ = child.kill()
        // Named by a dead process but locked: a live writer in another pid namespace.
        let foreign = try FileCacheCrash.makeWritersTemporaryFile(in: folder, pid: child.processIdentifier)
        #expect(try cache.loadAll() == User.samples(3))
        #expect(
            try FileCacheCrash.temporaryFiles(in: folder) == [unlocked.name, foreign.name].sorted(),
            "the killed writer's file is removed")
        close(foreign.descriptor)
        #expect(try cache.loadAll() == User.samples(3))
        #expect(try FileCacheCrash.temporaryFiles(in: folder) == [unlocked.name])
    }
}
