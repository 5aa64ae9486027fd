import Foundation
import VariablyCodable
import VariablySQLite
import VariablySync

#if canImport(Glibc)
    import Glibc
#endif

/// The "Push, one request per record" section: how long one `sync()` takes to push N queued edits to
/// per-record endpoints (`PATCH /notes/{id}/` with the changed field only, as Django REST Framework
/// takes them), by how many requests are in flight at once (`maximumConcurrentRequests`), against a
/// loopback server (``PushServer``) that answers each write after a fixed latency:
///
/// - 0 ms: loopback, CPU-bound: what the client, the queue and the server's threads cost per record;
/// - 10 ms: a realistic server (a network round trip plus a database commit), whose latency concurrent
///   requests overlap: the ratio to one request at a time approaches the concurrency.
///
/// Each cell (latency, N, concurrency) has its own in-memory repository, filled by a pull before anything
/// is timed. A round saves an edit of one field of the N cached users (untimed), then times one `sync()`:
/// the push, then an empty pull. The concurrencies of one latency and N are interleaved round after
/// round in rotating order, as the harness does, so that drift on a shared machine hits them alike;
/// medians are reported.
///
/// Full mode: N = 100 and 1,000 at 0 and 10 ms, concurrency 1, 4 and 8, `--rounds` rounds (5) after a
/// warm-up round; `--quick`: N = 100 at 10 ms, concurrency 1 and 4, once (a smoke run: nothing fails on
/// timing).
struct PushConcurrency {
    static let name = "Push, one request per record"

    /// Server latencies per write, in milliseconds.
    let latencies: [Int]
    let counts: [Int]
    let concurrencies: [Int]
    let rounds: Int
    let warmUp: Bool

    init(configuration: Configuration) {
        if configuration.isQuick {
            (latencies, counts, concurrencies) = ([10], [100], [1, 4])
        } else {
            (latencies, counts, concurrencies) = ([0, 10], [100, 1_000], [1, 4, 8])
        }
        rounds = configuration.isQuick ? 1 : max(1, configuration.rounds)
        warmUp = configuration.warmUp
    }

    /// One row of the table: a cell's median sync.
    struct Row {
        var latency: Int
        var count: Int
        var concurrency: Int
        var seconds: Double
        var ratio: Double
    }

    /// Measures every cell and prints the section's table.
    func run() throws {
        var rows: [Row] = []
        for latency in latencies {
            let server = try PushServer(latency: Double(latency) / 1e3)
            for count in counts {
                let cells = try concurrencies.map { try Cell(server: server, count: count, concurrency: $0) }
                if warmUp { for cell in cells { _ = try cell.push() } }
                var seconds = Array(repeating: [Double](), count: cells.count)
                for round in 0..<rounds {
                    for offset in cells.indices {
                        let index = (offset + round) % cells.count
                        seconds[index].append(try cells[index].push())
                    }
                }
                let medians = seconds.map(median)
                rows += cells.indices.map { index in
                    Row(
                        latency: latency, count: count, concurrency: cells[index].concurrency, seconds: medians[index],
                        ratio: medians[0] / medians[index])
                }
                FileHandle.standardError.write(Data("measured \(Self.name): \(latency) ms, \(count) changes\n".utf8))
            }
        }
        print("")
        print("\(Self.name): one sync() pushing N queued edits, median of \(rounds) round(s)")
        print("")
        print("| latency (ms) | N | concurrency | seconds | changes/s | ratio to concurrency 1 |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: |")
        for row in rows {
            print(
                String(
                    format: "| %d | %d | %d | %.3f | %.0f | %.2f |", row.latency, row.count, row.concurrency,
                    row.seconds,
                    Double(row.count) / row.seconds, row.ratio))
        }
    }

    /// One repository pushing ``count`` edits ``concurrency`` requests at a time.
    private final class Cell {
        let count: Int
        let concurrency: Int
        let repository: Repository<BenchUser>
        /// The cached users as the last push left them.
        private var users: [BenchUser]
        private var generation = 0

        /// A repository over `server` with `count` users in its cache, pulled (a pull queues nothing).
        init(server: PushServer, count: Int, concurrency: Int) throws {
            self.count = count
            self.concurrency = concurrency
            users = (0..<count).map(BenchUser.make)
            let endpoints = HTTPRecordEndpoints(
                path: "notes", trailingSlash: true, update: .patch, body: .changedFields, readOnlyFields: ["id"],
                maximumConcurrentRequests: concurrency)
            let api = HTTPAPI(
                pull: HTTPPullShape(
                    path: "notes/", records: "results", paging: .page(parameter: "page"), limitParameter: "page_size",
                    endsOnNotFound: true),
                push: .perRecord(endpoints))
            let remote = HTTPRemoteSource<BenchUser>(baseURL: server.baseURL, api: api, timeout: 30)
            let repository = try Repository<BenchUser>(
                database: .inMemory(), remote: remote, configuration: SyncConfiguration(pageSize: 1_000))
            self.repository = repository
            server.seed = try KeySetJSONEncoder(source: .remote).encode(users)
            defer { server.seed = nil }
            let report = try runBlocking { try await repository.sync() }
            guard report.inserted == count else { throw BenchmarkError("pulled \(report.inserted) of \(count) users") }
        }

