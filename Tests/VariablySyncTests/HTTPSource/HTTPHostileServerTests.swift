import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablyHTTP
import VariablySync
import VariablyTestSupport

/// `HTTPRemoteSource` against servers that break HTTP (see `HostileHTTPServer` for the modes), through
/// each transport of `HostileTransport.all` where the scenario applies to it. Every request has a
/// deadline of a few seconds at most, and the suite a time limit.
@Suite(.timeLimit(.minutes(3)), .enabled(if: PythonScriptProcess.python != nil, "python3 is not installed"))
struct HTTPHostileServerTests {
    /// The error `operation` throws, if it is a `RemoteSourceError`.
    private func remoteError(_ operation: () async throws -> some Any) async -> RemoteSourceError? {
        do {
            _ = try await operation()
            Issue.record("expected a RemoteSourceError, got an answer")
            return nil
        } catch let error as RemoteSourceError {
            return error
        } catch {
            Issue.record("expected a RemoteSourceError, got \(error)")
            return nil
        }
    }

    private func pull(
        _ modes: [String], through transport: HostileTransport = .curl, after cursor: SyncCursor? = nil,
        timeout: TimeInterval = 20, maximumResponseSize: Int = 64 << 20
    ) async throws -> (server: HostileHTTPServer, result: Result<RemotePage<Int64>, any Error>) {
        let server = try await transport.server(modes)
        let remote = transport.source(server, timeout: timeout, maximumResponseSize: maximumResponseSize)
        do {
            return (server, .success(try await remote.pull(after: cursor, limit: 10)))
        } catch {
            return (server, .failure(error))
        }
    }

    // MARK: - 1. A status line and a close is an error, not a crash

