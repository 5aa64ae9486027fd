import Foundation
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A local HTTP proxy for the proxy tests: Debian's `tinyproxy`, started in the foreground on a free
/// loopback port with a configuration of its own in a temporary folder, and killed by ``stop()``. Its
/// log (``log``) lists every request it carried, `CONNECT` tunnels included.
final class TinyProxy {
    /// The `tinyproxy` binary, or `nil` where it is not installed (`apt-get install tinyproxy`).
    static let executable: String? = ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy", "/usr/local/bin/tinyproxy"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Why the proxy tests cannot run here, or `nil` when they can.
    static let unavailability: String? =
        executable == nil ? "tinyproxy is not installed (Debian: apt-get install tinyproxy)" : nil

    let port: Int
    private let folder: URL
    private let child: ChildProcess

    /// `http://127.0.0.1:<port>`.
    var url: String { "http://127.0.0.1:\(port)" }

    /// Starts a proxy; with `refusesTunnels`, it refuses every `CONNECT` (tinyproxy's `ConnectPort`
    /// then allows only port 1), as a proxy whose policy forbids the target does.
    init(refusesTunnels: Bool = false) async throws {
        guard let executable = Self.executable else { throw CocoaError(.fileNoSuchFile) }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("variably-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        port = try Self.freePort()
        let configuration = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 30
            LogFile "\(folder.appendingPathComponent("proxy.log").path)"
            LogLevel Info
            MaxClients 32
            Allow 127.0.0.1
            \(refusesTunnels ? "ConnectPort 1" : "")
            """
        let file = folder.appendingPathComponent("tinyproxy.conf")
        try Data(configuration.utf8).write(to: file)
        let devNull = open("/dev/null", O_WRONLY)
        defer { close(devNull) }
        child = try ChildProcess(
            executable: executable, arguments: ["-d", "-c", file.path], standardOutput: devNull, standardError: devNull)
        // Ready once it accepts a connection.
        for _ in 0..<200 {
            if Self.accepts(port) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        stop()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "tinyproxy did not start"])
    }

    /// The proxy's log so far.
    var log: String {
        (try? String(contentsOf: folder.appendingPathComponent("proxy.log"), encoding: .utf8)) ?? ""
    }

    func stop() {
        _ = child.kill()
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: - Ports

    /// A loopback port nothing listens on: one the kernel gave a socket that is closed again.
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
