import Foundation
import VariablySync
import VariablySyncTesting

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 serving pages prepared in advance, one connection per
/// request: what the client's transport costs, not what a server's storage costs. A page is found by
/// one query parameter of the request (the package's envelope: `GET /users/changes?after=`; a
/// Django REST Framework list: `GET /users/?cursor=`), the first page by its absence; the path is not
/// read. With `gzip`, every page is served gzipped (`gzip -6`, run once per page while the server is
/// prepared) with `Content-Encoding: gzip`. A server whose pages change (``init(answer:)``) makes each
/// body when it is asked for.
///
/// `@unchecked Sendable`: every property is set in `init` and never changes; the accept loop runs on
/// a thread of its own and reads them only.
final class LoopbackServer: @unchecked Sendable {
    /// `http://127.0.0.1:<port>/`.
    let origin: URL
    /// `http://127.0.0.1:<port>/users`, where the package's envelope is served.
    let baseURL: URL
    private let listener: Int32
    /// The body of each page, by the value of the parameter that asks for it ("" for the first page);
    /// empty for a server that makes its bodies (``init(answer:)``).
    let pages: [String: Data]
    /// The body for a request's query items, `nil` for an unknown page.
    private let answerQuery: @Sendable ([URLQueryItem]) -> Data?
    private let isGzipped: Bool

    /// Serves the pages `makePages` builds for the server's origin (`http://127.0.0.1:<port>/`, for
    /// bodies that link to the next page), by the value of the first of the query parameters `parameters`
    /// that the request carries (`""` when it carries none).
    init(parameters: String..., gzip: Bool = false, pages makePages: (URL) throws -> [String: Data]) throws {
        let (listener, port) = try listenOnLoopback(backlog: 64)
        self.listener = listener
        origin = URL(string: "http://127.0.0.1:\(port)/")!
        baseURL = URL(string: "http://127.0.0.1:\(port)/users")!
        let served: [String: Data]
        do {
            let made = try makePages(origin)
            served = gzip ? try made.mapValues(Self.gzipped) : made
        } catch {
            close(listener)
            throw error
        }
        pages = served
        answerQuery = { items in
            served[parameters.lazy.compactMap { name in items.first { $0.name == name }?.value }.first ?? ""]
        }
        isGzipped = gzip
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Serves the bodies `answer` makes, when they are asked for, of the request's query items and the
    /// server's origin (`http://127.0.0.1:<port>/`, for bodies that link to the next page); `nil` is an
    /// unknown page (`410 Gone`).
    init(answer: @escaping @Sendable (_ origin: URL, _ query: [URLQueryItem]) -> Data?) throws {
        let (listener, port) = try listenOnLoopback(backlog: 64)
        self.listener = listener
        let origin = URL(string: "http://127.0.0.1:\(port)/")!
        self.origin = origin
        baseURL = URL(string: "http://127.0.0.1:\(port)/users")!
        pages = [:]
        answerQuery = { answer(origin, $0) }
        isGzipped = false
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Serves the pages `server` gives for `pageSize`, read now, in the package's envelope.
    convenience init(serving server: SimulatedServer<BenchUser>, pageSize: Int, gzip: Bool = false) throws {
        var pages: [String: Data] = [:]
        var cursor: SyncCursor?
        while true {
            let after = cursor
            let page = try runBlocking { try await server.pull(after: after, limit: pageSize) }
            var body = Data(#"{"records":"#.utf8)
            body.append(page.records)
            body.append(
                contentsOf: #","deleted":[],"next_cursor":"\#(page.nextCursor.rawValue)","has_more":\#(page.hasMore)}"#
                    .utf8)
            pages[after?.rawValue ?? ""] = body
            cursor = page.nextCursor
            if !page.hasMore { break }
        }
        try self.init(parameters: "after", gzip: gzip) { _ in pages }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { return }
            answer(connection)
            close(connection)
        }
    }

    private func answer(_ connection: Int32) {
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.ends(with: Array("\r\n\r\n".utf8)) {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return }
            request.append(contentsOf: buffer[0..<count])
        }
        let line = String(decoding: request.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let target = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let found = answerQuery(URLComponents(string: target)?.queryItems ?? [])
        let body = found ?? Data(#"{"error":"unknown cursor"}"#.utf8)
        let status = found == nil ? "410 Gone" : "200 OK"
        let coding = isGzipped && found != nil ? "Content-Encoding: gzip\r\n" : ""
        var response = Data(
            "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\n\(coding)Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                .utf8)
        response.append(body)
        sendAll(response, to: connection)
    }
}

extension LoopbackServer {
    /// `data` compressed by the system's `gzip -6` (the library has no compressor, and no zlib).
    static func gzipped(_ data: Data) throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("page.json")
        try data.write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-6", input.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkError("gzip failed") }
        return try Data(contentsOf: input.appendingPathExtension("gz"))
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

/// A socket listening on a free port of 127.0.0.1, and that port.
func listenOnLoopback(backlog: Int32) throws -> (socket: Int32, port: UInt16) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var yes: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard bound == 0, listen(listener, backlog) == 0 else {
        close(listener)
        throw BenchmarkError("cannot listen on 127.0.0.1")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    return (listener, UInt16(bigEndian: address.sin_port))
}

/// Writes all of `data` to `connection`, stopping early if the peer is gone.
func sendAll(_ data: Data, to connection: Int32) {
    data.withUnsafeBytes { raw in
        var sent = 0
        while sent < raw.count {
            let count = send(connection, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
            if count <= 0 { return }
            sent += count
        }
    }
}
