package import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A python3 script run as a local test server: written to a temporary folder, started with
/// `arguments` as a ``ChildProcess``, and ready once it printed its port on its first line. Its stdin
/// is a pipe the caller may write commands to; its stdout is read line by line, each line within a
/// deadline, so a server that stops answering fails its test instead of holding a thread.
/// `stop()` kills it and removes the folder.
package final class PythonScriptProcess {
    package let port: Int
    package let input: FileHandle
    private let output: Int32
    private var pending = Data()
    private let child: ChildProcess
    private let folder: URL
    private let name: String

    /// How long a line of the script's output may take: a python3 start on a loaded machine included.
    package static let lineDeadline: Duration = .seconds(30)

    /// What every script starts with: `exit_after(seconds, name)` ends the script after `seconds`, so
    /// that a crashed test runner cannot leave it running, and says so on stderr, since a test stops its
    /// server long before: reaching it means a test hung.
    package static let prelude = #"""
        import os, sys, threading

        def exit_after(seconds, name):
            def expire():
                # The test runner that started the script may be gone, its stderr a closed pipe: the
                # message must not keep the script from exiting.
                try:
                    sys.stderr.write("test server %s (pid %d) reached its lifetime of %s s and exits\n" % (name, os.getpid(), seconds))
                    sys.stderr.flush()
                except Exception:
                    pass
                os._exit(0)
            threading.Timer(seconds, expire).start()


        """#

    /// The Python 3 interpreter, if the machine has one (Debian: `apt-get install python3`).
    package static let python: String? = {
        let candidates =
            ["/usr/bin/python3", "/usr/local/bin/python3"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/python3" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Starts `script` like ``init(script:arguments:name:)``, on a thread of its own: a python3 start
    /// on a loaded machine takes a while, and must not hold one of Swift's cooperative threads meanwhile.
    package static func start(script: String, arguments: [String], name: String) async throws -> PythonScriptProcess {
        try await onThreadOfItsOwn { try PythonScriptProcess(script: script, arguments: arguments, name: name) }
    }

    /// Starts `script` with `arguments` (after the script's path) on the calling thread, which waits
    /// until the script printed its port; `name` names the folder and errors.
    package init(script: String, arguments: [String], name: String) throws {
        guard let python = Self.python else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "python3 is not installed"])
        }
        // Commands go through a pipe: a write after the script is gone must fail, not kill the test runner.
        signal(SIGPIPE, SIG_IGN)
        self.name = name
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("server.py")
        try Data((Self.prelude + script).utf8).write(to: file)
        let stdin = try ChildPipe()
        let stdout = try ChildPipe()
        defer {
            close(stdin.readEnd)
            close(stdout.writeEnd)
        }
        input = FileHandle(fileDescriptor: stdin.writeEnd, closeOnDealloc: true)
        output = stdout.readEnd
        do {
            child = try ChildProcess(
                executable: python, arguments: [file.path] + arguments,
                standardInput: stdin.readEnd, standardOutput: stdout.writeEnd)
        } catch {
            close(output)
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        var first = Data()
        let line = Self.readLine(from: output, pending: &first, deadline: .now + Self.lineDeadline)
        pending = first
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            child.kill()
            close(output)
            try? FileManager.default.removeItem(at: folder)
            throw CocoaError(
                .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the \(name) server did not start"])
        }
        self.port = port
    }

    deinit {
        stop()
        close(output)
    }

    /// The script's next output line; empty if the output ended or no line came within
    /// ``lineDeadline``.
    package func readLine() -> Data {
        Self.readLine(from: output, pending: &pending, deadline: .now + Self.lineDeadline)
    }

    /// Kills the script and removes its folder; later calls do nothing.
    package func stop() {
        try? input.close()
        child.kill()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The next line of `output` (`pending` holds what was read past it), without waiting past the
    /// output's end or `deadline`.
    private static func readLine(from output: Int32, pending: inout Data, deadline: ContinuousClock.Instant) -> Data {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !pending.contains(UInt8(ascii: "\n")) {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { break }
            var entry = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                min(
                    remaining.components.seconds * 1_000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1,
                    1_000))
            let ready = poll(&entry, 1, milliseconds)
            if ready == 0 || (ready == -1 && errno == EINTR) { continue }
            guard ready > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count == -1 && errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
        }
        guard let end = pending.firstIndex(of: UInt8(ascii: "\n")) else {
            defer { pending = Data() }
            return pending
        }
        let line = pending[pending.startIndex..<end]
        pending = Data(pending[pending.index(after: end)...])
        return Data(line)
    }
}
