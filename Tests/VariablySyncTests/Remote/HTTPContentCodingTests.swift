import Foundation
import Testing

@testable import VariablySync

/// `Content-Encoding: gzip` and `deflate` in the socket client's response parser: decoded after the
/// framing (chunked or not), bounded by the body limit, corrupt or unknown codings refused.
@Suite struct HTTPContentCodingTests {
    /// Parses a head and `body` fed in pieces of `step` bytes, the body framed by `Content-Length`, in
    /// chunks of 100 bytes, or by the close of the connection.
    private func parse(
        coding: String, body: Data, framing: Framing = .length, step: Int = 1000, limit: Int = 1 << 20
    ) throws(HTTPResponseParser.Failure) -> Data {
        var message = Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: \(coding)\r\n".utf8)
        switch framing {
        case .length:
            message += Data("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        case .chunked:
            message += Data("Transfer-Encoding: chunked\r\n\r\n".utf8)
            for start in stride(from: 0, to: body.count, by: 100) {
                let piece = body[(body.startIndex + start)..<min(body.startIndex + start + 100, body.endIndex)]
                message += Data("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Data("\r\n".utf8)
            }
            message += Data("0\r\n\r\n".utf8)
        case .close:
            message += Data("\r\n".utf8) + body
        }
        var parser = HTTPResponseParser(maximumBodySize: limit)
        var offset = 0
        while offset < message.count, !parser.isComplete {
            try parser.consume(message[offset..<min(offset + step, message.count)])
            offset += step
        }
        if !parser.isComplete { try parser.finish() }
        return parser.body
    }

    private enum Framing: CaseIterable {
        case length, chunked, close
    }

    @Test(arguments: [1, 7, 4096])
    func compressedBodiesAreDecodedWhateverTheFraming(step: Int) throws {
        let records = CompressionFixtures.records
        for framing in Framing.allCases {
            #expect(try parse(coding: "gzip", body: CompressionFixtures.recordsGzip, framing: framing, step: step) == records)
            #expect(try parse(coding: "x-gzip", body: CompressionFixtures.recordsGzip, framing: framing, step: step) == records)
            #expect(try parse(coding: "Deflate", body: CompressionFixtures.recordsZlib, framing: framing, step: step) == records)
            #expect(try parse(coding: "deflate", body: CompressionFixtures.recordsDeflate, framing: framing, step: step) == records)
            #expect(try parse(coding: "identity", body: records, framing: framing, step: step) == records)
        }
        #expect(try parse(coding: "gzip, identity", body: CompressionFixtures.helloGzip) == CompressionFixtures.hello)
        #expect(try parse(coding: "gzip", body: Data()).isEmpty, "an empty answer labelled gzip")
    }

    @Test(arguments: ["br", "zstd", "compress", "gzip, gzip", "deflate, gzip"])
    func unknownOrStackedCodingIsMalformed(coding: String) {
        #expect {
            _ = try parse(coding: coding, body: CompressionFixtures.recordsGzip)
        } throws: { error in
            guard case HTTPResponseParser.Failure.malformed(let reason) = error else { return false }
            return reason.contains("Content-Encoding")
        }
    }

    @Test func decodedSizeIsBoundedByTheBodyLimit() {
        let bomb = CompressionFixtures.gzipMember(deflate: DeflateWriter.bomb(matches: 100_000), of: Data())
        for framing in Framing.allCases {
            #expect(throws: HTTPResponseParser.Failure.tooLarge(limit: 64 << 10)) {
                try parse(coding: "gzip", body: bomb, framing: framing, limit: 64 << 10)
            }
        }
        // The compressed bytes count against the limit as they arrive, too.
        #expect(throws: HTTPResponseParser.Failure.tooLarge(limit: 100)) {
            try parse(coding: "gzip", body: CompressionFixtures.recordsGzip, framing: .chunked, limit: 100)
        }
    }

    @Test func corruptBodyIsMalformedAndACutOneTruncatedOnlyWhenTheConnectionEndedIt() {
        var corrupt = CompressionFixtures.recordsGzip
        corrupt[corrupt.count - 8] ^= 1
        #expect {
            _ = try parse(coding: "gzip", body: corrupt, framing: .chunked)
        } throws: { error in
            guard case HTTPResponseParser.Failure.malformed(let reason) = error else { return false }
            return reason.contains("gzip body is corrupt") && reason.contains("CRC-32")
        }
        let cut = CompressionFixtures.recordsGzip.prefix(300)
        #expect {
            _ = try parse(coding: "gzip", body: cut, framing: .length)
        } throws: { error in
            guard case HTTPResponseParser.Failure.malformed(let reason) = error else { return false }
            return reason.contains("ends inside its compressed stream")
        }
        #expect {
            _ = try parse(coding: "gzip", body: cut, framing: .close)
        } throws: { error in
            if case HTTPResponseParser.Failure.truncated = error { return true }
            return false
        }
    }
}
