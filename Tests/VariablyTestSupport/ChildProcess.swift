import Foundation

#if canImport(Glibc)
    package import Glibc
#endif

/// A child process for tests (local servers, fixture scripts, re-launched test binaries): started with
/// `posix_spawn` so that it inherits no descriptor beyond its standard input, output and error, and
/// reaped with `waitpid` the moment it ends (by a thread of its own that waits for that), never
/// through Foundation's `Process`.
///
/// Foundation's `Process` on Linux learns that a child ended when a socket the child inherited closes,
/// so `waitUntilExit()` blocks for as long as any other process holds that socket too; called on a
/// cooperative thread, it holds one of the pool's few threads meanwhile. A CI run once stalled until
/// its two-minute test servers ended, with waits like that among the suspects. Here every spawn closes
/// all descriptors from 3 up in the child, and waiting is `waitpid` on one process id, polled with a
/// deadline. No child stays a zombie: Swift Testing's exit-test monitor spins on one (see
/// `reapWhenItEnds`).
///
/// ```swift
/// let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exit 3"])
/// let end = child.waitForExit(timeout: .seconds(10))   // .exited(3)
/// ```
///
/// One test uses one instance; it is not shared between tasks.
package final class ChildProcess {
    /// How a child ended.
    package enum Termination: Equatable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)
        /// It was reaped elsewhere, so its status is unknown.
        case unknown
    }

    /// The child's process id.
    package let processIdentifier: pid_t
    private let ending: Ending

    /// Serializes spawns and the making of ``ChildPipe``s: where the C library lacks the `closefrom`
    /// action, a spawn closes the descriptors open when it starts, so a pipe must not be half made then.
    fileprivate static let spawnLock = NSLock()

    /// Starts `executable` with `arguments` (without the program name) and `environment` (`nil`: this
    /// process's). The standard descriptors are `standardInput`, `standardOutput` and
    /// `standardError`, or this process's own where `nil`; the caller keeps and closes its copies.
    package init(
        executable: String, arguments: [String], environment: [String: String]? = nil,
        standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target) in [(standardInput, 0), (standardOutput, 1), (standardError, 2)] {
            if let source { posix_spawn_file_actions_adddup2(&actions, source, Int32(target)) }
        }
        let argv = [executable] + arguments
        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let result: Int32 = try Self.spawnLock.withLock {
            try Self.closeDescriptorsFromThree(in: &actions)
            return Self.withCStrings(argv) { argvPointers in
                Self.withCStrings(environmentLines) { environmentPointers in
                    posix_spawn(&pid, executable, &actions, nil, argvPointers, environmentPointers)
                }
            }
        }
        guard result == 0 else {
            throw POSIXError(
                POSIXErrorCode(rawValue: result) ?? .EIO,
                userInfo: [
                    NSLocalizedDescriptionKey: "cannot start \(executable): \(String(cString: strerror(result)))"
                ])
        }
        processIdentifier = pid
        ending = Ending(pid)
        Self.reapWhenItEnds(ending)
    }

    /// Starts a thread that waits until the child of `ending` has ended (`waitid` with `WNOWAIT`, which
    /// leaves it to be reaped) and reaps it then: a child is reaped the moment it ends, whether or not its test
    /// is waiting. Swift Testing's exit-test monitor loops on `waitid(P_ALL, WNOWAIT)` and spins, a whole
    /// core, for as long as any child of the test process is an unreaped zombie: a test server that
    /// ended by its lifetime, a writer that finished. Nothing waits for this thread: every other path
    /// reaps for itself (`waitpid` with `WNOHANG`, under the same lock), so a thread slow to start
    /// delays no test. A detached `pthread` with a small stack: one per child, gone with the child.
    private static func reapWhenItEnds(_ ending: Ending) {
        let context = Unmanaged.passRetained(ending).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 256 << 10)
        var thread = pthread_t()
        let created = pthread_create(
            &thread, &attributes,
            { context in
                let ending = Unmanaged<Ending>.fromOpaque(context!).takeRetainedValue()
                ending.waitUntilEndedThenReap()
                return nil
            }, context)
        if created != 0 { Unmanaged<Ending>.fromOpaque(context).release() }
    }

    /// Whether the child still runs.
    package var isRunning: Bool {
        ending.reap() == nil
    }

    /// Kills the child (`SIGKILL`, which a blocked signal mask cannot hold back) and waits for its end.
    @discardableResult
    package func kill() -> Termination {
        if isRunning { Glibc.kill(processIdentifier, SIGKILL) }
        return ending.reap(waitingUntil: .now + .seconds(30)) ?? .unknown
    }

    /// Waits for the child to end, up to `timeout`; past it, kills the child. Blocks the calling
    /// thread: call it only where the child ends at once (after ``kill()``) or from a plain thread.
    package func waitForExit(timeout: Duration) -> Termination {
        ending.reap(waitingUntil: .now + timeout) ?? kill()
    }

    /// Waits for the child to end, up to `timeout`, without holding a thread; past it, kills the child.
    package func exit(within timeout: Duration) async -> Termination {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let termination = ending.reap() { return termination }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return kill()
    }

    deinit {
        kill()
    }

    /// Adds "close every descriptor from 3 up" to `actions`: glibc's `closefrom` action where the C
    /// library has it (2.34 and later; Swift's Glibc module does not declare it), else a close for
    /// each descriptor open now.
    private static func closeDescriptorsFromThree(in actions: inout posix_spawn_file_actions_t) throws {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            let addCloseFrom = unsafeBitCast(symbol, to: AddCloseFrom.self)
            guard addCloseFrom(&actions, 3) == 0 else { throw POSIXError(.EINVAL) }
            return
        }
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }
        for descriptor in open where descriptor >= 3 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// Calls `body` with a NULL-terminated array of C strings copied from `strings`.
    private static func withCStrings<R>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
    ) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
        defer { copies.forEach { free($0) } }
        return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

