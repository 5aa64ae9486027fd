import Foundation
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The python3 process of a Django test server (``DRFServer``, ``JSONAPIServer``): its script, run by
/// ``PythonScriptProcess`` after ``serving`` (the request log, the WSGI server, the command loop), its
/// commands, one JSON object a line, and its turn: one Django runs at a time across the suites.
final class DjangoProcess {
    /// The port the server listens on, on 127.0.0.1.
    let port: Int
    private let script: PythonScriptProcess

    private init(script: PythonScriptProcess) {
        self.script = script
        port = script.port
    }

    /// A python3 that runs `import <modules>`: the tests' own (``PythonScriptProcess/python``) if it does,
    /// else the first on `PATH` that does (e.g. pyenv's, where `pip install` put them); `nil` if none.
    /// ``PythonScriptProcess`` starts a script with its own python3, which re-executes the script with
    /// this one when it lacks the modules.
    static func python(importing modules: String) -> String? {
        let onPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/python3" }
        var seen: Set<String> = []
        let candidates = ([PythonScriptProcess.python].compactMap { $0 } + onPath).filter {
            FileManager.default.isExecutableFile(atPath: $0)
                && seen.insert(URL(fileURLWithPath: $0).resolvingSymlinksInPath().path).inserted
        }
        return candidates.first { imports(modules, $0) }
    }

    /// Whether `python` runs `import <modules>` without an error.
    private static func imports(_ modules: String, _ python: String) -> Bool {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        let silent: Int32? = null >= 0 ? null : nil
        guard
            let child = try? ChildProcess(
                executable: python, arguments: ["-c", "import \(modules)"],
                standardOutput: silent, standardError: silent)
        else { return false }
        return child.waitForExit(timeout: .seconds(60)) == .exited(0)
    }

    /// Waits for the turn to run a Django, then starts `script` (after ``serving``) as
    /// `server.py LIFETIME PYTHON` and hands the process to `make` (which may ask it a first command), both on a thread of its own, without
    /// holding one of Swift's cooperative threads: Django takes a second or more to start, and a test
    /// that blocked a cooperative thread that long would stall the tests around it. The script exits by
    /// itself after `lifetime` seconds.
    ///
    /// One server runs at a time across the test suites: several Djangos starting at once on a loaded
    /// two-core machine missed their start deadline. The next test's server starts after ``stop()``.
    static func start<Server>(
        script: String, name: String, lifetime: Int, python: String,
        _ make: @escaping @Sendable (sending DjangoProcess) throws -> sending Server
    ) async throws -> sending Server {
        await turns.begin()
        do {
            return try await onThreadOfItsOwn {
                let process = try PythonScriptProcess(
                    script: serving + script, arguments: [String(lifetime), python], name: name)
                // A `make` that throws drops the process: its deinit kills the script.
                return try make(DjangoProcess(script: process))
            }
        } catch {
            await turns.end()
            throw error
        }
    }

    /// Whose turn it is to run a server.
    private static let turns = Turns()

    /// One holder at a time, the others waiting in order.
    actor Turns {
        private var isTaken = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func begin() async {
            guard isTaken else {
                isTaken = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func end() {
            if waiting.isEmpty { isTaken = false } else { waiting.removeFirst().resume() }
        }
    }

    /// Kills the server, removes its folder (the database with it) and hands the turn on.
    func stop() {
        script.stop()
        guard !isStopped.exchange(true) else { return }
        let turns = Self.turns
        Task { await turns.end() }
    }

    /// Whether ``stop()`` handed the turn on already.
    private let isStopped = StopFlag()

    /// A flag set once. `@unchecked Sendable`: `value` is only touched while `lock` is held.
    final class StopFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false

        /// Sets the flag and returns what it was.
        func exchange(_ new: Bool) -> Bool {
            lock.withLock {
                defer { value = new }
                return value
            }
        }
    }

    /// One request as the server saw it, and how it answered.
    /// One entry of the `RequestLog` of ``serving``.
    struct Request: Decodable {
        var method: String
        /// The path with its query as sent, e.g. `/api/page/users/?page=2&page_size=10`.
        var path: String
        var status: Int
        var ifMatch: String?
        var contentType: String?
        var idempotencyKey: String?
        var authorization: String?
        /// The body of a write, as text.
        var body: String?
    }

    /// Writes `object` as one line to the script and returns the line it answers.
    func send(_ object: [String: Any]) throws -> Data {
        var line = try JSONSerialization.data(withJSONObject: object)
        line.append(UInt8(ascii: "\n"))
        try script.input.write(contentsOf: line)
        return script.readLine()
    }
}
