import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablyHTTP
import VariablySync
import VariablyTestSupport

/// The seam itself: an app's own ``HTTPTransport`` in process (no network), and the rules that must
/// read the same on every transport (redirects, the `401` retry) against `HostileHTTPServer`.
@Suite(.timeLimit(.minutes(3)))
struct HTTPTransportTests {
    private static let base = URL(string: "https://api.example.com/users")!
    private static let page = Data(#"{"records": [], "deleted": [], "next_cursor": "7", "has_more": false}"#.utf8)

    // MARK: - An app's own transport

    @Test func appTransportReceivesTheRequestAsTheSourceMadeIt() async throws {
        let transport = ScriptedTransport { request, continuation in
            #expect(request.method == "GET")
            #expect(request.url.absoluteString == "https://api.example.com/users/changes?limit=10")
            #expect(request.headers.contains { $0.name == "Accept" && $0.value == "application/json" })
            // The codings are the transport's to ask for: it decodes them.
            #expect(!request.headers.contains { $0.name.lowercased() == "accept-encoding" })
            #expect(request.timeout == 5)
            // In three pieces, as a client hands them over while they arrive.
            let third = Self.page.count / 3 + 1
            for start in stride(from: 0, to: Self.page.count, by: third) {
                continuation.yield(Self.page[start..<min(start + third, Self.page.count)])
            }
            continuation.finish()
            return (200, [:])
        }
        let remote = HTTPRemoteSource<User>(baseURL: Self.base, timeout: 5, transport: transport)
        let page = try await remote.pull(after: nil, limit: 10)
        #expect(page.nextCursor == "7")
    }

    @Test func bodyAnAppTransportLeftEncodedIsRefused() async throws {
        let transport = ScriptedTransport { _, continuation in
            continuation.yield(Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]))
            continuation.finish()
            return (200, ["Content-Encoding": "gzip"])
        }
        let remote = HTTPRemoteSource<User>(baseURL: Self.base, timeout: 5, transport: transport)
        let error = await #expect(throws: RemoteSourceError.self) { try await remote.pull(after: nil, limit: 10) }
        guard case .invalidResponse(let reason) = error else {
            Issue.record("expected invalidResponse, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("still in Content-Encoding \"gzip\""), "\(reason)")
    }

    @Test func transportErrorKeepsItsRetryClassification() async throws {
        let cases: [(HTTPTransportError, Bool)] = [
            (.timedOut(request: "GET /users/changes", seconds: 1), true),
            (.cannotConnect(request: "GET /users/changes", reason: "refused"), true),
            (.connectionLost(request: "GET /users/changes", reason: "closed"), true),
            (.tlsFailure(request: "GET /users/changes", reason: "expired"), false),
            (.proxyRefused(request: "GET /users/changes", reason: "403"), false),
            (.invalidResponse(request: "GET /users/changes", reason: "bad"), false),
        ]
        for (failure, isTransient) in cases {
            let remote = HTTPRemoteSource<User>(
                baseURL: Self.base, timeout: 5, transport: ScriptedTransport { _, _ in throw failure })
            let error = await #expect(throws: RemoteSourceError.self) { try await remote.pull(after: nil, limit: 10) }
            #expect(error?.isTransient == isTransient, "\(failure)")
            #expect(error?.isTransient == failure.isTransient, "\(failure)")
        }
        let tooLarge = HTTPRemoteSource<User>(
            baseURL: Self.base, timeout: 5,
            transport: ScriptedTransport { _, _ in throw HTTPTransportError.tooLarge(limit: 9) })
        await #expect(throws: RemoteSourceError.responseTooLarge(limit: 9)) {
            try await tooLarge.pull(after: nil, limit: 10)
        }
    }

    @Test func endlessBodyFromAnAppTransportStopsAtTheLimitAndEndsTheRequest() async throws {
        let ended = Flag()
        let transport = ScriptedTransport { _, continuation in
            continuation.onTermination = { _ in ended.raise() }
            Task {
                // A megabyte at once, then a chunk a millisecond until the source drops the stream: endless,
                // without spinning on one of the cooperative pool's few threads (a spinning producer once
                // kept the reader from its 16 chunks for the whole 30 s deadline).
                var sent = 0
                while !ended.isRaised {
                    continuation.yield(Data(repeating: 0x20, count: 4096))
                    sent += 1
                    if sent >= 256 { try? await Task.sleep(for: .milliseconds(1)) }
                }
            }
            return (200, [:])
        }
        let remote = HTTPRemoteSource<User>(
            baseURL: Self.base, timeout: 30, transport: transport, maximumResponseSize: 64 << 10)
        await #expect(throws: RemoteSourceError.responseTooLarge(limit: 64 << 10)) {
            try await remote.pull(after: nil, limit: 10)
        }
        #expect(ended.isRaised, "the body stream was dropped, so the transport stops sending")
    }

    @Test func silentAppTransportFailsAtTheDeadlineAndIsCancelled() async throws {
        let cancelled = Flag()
        let transport = ScriptedTransport.never(cancelled: cancelled)
        let remote = HTTPRemoteSource<User>(baseURL: Self.base, timeout: 0.2, transport: transport)
        let error = await #expect(throws: RemoteSourceError.self) { try await remote.pull(after: nil, limit: 10) }
        #expect(error?.isTransient == true)
        #expect(cancelled.isRaised)
    }

    @Test func unknownErrorOfAnAppTransportIsUnavailable() async throws {
        struct Refused: Error {}
        let transport = ScriptedTransport { _, _ in throw Refused() }
        let remote = HTTPRemoteSource<User>(baseURL: Self.base, timeout: 5, transport: transport)
        let error = await #expect(throws: RemoteSourceError.self) { try await remote.pull(after: nil, limit: 10) }
        guard case .unavailable(let reason) = error else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("Refused"))
    }

    // MARK: - The same rules on every transport

    @Test(arguments: HostileTransport.all)
    func readFollowsARedirectOnItsOrigin(transport: HostileTransport) async throws {
        let server = try await transport.server(["redirect-302", "echo"])
        defer { server.stop() }
        let page = try await transport.source(server).pull(after: nil, limit: 10)
        let echoed = try JSONSerialization.jsonObject(with: Data(page.nextCursor.rawValue.utf8)) as? [String: Any]
        let head = echoed?["head"] as? String ?? ""
        #expect(head.hasPrefix("GET /users/moved/changes?limit=10 HTTP/1.1\r\n"))
    }

    @Test(arguments: HostileTransport.all)
    func redirectToAnotherOriginIsReturnedNotFollowed(transport: HostileTransport) async throws {
        let server = try await transport.server(["redirect-away"])
        defer { server.stop() }
        await #expect(throws: RemoteSourceError.httpStatus(302, body: #"{"moved": true}"#)) {
            try await transport.source(server).pull(after: nil, limit: 10)
        }
    }

    @Test(arguments: HostileTransport.all)
    func writeFollowsA307WithItsBodyButNotA302(transport: HostileTransport) async throws {
        let change = RemoteChange<Int64>(
            idempotencyKey: "k1", id: 1,
            operation: .upsert(try JSONEncoder().encode(User.sample(1), source: .remote)), baseVersion: nil)
        let kept = try await transport.server(["redirect-307", "push-ok"])
        defer { kept.stop() }
        let results = try await transport.source(kept).push([change])
        // The server's version is the target the change reached: the body came along to the new URL.
        #expect(results.map(\.outcome) == [.accepted(version: "/users/moved/changes")])
        let turned = try await transport.server(["redirect-302", "push-ok"])
        defer { turned.stop() }
        await #expect(throws: RemoteSourceError.httpStatus(302, body: #"{"moved": true}"#)) {
            try await transport.source(turned).push([change])
        }
    }

    @Test(arguments: HostileTransport.all)
    func unauthorizedAnswerIsSentOnceMoreWithFreshCredentials(transport: HostileTransport) async throws {
        let server = try await transport.server(["unauthorized-once"])
        defer { server.stop() }
        let remote = transport.source(server) { request, attempt in
            let token = attempt.isRetryAfterUnauthorized ? "Bearer fresh" : "Bearer stale"
            request.setValue(token, forHTTPHeaderField: "Authorization")
        }
        #expect(try await remote.pull(after: nil, limit: 10).nextCursor == "ab+c/d==")
    }
}

/// An ``HTTPTransport`` whose answer a test writes: the status and headers `answer` returns, and the
/// body it yields.
private struct ScriptedTransport: HTTPTransport {
    typealias Answer =
        @Sendable (
            HTTPTransportRequest, AsyncThrowingStream<Data, any Error>.Continuation
        ) async throws -> (Int, [String: String])
    let answer: Answer

    init(_ answer: @escaping Answer) {
        self.answer = answer
    }

    /// A transport that never answers; `cancelled` is set when the source gives up.
    static func never(cancelled: Flag) -> ScriptedTransport {
        ScriptedTransport { _, _ in
            await withTaskCancellationHandler {
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
            } onCancel: {
                cancelled.raise()
            }
            throw CancellationError()
        }
    }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        let (status, headers) = try await answer(request, continuation)
        return HTTPTransportResponse(status: status, headers: headers, body: body)
    }
}

/// Raised once from any thread, read from another.
///
/// `@unchecked Sendable`: `raised` is only touched while holding `lock`.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    var isRaised: Bool { lock.withLock { raised } }

    func raise() {
        lock.withLock { raised = true }
    }
}
