import Foundation
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

extension PocketBaseServer {
    /// A started `pocketbase serve`, not set up yet: its folder (`pb_data/` and `server.log`), the `bash`
    /// that watches over it, and that `bash`'s standard input.
    final class Launch {
        let baseURL: URL
        let child: ChildProcess
        let input: FileHandle
        let folder: URL

        /// How long the server may take to listen: a start on a loaded machine included.
        static let startDeadline: Duration = .seconds(60)

        /// The `bash` that runs the server: it kills the server (`SIGKILL`) when its standard input
        /// closes (the test runner stopped it, or ended however it ended), after `$4` seconds, or on
        /// `SIGHUP`, `SIGINT` or `SIGTERM`, then removes the server's folder `$5`. `$0` is the binary,
        /// `$1` the address, `$2` the data folder, `$3` the log, which takes what `bash` itself says too,
        /// `$6` the folder of JavaScript hooks (`pb_hooks`, read once: no restart when a file changes).
        private static let watcher = #"""
            exec 2>>"$3"
            "$0" serve --http="$1" --dir="$2" --hooksDir="$6" --hooksWatch=false </dev/null >>"$3" 2>&1 &
            server=$!
            trap 'kill -9 "$server"; wait "$server"; rm -rf "$5"; exit 1' HUP INT TERM
            read -r -t "$4" _
            kill -9 "$server" 2>/dev/null
            wait "$server"
            rm -rf "$5"
            exit 0
            """#

        /// Makes `folder`, the superuser (`pocketbase superuser upsert`) and `pb_hooks/` with `hooks` (file
        /// names and their JavaScript), then serves on a free port (another, twice at most, in a new folder,
        /// if a process took the port meanwhile), blocking the calling thread until the server listens.
        init(executable: String, folder: URL, lifetime: Int, hooks: [String: String] = [:]) throws {
            // Commands go through a pipe: a write after the watcher is gone must fail, not kill the test runner.
            signal(SIGPIPE, SIG_IGN)
            self.folder = folder
            let data = folder.appendingPathComponent("pb_data").path
            let logPath = folder.appendingPathComponent("server.log").path
            for attempt in 1...3 {
                let start: (child: ChildProcess, input: FileHandle, port: Int)
                do {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try Self.write(hooks, into: folder.appendingPathComponent("pb_hooks"))
                    try Self.run(
                        executable, ["superuser", "upsert", superuserEmail, superuserPassword, "--dir=\(data)"],
                        log: logPath)
                    start = try Self.serve(executable, data: data, log: logPath, lifetime: lifetime, folder: folder)
                } catch {
                    try? FileManager.default.removeItem(at: folder)
                    throw error
                }
                if Self.waitUntilListening(port: start.port, log: logPath) {
                    (child, input) = (start.child, start.input)
                    baseURL = URL(string: "http://127.0.0.1:\(start.port)/")!
                    return
                }
                let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                Self.stop(child: start.child, input: start.input, folder: folder)
                guard attempt < 3, log.contains("address already in use") else {
                    throw CocoaError(
                        .fileReadCorruptFile,
                        userInfo: [NSLocalizedDescriptionKey: "PocketBase did not start:\n\(log.suffix(2_000))"])
                }
            }
            preconditionFailure("the third attempt returns or throws")
        }

        /// Starts the watcher, which starts the server on a free port.
        private static func serve(_ executable: String, data: String, log: String, lifetime: Int, folder: URL) throws
            -> (child: ChildProcess, input: FileHandle, port: Int)
        {
            let port = try freePort()
            let stdin = try ChildPipe()
            defer { close(stdin.readEnd) }
            let input = FileHandle(fileDescriptor: stdin.writeEnd, closeOnDealloc: true)
            let child = try ChildProcess(
                executable: "/bin/bash",
                arguments: [
                    "-c", watcher, executable, "127.0.0.1:\(port)", data, log, String(lifetime), folder.path,
                    folder.appendingPathComponent("pb_hooks").path,
                ],
                standardInput: stdin.readEnd)
            return (child, input, port)
        }

        /// Writes each hook file into `hooks` (made, empty when there are none).
        private static func write(_ hooks: [String: String], into folder: URL) throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, script) in hooks {
                try Data(script.utf8).write(to: folder.appendingPathComponent(name))
            }
        }

        /// Stops the server, then removes its folder.
        func stop() {
            Self.stop(child: child, input: input, folder: folder)
        }

        /// Closes the watcher's standard input, so that it kills the server and exits, and waits for
        /// that (killing the watcher itself after 10 seconds); then removes `folder`.
        static func stop(child: ChildProcess, input: FileHandle, folder: URL?) {
            try? input.close()
            _ = child.waitForExit(timeout: .seconds(10))
            if let folder { try? FileManager.default.removeItem(at: folder) }
        }

        /// Runs `executable` with `arguments` to its end, its output appended to `log`; throws unless it exits 0.
        private static func run(_ executable: String, _ arguments: [String], log: String) throws {
            let descriptor = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(descriptor) }
            let child = try ChildProcess(
                executable: executable, arguments: arguments, standardOutput: descriptor, standardError: descriptor)
            let end = child.waitForExit(timeout: .seconds(120))
            guard end == .exited(0) else {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw CocoaError(
                    .fileReadCorruptFile,
                    userInfo: [
                        NSLocalizedDescriptionKey: "pocketbase \(arguments[0]) ended \(end): \(text.suffix(2_000))"
                    ])
            }
        }

        /// Waits until the log says the server started and a connection to `port` succeeds; `false` if
        /// the log shows a failure first, or after ``startDeadline``.
        private static func waitUntilListening(port: Int, log: String) -> Bool {
            let deadline = ContinuousClock.now + startDeadline
            while ContinuousClock.now < deadline {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if text.contains("address already in use") || text.contains("Error:") { return false }
                if text.contains("Server started"), connects(to: port) { return true }
                usleep(20_000)
            }
            return false
        }

        /// A loopback port no process listens on now, as the system picks one for a bind to port 0.
        private static func freePort() throws -> Int {
            try withLoopbackSocket { descriptor, address in
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let bound = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
                    }
                }
                guard bound else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                return Int(UInt16(bigEndian: address.sin_port))
            }
        }

        /// Whether a TCP connection to 127.0.0.1:`port` succeeds.
        private static func connects(to port: Int) -> Bool {
            (try? withLoopbackSocket { descriptor, address in
                address.sin_port = UInt16(port).bigEndian
                return withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
                }
            }) ?? false
        }

        /// Calls `body` with a new TCP socket and the address 127.0.0.1, port 0; closes the socket after.
        private static func withLoopbackSocket<T>(_ body: (Int32, inout sockaddr_in) throws -> T) throws -> T {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            return try body(descriptor, &address)
        }
    }
}