        /// Saves an edit of every cached user (untimed), then syncs; returns the sync's seconds.
        func push() throws -> Double {
            generation += 1
            // A score no user has yet (`make` gives less than 125): every save changes one column.
            for index in users.indices { users[index].score = Double(1_000 + generation) }
            let (edited, repository, count) = (users, repository, count)
            try runBlocking { try await repository.save(edited) }
            let start = DispatchTime.now().uptimeNanoseconds
            let report = try runBlocking { try await repository.sync() }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            guard report.pushed == count, report.failed.isEmpty, report.conflicts.isEmpty else {
                throw BenchmarkError("pushed \(report.pushed) of \(count) changes: \(report)")
            }
            return seconds
        }
    }
}

/// A minimal HTTP/1.1 server on 127.0.0.1 for per-record pushes, one thread per connection so that
/// concurrent requests are served concurrently (``LoopbackServer`` answers one connection at a time):
///
/// - a `GET` of a first page (`GET /notes/?page=1&page_size=…`, `GET /users/?limit=…`: no `page`, or
///   page 1) answers `{"results": <seed>, "count": 0, "next": null, "previous": null}` (no client reads
///   the count), other pages or no seed `[]`: the cache is filled once, before the timed syncs, whose
///   pulls are empty;
/// - `PATCH`, `PUT` and `POST` sleep ``latency``, then answer `200` with what ``writeAnswer`` makes of the
///   request's target and body (by default the body itself).
///
/// Every request is read whole (its head, then `Content-Length` bytes) before the answer, which closes
/// the connection: closing with unread bytes would reset it.
///
/// `@unchecked Sendable`: `baseURL`, `latency`, `writeAnswer` and the listener are set in `init` and never
/// change; the seed, the only mutable state, is read and written under `lock`.
final class PushServer: @unchecked Sendable {
    let baseURL: URL
    /// Seconds each write waits before it is answered (a round trip and a commit).
    let latency: Double
    /// The body of a write's answer, from the request's target (`/users/42/`) and body.
    private let writeAnswer: @Sendable (_ target: String, _ body: Data) -> Data
    private let listener: Int32
    private let lock = NSLock()
    private var seedRecords: Data?

    /// The JSON array of records the first page of a pull answers; `nil` for none.
    var seed: Data? {
        get { lock.withLock { seedRecords } }
        set { lock.withLock { seedRecords = newValue } }
    }

    /// Listens on a free port of 127.0.0.1; writes are answered with what `answer` makes of their target
    /// and body (the body itself by default).
    init(latency: Double, answer: @escaping @Sendable (_ target: String, _ body: Data) -> Data = { $1 }) throws {
        self.latency = latency
        self.writeAnswer = answer
        let (listener, port) = try listenOnLoopback(backlog: 128)
        self.listener = listener
        baseURL = URL(string: "http://127.0.0.1:\(port)/")!
        Thread { [self] in acceptLoop() }.start()
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            Thread { [self] in
                answer(connection)
                close(connection)
            }.start()
        }
    }

    private func answer(_ connection: Int32) {
        guard let (method, target, body) = Self.readRequest(connection) else { return }
        let status: String
        var reply = Data()
        switch method {
        case "GET":
            let page = URLComponents(string: target)?.queryItems?.first { $0.name == "page" }?.value
            let records = page == nil || page == "1" ? seed ?? Data("[]".utf8) : Data("[]".utf8)
            status = "200 OK"
            reply = Data(#"{"results":"#.utf8) + records + Data(#","count":0,"next":null,"previous":null}"#.utf8)
        case "PATCH", "PUT", "POST":
            if latency > 0 { Thread.sleep(forTimeInterval: latency) }
            status = "200 OK"
            reply = writeAnswer(target, body)
        default:
            status = "404 Not Found"
            reply = Data(#"{"detail":"Not found."}"#.utf8)
        }
        var response = Data(
            "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(reply.count)\r\nConnection: close\r\n\r\n"
                .utf8)
        response.append(reply)
        sendAll(response, to: connection)
    }

    /// The method, the target and the body of the request on `connection`; `nil` if it closes first.
    private static func readRequest(_ connection: Int32) -> (method: String, target: String, body: Data)? {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let separator = Array("\r\n\r\n".utf8)
        var head: (end: Int, method: String, target: String, bodyLength: Int)?
        while true {
            if head == nil, let end = received.firstRange(of: separator)?.upperBound {
                let lines = String(decoding: received[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                let words = lines[0].split(separator: " ")
                guard words.count >= 2 else { return nil }
                let length = lines.first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                head = (end, String(words[0]), String(words[1]), length ?? 0)
            }
            if let head, received.count >= head.end + head.bodyLength {
                return (head.method, head.target, Data(received[head.end..<(head.end + head.bodyLength)]))
            }
            let count = recv(connection, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return nil }
            received.append(contentsOf: buffer[0..<count])
        }
    }
}
