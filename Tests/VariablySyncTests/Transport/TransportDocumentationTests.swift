// The examples below are the documentation's own lines, kept as the documents have them.
// swift-format-ignore-file
import Foundation
import Testing
import UserSyncModels
import VariablyHTTP
import VariablySync
import VariablyTestSupport

// docs/http.md, "Transport": the AsyncHTTPClient adapter, compiled against stand-ins with
// AsyncHTTPClient's and NIO's signatures (the package depends on neither), then run on a page that
// the client decoded.

private struct AsyncHTTPClientTransport: HTTPTransport {
    let client: HTTPClient

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        // The client decodes what it asks for (created with `decompression: .enabled(limit:)`).
        outgoing.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        if let body = request.body { outgoing.body = .bytes(body) }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, timeout: .milliseconds(Int64(request.timeout * 1000)))
        } catch {
            throw HTTPTransportError.connectionLost(request: "\(request.method) \(request.url.path)", reason: "\(error)")
        }
        let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        let reader = Task {
            do {
                for try await buffer in response.body { continuation.yield(Data(buffer: buffer)) }
                continuation.finish()
            } catch {
                continuation.finish(
                    throwing: HTTPTransportError.connectionLost(request: "\(request.method) \(request.url.path)", reason: "\(error)"))
            }
        }
        // The source drops the stream past its size limit or deadline: stop reading then.
        continuation.onTermination = { _ in reader.cancel() }
        var headers: [String: String] = [:]
        for (name, value) in response.headers {
            headers[name.lowercased()] = headers[name.lowercased()].map { "\($0), \(value)" } ?? value
        }
        // The body is decoded: the coding no longer describes it.
        headers["content-encoding"] = nil
        return HTTPTransportResponse(status: Int(response.status.code), headers: headers, body: body)
    }
}

@Suite struct TransportDocumentationTests {
    @Test func asyncHTTPClientAdapterSyncsADecodedGzipPage() async throws {
        let page = Data(#"{"records": [], "deleted": [], "next_cursor": "9", "has_more": false}"#.utf8)
        let client = HTTPClient { request in
            #expect(request.url == "https://api.example.com/v1/users/changes?limit=10")
            #expect(request.headers.contains { $0.name == "Accept-Encoding" && $0.value == "gzip, deflate" })
            // As AsyncHTTPClient hands over a gzip page it decoded: the bytes plain, the header kept.
            let half = page.count / 2
            return HTTPClientResponse(
                status: HTTPResponseStatus(code: 200),
                headers: HTTPHeaders([(name: "Content-Encoding", value: "gzip")]),
                body: [ByteBuffer(bytes: page.prefix(half)), ByteBuffer(bytes: page.dropFirst(half))])
        }
        let remote = HTTPRemoteSource<User>(
            baseURL: URL(string: "https://api.example.com/v1/users")!,
            transport: AsyncHTTPClientTransport(client: client))
        #expect(try await remote.pull(after: nil, limit: 10).nextCursor == "9")
    }
}

// MARK: - Stand-ins for AsyncHTTPClient and NIO

private struct HTTPClient: Sendable {
    let answer: @Sendable (HTTPClientRequest) async throws -> HTTPClientResponse
    init(answer: @escaping @Sendable (HTTPClientRequest) async throws -> HTTPClientResponse) { self.answer = answer }
    func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        try await answer(request)
    }
}

private struct TimeAmount {
    let nanoseconds: Int64
    static func milliseconds(_ amount: Int64) -> TimeAmount { TimeAmount(nanoseconds: amount * 1_000_000) }
}

private struct HTTPMethod: Sendable {
    let rawValue: String
    init(rawValue: String) { self.rawValue = rawValue }
}

private struct HTTPResponseStatus: Sendable {
    let code: UInt
}

private struct HTTPHeaders: Sequence, Sendable {
    private var fields: [(name: String, value: String)]
    init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }
    mutating func add(name: String, value: String) { fields.append((name, value)) }
    func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}

private struct ByteBuffer: Sendable {
    let bytes: Data
    init(bytes: some Sequence<UInt8>) { self.bytes = Data(bytes) }
}

private struct HTTPClientRequest: Sendable {
    struct Body: Sendable {
        let bytes: Data
        static func bytes(_ bytes: Data) -> Body { Body(bytes: bytes) }
    }
    var url: String
    var method = HTTPMethod(rawValue: "GET")
    var headers = HTTPHeaders()
    var body: Body?
    init(url: String) { self.url = url }
}

private struct HTTPClientResponse: Sendable {
    let status: HTTPResponseStatus
    let headers: HTTPHeaders
    let body: AsyncThrowingStream<ByteBuffer, any Error>
    init(status: HTTPResponseStatus, headers: HTTPHeaders, body buffers: [ByteBuffer]) {
        self.status = status
        self.headers = headers
        body = AsyncThrowingStream { continuation in
            for buffer in buffers { continuation.yield(buffer) }
            continuation.finish()
        }
    }
}

extension Data {
    fileprivate init(buffer: ByteBuffer) { self = buffer.bytes }
}

#if canImport(Glibc)
    // docs/http.md, "Proxies": libcurl with a proxy of the app's own, passed to a source.
    @Suite struct CurlTransportDocumentationTests {
        @Test func curlTransportWithAProxyIsPassedToASource() {
            let transport = CurlTransport(configuration: .init(proxy: "http://proxy.internal:3128", noProxy: "localhost,.internal"))
            let remote = HTTPRemoteSource<User>(baseURL: URL(string: "https://api.example.com/v1/users")!, transport: transport)
            #expect(remote.transport is CurlTransport)
            #expect(transport.configuration.proxy == "http://proxy.internal:3128")
        }
    }
#endif
