import Foundation
import VariablyHTTP
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// The production transport: a full sync over loopback `https://` with gzip pages through
/// `URLSessionTransport` and through libcurl (`CurlTransport`, the default on Linux), against
/// `http://` identity through libcurl (the baseline), in the same run; then `http://` identity through
/// `URLSessionTransport` and `https://` identity through both. Prints the bytes on the wire
/// per 1,000 users with and without gzip.
///
/// Runs only under `Benchmarks/https-speed`, which makes a certificate authority for the run and starts
/// this binary where URLSession trusts it (`VARIABLY_BENCH_TLS` names the folder with `server.pem` and
/// `server.key`). The HTTPS server is python3's `ssl` over `http.server` (HTTP/1.1, keep-alive),
/// serving the same prepared pages as the plain `LoopbackServer`.
func httpsGroups(users: [BenchUser]) throws -> [Group] {
    guard let folder = ProcessInfo.processInfo.environment["VARIABLY_BENCH_TLS"] else {
        FileHandle.standardError.write(Data("Sync over loopback HTTPS: run Benchmarks/https-speed\n".utf8))
        return []
    }
    let pageSize = 1_000
    let server = try SimulatedServer(records: users, seed: 4)
    let identity = try LoopbackServer(serving: server, pageSize: pageSize)
    let gzipped = try LoopbackServer(serving: server, pageSize: pageSize, gzip: true)
    let secureIdentity = try PythonTLSServer(pages: identity.pages, gzip: false, certificates: folder)
    let secureGzip = try PythonTLSServer(pages: gzipped.pages, gzip: true, certificates: folder)
    let count = users.count

    let identityBytes = identity.pages.values.reduce(0) { $0 + $1.count }
    let gzipBytes = gzipped.pages.values.reduce(0) { $0 + $1.count }
    let perThousand = { (bytes: Int) in Double(bytes) * 1_000 / Double(count) }
    print(
        String(
            format: "Bytes on the wire per 1,000 users (response bodies, %d pages of %d): "
                + "identity %.0f B, gzip -6 %.0f B (%.1fx smaller)",
            identity.pages.count, pageSize, perThousand(identityBytes), perThousand(gzipBytes),
            Double(identityBytes) / Double(gzipBytes)))

    func sync(from remote: some RemoteSource<BenchUser>) throws -> Int {
        let file = try TemporaryDatabase()
        let repository = try Repository<BenchUser>(
            database: try SQLiteDatabase(path: file.path), remote: remote,
            configuration: SyncConfiguration(pageSize: pageSize))
        let report = try runBlocking { try await repository.sync() }
        guard report.inserted == count else { throw BenchmarkError("synced \(report.inserted) of \(count)") }
        return report.pulled
    }
    let transport = URLSessionTransport(configuration: .ephemeral)
    let baseline = "http:// identity, libcurl"
    let secure = "https:// gzip -6, URLSessionTransport"
    let secureSocket = "https:// gzip -6, libcurl"
    let plainURLSession = "http:// identity, URLSessionTransport"
    return [
        Group(
            name: "Sync over loopback HTTPS, gzip",
            variants: [
                Variant(name: baseline) { try sync(from: HTTPRemoteSource<BenchUser>(baseURL: identity.baseURL)) },
                Variant(name: secure) {
                    try sync(from: HTTPRemoteSource<BenchUser>(baseURL: secureGzip.baseURL, transport: transport))
                },
                // The default on Linux: kept-alive connections, HTTP/2 where the server offers it.
                Variant(name: secureSocket) {
                    try sync(from: HTTPRemoteSource<BenchUser>(baseURL: secureGzip.baseURL))
                },
                Variant(name: "https:// identity, libcurl") {
                    try sync(from: HTTPRemoteSource<BenchUser>(baseURL: secureIdentity.baseURL))
                },
                Variant(name: plainURLSession) {
                    try sync(from: HTTPRemoteSource<BenchUser>(baseURL: identity.baseURL, transport: transport))
                },
                Variant(name: "https:// identity, URLSessionTransport") {
                    try sync(from: HTTPRemoteSource<BenchUser>(baseURL: secureIdentity.baseURL, transport: transport))
                },
            ],
            targets: [secure: 0.8, secureSocket: 0.8])
    ]
}

/// python3 serving `pages` over TLS on 127.0.0.1 (one process, a thread per connection, keep-alive),
/// stopped when the benchmark process ends (it watches its standard input).
final class PythonTLSServer {
    let baseURL: URL
    private let process: Process
    private let input: Pipe

    init(pages: [String: Data], gzip: Bool, certificates: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (cursor, body) in pages {
            let name = Data(cursor.utf8).map { String(format: "%02x", $0) }.joined() + ".page"
            try body.write(to: folder.appendingPathComponent(name))
        }
        let script = folder.appendingPathComponent("server.py")
        try Data(Self.script.utf8).write(to: script)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, folder.path, certificates, gzip ? "gzip" : "identity"]
        let output = Pipe()
        input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableLine(), as: UTF8.self)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchmarkError("the python3 TLS server did not start")
        }
        baseURL = URL(string: "https://127.0.0.1:\(port)/users")!
    }

    deinit {
        process.terminate()
    }

    private static let script = #"""
        import binascii, http.server, os, socket, ssl, sys, threading
        from urllib.parse import urlparse, parse_qs
        folder, certificates, coding = sys.argv[1], sys.argv[2], sys.argv[3]
        pages = {}
        for name in os.listdir(folder):
            if name.endswith(".page"):
                cursor = binascii.unhexlify(name[:-5]).decode()
                pages[cursor] = open(os.path.join(folder, name), "rb").read()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def setup(self):
                super().setup()
                # One write per answer, sent at once: no delayed-ACK stall between head and body.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            def log_message(self, *arguments):
                pass
            def do_GET(self):
                after = parse_qs(urlparse(self.path).query).get("after", [""])[0]
                body = pages.get(after)
                status = "200 OK" if body is not None else "410 Gone"
                body = body if body is not None else b'{"error":"unknown cursor"}'
                head = "HTTP/1.1 %s\r\nContent-Type: application/json\r\n" % status
                if coding == "gzip":
                    head += "Content-Encoding: gzip\r\n"
                head += "Content-Length: %d\r\n\r\n" % len(body)
                self.wfile.write(head.encode() + body)

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.path.join(certificates, "server.pem"), os.path.join(certificates, "server.key"))
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
        server.serve_forever()
        """#
}

extension FileHandle {
    /// The bytes up to the first line break.
    fileprivate func availableLine() -> Data {
        var line = Data()
        while let byte = try? read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        return line
    }
}
