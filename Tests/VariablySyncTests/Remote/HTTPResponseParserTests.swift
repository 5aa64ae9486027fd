import Foundation
import Testing

@testable import VariablySync

/// The pieces of the HTTP client that need no server: response framing, the query encoding,
/// `Retry-After` and the slicing of records out of a page.
@Suite struct HTTPResponseParserTests {
    /// Parses `text` fed in pieces of `step` bytes, then the close of the connection.
    private func parse(_ text: String, step: Int = 1, limit: Int = 1 << 20) throws(HTTPResponseParser.Failure)
        -> HTTPResponseParser
    {
        var parser = HTTPResponseParser(maximumBodySize: limit)
        let bytes = Data(text.utf8)
        var offset = 0
        while offset < bytes.count, !parser.isComplete {
            try parser.consume(bytes[offset..<min(offset + step, bytes.count)])
            offset += step
        }
        if !parser.isComplete { try parser.finish() }
        return parser
    }

    @Test(arguments: [1, 3, 1000])
    func chunkedBodyWithExtensionsAndTrailersIsJoined(step: Int) throws {
        let parser = try parse(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\nx-a: 2\r\n\r\n"
                + "4;name=value\r\nWiki\r\n5\r\npedia\r\n0\r\nExpires: never\r\n\r\n", step: step)
        #expect(
            parser.head
                == HTTPResponseParser.Head(status: 200, headers: ["transfer-encoding": "chunked", "x-a": "1, 2"]))
        #expect(parser.body == Data("Wikipedia".utf8))
    }

    @Test func bodyEndsAtTheContentLengthOrAtTheClose() throws {
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", step: 2).body == Data("abc".utf8))
        #expect(try parse("HTTP/1.0 404 Not Found\r\n\r\nnothing here").body == Data("nothing here".utf8))
        #expect(try parse("HTTP/1.1 204 No Content\r\n\r\n").body.isEmpty)
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\nabcd",
        "HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 1\r\n\r\nx",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\n folded: header\r\n\r\n",
        "HTTP/2 200\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "ICY 200 OK\r\n\r\n",
    ])
    func ambiguousOrUnsupportedFramingIsMalformed(response: String) {
        #expect {
            _ = try parse(response)
        } throws: { error in
            if case HTTPResponseParser.Failure.malformed = error { return true }
            return false
        }
    }

    @Test(arguments: [
        "",
        "HTTP/1.1 200 OK\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabc",
    ])
    func cutOrOverlongBodyIsTruncated(response: String) {
        #expect {
            _ = try parse(response, step: 1000)
        } throws: { error in
            if case HTTPResponseParser.Failure.truncated = error { return true }
            return false
        }
    }

    @Test func headAndBodyAreBounded() {
        #expect(throws: HTTPResponseParser.Failure.tooLarge(limit: 4)) {
            try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", limit: 4)
        }
        #expect(throws: HTTPResponseParser.Failure.tooLarge(limit: 4)) {
            try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\n", limit: 4)
        }
        #expect(throws: HTTPResponseParser.Failure.tooLarge(limit: 4)) {
            try parse("HTTP/1.1 200 OK\r\n\r\nabcdef", limit: 4)
        }
        #expect(throws: HTTPResponseParser.Failure.malformed("the response head exceeds 65536 bytes")) {
            try parse("HTTP/1.1 200 OK\r\n" + String(repeating: "X-A: b\r\n", count: 10_000), step: 4096)
        }
    }

    // MARK: - Requests

    @Test func queryValuesKeepOnlyUnreservedCharacters() {
        #expect(HTTPRequestHead.percentEncodedQueryValue("ab+c/d==") == "ab%2Bc%2Fd%3D%3D")
        #expect(HTTPRequestHead.percentEncodedQueryValue("AZaz09-._~") == "AZaz09-._~")
        #expect(HTTPRequestHead.percentEncodedQueryValue("é &?#%") == "%C3%A9%20%26%3F%23%25")
    }

    @Test func requestAsksForGzipOrDeflateAndOneExchange() {
        let request = HTTPRequestHead(
            method: "POST", url: URL(string: "http://127.0.0.1:8080/v1/users/changes?a=%2B")!,
            headers: [("Authorization", "Bearer x"), ("Accept-Encoding", "gzip")], body: Data("{}".utf8))
        #expect(
            String(decoding: request.serialized(), as: UTF8.self)
                == "POST /v1/users/changes?a=%2B HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Bearer x\r\n"
                + "Accept-Encoding: gzip, deflate\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}")
        #expect(!HTTPRequestHead.isSafeHeaderText("a\r\nX-Injected: 1"))
    }

    @Test func pushedRecordsAreSplicedInAsTheirBytes() throws {
        let record = #"{"id": 7, "score": 1.10, "big": 123456789012345678901234567890, "name": "a\u0301"}"#
        let body = try HTTPRemoteSource<Account>.pushBody([
            RemoteChange(idempotencyKey: "k1", id: 7, operation: .upsert(Data(record.utf8)), baseCursor: "3"),
            RemoteChange(idempotencyKey: "k2", id: 8, operation: .delete, baseCursor: nil, supersedes: ["k0"]),
        ])
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#","record":"# + record + "}"))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let changes = try #require(object["changes"] as? [[String: Any]])
        #expect(changes.map { $0["idempotency_key"] as? String } == ["k1", "k2"])
        #expect(changes.map { $0["operation"] as? String } == ["upsert", "delete"])
        #expect(changes[1]["base_cursor"] is NSNull)
        #expect(changes[1]["supersedes"] as? [String] == ["k0"])
        #expect(throws: EncodingError.self) {
            try HTTPRemoteSource<Account>.pushBody([
                RemoteChange(idempotencyKey: "k", id: 1, operation: .upsert(Data("[1]".utf8)), baseCursor: nil)
            ])
        }
    }

    // MARK: - Retry-After

    @Test func retryAfterReadsSecondsAndTheThreeDateForms() {
        let now = Date(timeIntervalSince1970: 784_111_767)  // Sun, 06 Nov 1994 08:49:27 GMT
        #expect(HTTPRetryAfter.delay("120", now: now) == .seconds(120))
        #expect(HTTPRetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .seconds(10))
        #expect(HTTPRetryAfter.delay("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == .seconds(10))
        #expect(HTTPRetryAfter.delay("Sun Nov  6 08:49:37 1994", now: now) == .seconds(10))
        #expect(HTTPRetryAfter.delay("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero)
        #expect(HTTPRetryAfter.delay("99999999999", now: now) == HTTPRetryAfter.maximum)
        #expect(HTTPRetryAfter.delay("-5", now: now) == nil)
        #expect(HTTPRetryAfter.delay("soon", now: now) == nil)
    }
}
