import Foundation

#if canImport(Glibc)
    package import Glibc
#endif

/// A child process for tests (local servers, fixture scripts, re-launched test binaries): started with
/// `posix_spawn` so that it inherits no descriptor beyond its standard input, output and error, and
/// reaped with `waitpid`, never through Foundation's `Process`.
///
/// Foundation's `Process` on Linux learns that a child ended when a socket the child inherited closes,
/// so `waitUntilExit()` blocks for as long as any other process holds that socket too; called on a
/// cooperative thread, it holds one of the pool's few threads meanwhile. A CI run once stalled until
/// its two-minute test servers ended, with waits like that among the suspects. Here every spawn closes
/// all descriptors from 3 up in the child, and waiting is `waitpid` on one process id, with a deadline.
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
    private var termination: Termination?

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
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO, userInfo: [
                NSLocalizedDescriptionKey: "cannot start \(executable): \(String(cString: strerror(result)))"
            ])
        }
        processIdentifier = pid
    }

    /// Whether the child still runs; reaps it if it ended.
    package var isRunning: Bool {
        reap(blocking: false) == nil
    }

    /// Kills the child (`SIGKILL`, which a blocked signal mask cannot hold back) and reaps it.
    @discardableResult
    package func kill() -> Termination {
        if isRunning { Glibc.kill(processIdentifier, SIGKILL) }
        return reap(blocking: true) ?? .unknown
    }

    /// Waits for the child to end, up to `timeout`; past it, kills the child. Blocks the calling
    /// thread: call it only where the child ends at once (after ``kill()``) or from a plain thread.
    package func waitForExit(timeout: Duration) -> Termination {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let termination = reap(blocking: false) { return termination }
            usleep(2_000)
        }
        return kill()
    }

    /// Waits for the child to end, up to `timeout`, without holding a thread; past it, kills the child.
    package func exit(within timeout: Duration) async -> Termination {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let termination = reap(blocking: false) { return termination }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return kill()
    }

    deinit {
        kill()
    }

    /// The child's termination once it ended; with `blocking`, waits for it.
    private func reap(blocking: Bool) -> Termination? {
        if let termination { return termination }
        var status: Int32 = 0
        var result: pid_t
        repeat {
            result = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG)
        } while result == -1 && errno == EINTR
        if result == 0 { return nil }
        let ended: Termination
        if result == -1 {
            ended = .unknown
        } else if status & 0x7F == 0 {
            ended = .exited((status >> 8) & 0xFF)
        } else {
            ended = .signaled(status & 0x7F)
        }
        termination = ended
        return ended
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