    @Test func statusLineThenCloseIsATransientErrorNotACrash() async throws {
        let server = try await HostileHTTPServer(["status-then-close"])
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 20)
        let error = await remoteError { try await remote.pull(after: nil, limit: 10) }
        #expect(error?.isTransient == true, "\(String(describing: error))")
        #expect("\(error.map { "\($0)" } ?? "")".contains("inside the response head"))
    }

    // MARK: - 2. Deadlines

    @Test(arguments: HostileTransport.all)
    func silentServerFailsAtTheTimeout(transport: HostileTransport) async throws {
        let server = try await transport.server(["silent"])
        defer { server.stop() }
        let remote = transport.source(server, timeout: 0.5)
        let error = await remoteError { try await remote.pull(after: nil, limit: 10) }
        #expect(error?.isTransient == true)
    }

    @Test(arguments: HostileTransport.all)
    func tricklingServerFailsAtTheWholeRequestDeadline(transport: HostileTransport) async throws {
        let server = try await transport.server(["trickle"])
        defer { server.stop() }
        // Each byte comes 200 ms after the last, well inside any idle timer: only a deadline for the
        // whole request stops it (the server would need 20,000 s to finish).
        let remote = transport.source(server, timeout: 1)
        let error = await remoteError { try await remote.pull(after: nil, limit: 10) }
        #expect(error?.isTransient == true)
    }

    @Test(arguments: HostileTransport.all)
    func cancellingAPullStopsWaitingForASilentServer(transport: HostileTransport) async throws {
        let server = try await transport.server(["silent"])
        defer { server.stop() }
        // A deadline far beyond the suite's time limit: only the cancellation can end this pull in time.
        let remote = transport.source(server, timeout: 600)
        let task = Task { try await remote.pull(after: nil, limit: 10) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    // MARK: - 3. Cursors

    @Test func cursorIsSentPercentEncodedWithUnreservedCharactersOnly() async throws {
        let (server, result) = try await pull(["echo"], after: "ab+c/d==é ?&")
        defer { server.stop() }
        let echoed =
            try JSONSerialization.jsonObject(with: Data(try result.get().nextCursor.rawValue.utf8)) as? [String: Any]
        let head = echoed?["head"] as? String ?? ""
        #expect(head.hasPrefix("GET /users/changes?after=ab%2Bc%2Fd%3D%3D%C3%A9%20%3F%26&limit=10 HTTP/1.1\r\n"))
        #expect(echoed?["after"] as? [String] == ["ab+c/d==é ?&"])
        // libcurl asks for every coding it decodes, gzip and deflate among them.
        let acceptEncoding = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("accept-encoding:") }
        #expect(acceptEncoding?.contains("gzip") == true && acceptEncoding?.contains("deflate") == true, "\(head)")
    }

    @Test func urlSessionPathEncodesTheCursorAndAsksForGzip() async throws {
        let server = try await HostileHTTPServer(["echo", "gzip"])
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(
            baseURL: server.baseURL, timeout: 20, transport: URLSessionTransport(configuration: .ephemeral))
        let page = try await remote.pull(after: "ab+c/d==", limit: 10)
        let echoed = try JSONSerialization.jsonObject(with: Data(page.nextCursor.rawValue.utf8)) as? [String: Any]
        let head = (echoed?["head"] as? String ?? "").lowercased()
        #expect(head.hasPrefix("get /users/changes?after=ab%2bc%2fd%3d%3d&limit=10 http/1.1\r\n"))
        #expect(head.contains("\r\naccept-encoding: "), "\(head)")
        #expect(head.contains("gzip"), "\(head)")
        // URLSession decodes the body itself and leaves `Content-Encoding` in place: the transport
        // removes it, so the body is not decoded twice.
        let compressed = try await remote.pull(after: nil, limit: 10)
        #expect(compressed.nextCursor == "ab+c/d==")
    }

    @Test(arguments: HostileTransport.all, ["gone", "unknown-cursor-400"])
    func unknownCursorAnswerIsInvalidCursor(transport: HostileTransport, mode: String) async throws {
        let (server, result) = try await pull([mode], through: transport, after: "ab+c/d==")
        defer { server.stop() }
        #expect(throws: RemoteSourceError.invalidCursor("ab+c/d==")) { try result.get() }
    }

    @Test func repositoryResyncsWhenTheServerForgetsTheCursor() async throws {
        let server = try await HostileHTTPServer(["gone"], records: try Self.records([User.sample(0)]))
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 20)
        let repository = try Repository(database: .inMemory(), remote: remote, configuration: makeConfiguration())
        let first = try await repository.sync()
        #expect(first.cursor == "ab+c/d==")
        let second = try await repository.sync()
        #expect(second.resynced)
        await #expect(try cached(repository) == [User.sample(0)])
    }

    // MARK: - 4. Encodings and sizes

    @Test(arguments: HostileTransport.all, ["gzip", "gzip-chunked", "deflate", "deflate-raw"])
    func compressedAnswerIsDecoded(transport: HostileTransport, mode: String) async throws {
        let server = try await transport.server([mode], records: try Self.records([User.sample(2)]))
        defer { server.stop() }
        let remote = transport.source(server)
        let page = try await remote.pull(after: nil, limit: 10)
        #expect(page.nextCursor == "ab+c/d==")
        #expect(try JSONDecoder(source: .remote).decode([User].self, from: page.records) == [User.sample(2)])
    }

    /// A body labelled with a coding that its bytes are not in: the transport cannot decode it, and
    /// says so (libcurl: "Error while processing content unencoding").
    @Test func bodyThatDoesNotDecodeIsRefused() async throws {
        let (server, result) = try await pull(["br"])
        defer { server.stop() }
        guard case .failure(RemoteSourceError.invalidResponse) = result else {
            Issue.record("expected invalidResponse, got \(result)")
            return
        }
    }

    @Test(arguments: HostileTransport.all)
    func gzipBombIsResponseTooLargeAtTheLimit(transport: HostileTransport) async throws {
        let (server, result) = try await pull(["gzip-bomb"], through: transport, maximumResponseSize: 1 << 20)
        defer { server.stop() }
        #expect(throws: RemoteSourceError.responseTooLarge(limit: 1 << 20)) { try result.get() }
    }

    /// A corrupt stream is an invalid answer. A close-delimited one cut short decodes as far as it
    /// goes: libcurl (as URLSession) does not check that the stream ended, so the cut page is an
    /// invalid answer too, not a dropped connection.
    @Test func corruptOrCutGzipIsInvalidResponse() async throws {
        let (corrupt, result) = try await pull(["gzip-corrupt"])
        defer { corrupt.stop() }
        guard case .failure(RemoteSourceError.invalidResponse) = result else {
            Issue.record("expected invalidResponse, got \(result)")
            return
        }
        let (cut, dropped) = try await pull(["gzip-cut-close"])
        defer { cut.stop() }
        guard case .failure(RemoteSourceError.invalidResponse) = dropped else {
            Issue.record("expected invalidResponse, got \(dropped)")
            return
        }
    }

    @Test(arguments: HostileTransport.all, ["huge-length", "endless-chunked", "endless-close"])
    func answerLargerThanTheLimitIsResponseTooLarge(transport: HostileTransport, mode: String) async throws {
        let (server, result) = try await pull([mode], through: transport, maximumResponseSize: 64 << 10)
        defer { server.stop() }
        #expect(throws: RemoteSourceError.responseTooLarge(limit: 64 << 10)) { try result.get() }
    }

    @Test func urlSessionPathRefusesAnAnswerPastTheLimit() async throws {
        let server = try await HostileHTTPServer(["page"])
        defer { server.stop() }
        let transport = URLSessionTransport(configuration: .ephemeral)
        var remote = HTTPRemoteSource<User>(
            baseURL: server.baseURL, timeout: 20, transport: transport, maximumResponseSize: 16)
        await #expect(throws: RemoteSourceError.responseTooLarge(limit: 16)) {
            try await remote.pull(after: nil, limit: 10)
        }
        remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 20, transport: transport)
        #expect(try await remote.pull(after: nil, limit: 10).nextCursor == "ab+c/d==")
    }

    @Test(arguments: HostileTransport.all)
    func endlessResponseHeadIsAnError(transport: HostileTransport) async throws {
        let (server, result) = try await pull(["header-flood"], through: transport)
        defer { server.stop() }
        guard !transport.isURLSession else {
            // libcurl refuses a head past its own limit; whatever it says, it is a typed error.
            guard case .failure(_ as RemoteSourceError) = result else {
                Issue.record("expected a RemoteSourceError, got \(result)")
                return
            }
            return
        }
        guard case .failure(RemoteSourceError.invalidResponse(let reason)) = result else {
            Issue.record("expected invalidResponse, got \(result)")
            return
        }
        #expect(reason.contains("head exceeds"))
    }

    @Test(arguments: HostileTransport.all)
    func drippingHeadFailsAtTheWholeRequestDeadline(transport: HostileTransport) async throws {
        // A header line every 200 ms: no idle timer fires, only the deadline of the whole request.
        let (server, result) = try await pull(["drip-head"], through: transport, timeout: 1)
        defer { server.stop() }
        guard case .failure(let error as RemoteSourceError) = result else {
            Issue.record("expected a RemoteSourceError, got \(result)")
            return
        }
        #expect(error.isTransient, "\(error)")
        // The request was given up; its connection closes once the transport has ended it, which on a
        // loaded machine may take a while: the server is stopped only then, or after the wait's bound.
        _ = await server.waitUntilTheClientHangsUp()
    }

    /// Through libcurl only, plain or over TLS: FoundationNetworking traps on this answer (see
    /// `HTTPSTransportTests.brokenAnswersStopFoundationNetworking`).
    @Test(arguments: HostileTransport.all.filter { !$0.isURLSession })
    func chunkedAnswerAfterAnInterimResponseIsRead(transport: HostileTransport) async throws {
        let (server, result) = try await pull(["chunked"], through: transport)
        defer { server.stop() }
        let page = try result.get()
        #expect(page.nextCursor == "ab+c/d==")
        #expect(page.records == Data("[]".utf8))
    }

    // MARK: - 5. Dropped connections

    /// `status-then-close` only through libcurl (plain or over TLS): FoundationNetworking traps
    /// on it (see `HTTPSTransportTests.brokenAnswersStopFoundationNetworking`).
    @Test(arguments: HostileTransport.all, ["truncated", "long-length", "short-length", "close", "status-then-close"])
    func droppedConnectionIsTransient(transport: HostileTransport, mode: String) async throws {
        guard !transport.isURLSession || mode != "status-then-close" else { return }
        let (server, result) = try await pull([mode], through: transport)
        defer { server.stop() }
        guard case .failure(let error as RemoteSourceError) = result else {
            Issue.record("expected a RemoteSourceError, got \(result)")
            return
        }
        if mode == "short-length" {
            // libcurl (under URLSession too) reads the announced length and never sees the bytes past
            // it: the body it hands over is cut, and is no page.
            guard case .invalidResponse = error else {
                Issue.record("expected invalidResponse, got \(error)")
                return
            }
            return
        }
        #expect(error.isTransient, "\(error)")
    }

    @Test func repositoryRetriesDroppedConnections() async throws {
        let server = try await HostileHTTPServer(
            ["truncated", "long-length", "close", "status-then-close", "page"],
            records: try Self.records([User.sample(3)]))
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 20)
        let repository = try Repository(database: .inMemory(), remote: remote, configuration: makeConfiguration())
        let report = try await repository.sync()
        #expect(report.retries == 4)
        await #expect(try cached(repository) == [User.sample(3)])
    }

    // MARK: - 6. Duplicate keys

    @Test func duplicateKeysInARecordKeepTheFirstAsJSONDecoderDoes() async throws {
        var user = User.sample(1)
        user.userName = "first"
        let record = try Self.records([user]).replacingOccurrences(
            of: #""user_name":"first""#, with: #""user_name":"first","user_name":"second""#)
        #expect(record.contains("second"))
        // The rule, from the decoders themselves.
        let decoded = try JSONDecoder(source: .remote).decode([User].self, from: Data(record.utf8))
        #expect(decoded.map(\.userName) == ["first"])
        #expect(
            try KeySetJSONDecoder(source: .remote).decode([User].self, from: Data(record.utf8)).map(\.userName) == [
                "first"
            ])

        let server = try await HostileHTTPServer(["page"], records: record)
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 20)
        let page = try await remote.pull(after: nil, limit: 10)
        #expect(String(decoding: page.records, as: UTF8.self) == record, "the records are the server's bytes")
        let repository = try Repository(database: .inMemory(), remote: remote, configuration: makeConfiguration())
        try await repository.sync()
        await #expect(try repository.fetch(id: user.id)?.userName == "first")

        // The same bytes from an in-process source (the simulated server's path): the same record.
        let inProcess = try Repository(
            database: .inMemory(), remote: RawUserSource(records: Data(record.utf8)),
            configuration: makeConfiguration())
        try await inProcess.sync()
        await #expect(try inProcess.fetch(id: user.id) == repository.fetch(id: user.id))
    }

    // MARK: - 7. Invalid UTF-8

    @Test func invalidUTF8InARecordSkipsItWithTheDecodersError() async throws {
        var users = User.samples(3)
        users[1].userName = "a@@b"
        var records = Data(try Self.records(users).utf8)
        records.replaceSubrange(try #require(records.range(of: Data("@@".utf8))), with: [0xFF])
        let server = try await HostileHTTPServer(["page"], recordBytes: records)
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 20)
        #expect(try await remote.pull(after: nil, limit: 10).records == records, "the records are the server's bytes")
        let repository = try Repository(database: .inMemory(), remote: remote, configuration: makeConfiguration())
        let report = try await repository.sync()
        #expect(report.inserted == 2)
        let skipped = try #require(report.skipped.first)
        #expect(skipped.id == users[1].id)
        guard case DecodingError.dataCorrupted(let context) = skipped.error else {
            Issue.record("expected DecodingError.dataCorrupted, got \(skipped.error)")
            return
        }
        #expect((context.underlyingError as? JSONSyntaxError)?.reason == .invalidUTF8)
        await #expect(try repository.fetch(id: users[1].id) == nil)
    }

    // MARK: - Retry-After

    @Test(arguments: HostileTransport.all)
    func retryAfterInSecondsOrAsADateIsCarried(transport: HostileTransport) async throws {
        let (throttled, seconds) = try await pull(["throttle"], through: transport)
        defer { throttled.stop() }
        #expect(
            throws: RemoteSourceError.rateLimited(
                status: 429, retryAfter: .seconds(1), body: #"{"error": "slow down"}"#)
        ) {
            try seconds.get()
        }
        let (unavailable, date) = try await pull(["throttle-date"], through: transport)
        defer { unavailable.stop() }
        guard case .failure(let error as RemoteSourceError) = date, let delay = error.retryAfter else {
            Issue.record("expected a delay, got \(date)")
            return
        }
        #expect(error.isTransient)
        // The date has whole seconds and a loaded machine may take seconds to read it: 60 s ahead keeps
        // the delay well above zero however slow the run.
        #expect(delay > .seconds(30) && delay <= .seconds(61))
    }

    @Test func repositoryWaitsAtLeastTheRetryAfterDelay() async throws {
        let server = try await HostileHTTPServer(["throttle", "page"])
        defer { server.stop() }
        let remote = HTTPRemoteSource<User>(baseURL: server.baseURL, timeout: 20)
        let repository = try Repository(database: .inMemory(), remote: remote, configuration: makeConfiguration())
        let progress = repository.progressUpdates()
        let collector = Task {
            var delays: [Duration] = []
            for await event in progress {
                if case .retrying(_, let delay, _) = event { delays.append(delay) }
                if case .finished = event { break }
            }
            return delays
        }
        let report = try await repository.sync()
        #expect(report.retries == 1)
        // quickRetries alone would wait microseconds.
        #expect(await collector.value == [.seconds(1)])
    }

    @Test func documentedConfigurationKeepsItsLimits() {
        // docs/sync.md, "HTTPRemoteSource on the wire".
        let remote = HTTPRemoteSource<User>(
            baseURL: URL(string: "http://127.0.0.1:8080/users")!, headers: ["Authorization": "Bearer token"],
            timeout: 10, maximumResponseSize: 8 << 20)
        #expect(remote.timeout == 10)
        #expect(remote.maximumResponseSize == 8 << 20)
    }

    // MARK: - Fixtures

    static func records(_ users: [User]) throws -> String {
        String(decoding: try JSONEncoder().encode(users, source: .remote), as: UTF8.self)
    }
}

/// A source that serves fixed record bytes in process, as `SimulatedServer` does, without HTTP.
private struct RawUserSource: RemoteSource {
    typealias Model = User
    let records: Data

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        RemotePage(records: records, deletedIDs: [], nextCursor: "1", hasMore: false)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] { [] }
}