/// A child's end: reaped once, by whichever of its waiter thread and the test's calls comes first.
///
/// `@unchecked Sendable`: `recorded` is only touched, and the child only reaped, while holding `lock`.
private final class Ending: @unchecked Sendable {
    let pid: pid_t
    private let lock = NSLock()
    private var recorded: ChildProcess.Termination?

    init(_ pid: pid_t) {
        self.pid = pid
    }

    /// The child's end if it has ended, reaping it then; `nil` while it runs.
    func reap() -> ChildProcess.Termination? {
        lock.withLock {
            if let recorded { return recorded }
            var status: Int32 = 0
            var result: pid_t
            repeat {
                result = waitpid(pid, &status, WNOHANG)
            } while result == -1 && errno == EINTR
            switch result {
            case 0: return nil
            case -1: recorded = .unknown
            default: recorded = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
            }
            return recorded
        }
    }

    /// The child's end, polling every millisecond until `deadline` at most; `nil` if it still runs then.
    func reap(waitingUntil deadline: ContinuousClock.Instant) -> ChildProcess.Termination? {
        while true {
            if let termination = reap() { return termination }
            guard ContinuousClock.now < deadline else { return nil }
            usleep(1_000)
        }
    }

    /// Blocks until the child has ended (without reaping it), then reaps it.
    func waitUntilEndedThenReap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        _ = reap()
    }
}

/// A pipe whose two ends are closed on `exec`, so that no child inherits them by accident; pass an end
/// to ``ChildProcess`` to make it a child's standard descriptor.
package struct ChildPipe {
    /// The end to read from.
    package let readEnd: Int32
    /// The end to write to.
    package let writeEnd: Int32

    /// Creates the pipe.
    package init() throws {
        var descriptors: [Int32] = [0, 0]
        try ChildProcess.spawnLock.withLock {
            guard pipe(&descriptors) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        }
        readEnd = descriptors[0]
        writeEnd = descriptors[1]
    }
}
