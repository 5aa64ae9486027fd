import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A python3 script run as a local test server: written to a temporary folder, started with
/// `arguments`, and ready once it printed its port on its first line. Its stdin is a pipe the caller
/// may write commands to; its stdout is read line by line. `stop()` kills it and removes the folder.
final class PythonScriptProcess {
    let port: Int
    let input: FileHandle
    private let output: FileHandle
    private var pending = Data()
    private let process: Process
    private let folder: URL

    /// The Python 3 interpreter, if the machine has one (Debian: `apt-get install python3`).
    static let python: String? = {
        let candidates = ["/usr/bin/python3", "/usr/local/bin/python3"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/python3" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Starts `script` with `arguments` (after the script's path); `name` names the folder and errors.
    init(script: String, arguments: [String], name: String) throws {
        guard let python = Self.python else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "python3 is not installed"])
        }
        // Commands go through a pipe: a write after the script is gone must fail, not kill the test runner.
        signal(SIGPIPE, SIG_IGN)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("server.py")
        try Data(script.utf8).write(to: file)
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [file.path] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading
        try process.run()
        var first = Data()
        let line = Self.readLine(from: output, pending: &first)
        pending = first
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the \(name) server did not start"])
        }
        self.port = port
    }

    /// The script's next output line, without waiting past the output's end.
    func readLine() -> Data {
        Self.readLine(from: output, pending: &pending)
    }

    func stop() {
        try? input.close()
        if process.isRunning {
            // SIGKILL: the child inherits the test runner's signal mask, in which SIGTERM may be blocked.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The next line of `output` (`pending` holds what was read past it).
    private static func readLine(from output: FileHandle, pending: inout Data) -> Data {
        while !pending.contains(UInt8(ascii: "\n")) {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
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
