import Foundation
import Testing

@testable import VariablySync

/// The DEFLATE decoder and its gzip and zlib containers on embedded and hand-made streams: every
/// block type, every optional header field, concatenated members, bombs.
@Suite struct InflaterTests {
    @Test func decodesStreamsOfEveryBlockType() throws {
        #expect(try gzip(CompressionFixtures.recordsGzip) == CompressionFixtures.records)  // dynamic
        #expect(try zlib(CompressionFixtures.recordsZlib) == CompressionFixtures.records)
        #expect(try zlib(CompressionFixtures.recordsDeflate) == CompressionFixtures.records)  // raw
        #expect(try gzip(CompressionFixtures.helloGzip) == CompressionFixtures.hello)  // fixed
        #expect(try gzip(CompressionFixtures.storedGzip) == CompressionFixtures.stored)  // stored
    }

    @Test func decodesEveryOptionalGzipHeaderField() throws {
        let member = CompressionFixtures.gzipMember(
            deflate: CompressionFixtures.recordsDeflate, of: CompressionFixtures.records,
            extra: Data("AB\u{4}\0data".utf8), name: "records.json", comment: "a comment", headerCRC: true)
        #expect(try gzip(member) == CompressionFixtures.records)
    }

    @Test func decodesConcatenatedMembersIntoOneBody() throws {
        let members = CompressionFixtures.recordsGzip + CompressionFixtures.helloGzip + CompressionFixtures.storedGzip
        #expect(
            try gzip(members) == CompressionFixtures.records + CompressionFixtures.hello + CompressionFixtures.stored)
    }

    @Test func decodesEmptyStreams() throws {
        let emptyBlock = Data([0x03, 0x00])  // a final fixed block holding only its end code
        #expect(try gzip(CompressionFixtures.gzipMember(deflate: emptyBlock, of: Data())).isEmpty)
        #expect(try zlib(Data([0x78, 0x9C]) + emptyBlock + [0, 0, 0, 1]).isEmpty)
        #expect(try zlib(emptyBlock).isEmpty)
        let emptyStored = Data([0x01, 0x00, 0x00, 0xFF, 0xFF])
        #expect(try gzip(CompressionFixtures.gzipMember(deflate: emptyStored, of: Data())).isEmpty)
    }

    @Test func matchesReachBackAcrossBlocksAndOverlapThemselves() throws {
        // "ab", then in a second block a match of 258 at distance 2 and one of 10 at distance 12.
        var writer = DeflateWriter()
        writer.bits(0, 1)
        writer.bits(1, 2)
        writer.fixedSymbol(Int(UInt8(ascii: "a")))
        writer.fixedSymbol(Int(UInt8(ascii: "b")))
        writer.fixedSymbol(256)
        writer.bits(1, 1)
        writer.bits(1, 2)
        writer.fixedSymbol(285)
        writer.code(1, 5)  // distance 2
        writer.fixedSymbol(264)  // length 10
        writer.code(6, 5)  // distances 9-12, 2 extra bits
        writer.bits(3, 2)  // 12
        writer.fixedSymbol(256)
        let expected = Data(repeatElement("ab".utf8, count: 130).joined()) + Data("ababababab".utf8)
        #expect(try zlib(writer.finished()) == expected)
    }

    // MARK: - Limits

    @Test func bombStopsAsSoonAsTheOutputPassesTheLimit() throws {
        // 1 GiB of zeros in about 1 MiB.
        let bomb = DeflateWriter.bomb(matches: (1 << 30) / 258)
        #expect(bomb.count < 1_100_000)
        let limit = 1 << 20
        let inflater = Inflater(limit: limit)
        #expect(throws: InflateError.tooLarge(limit: limit)) {
            try bomb.withUnsafeBytes { raw in Result { () throws(InflateError) in try inflater.inflate(raw, from: 0) } }.get()
        }
        #expect(inflater.count <= limit)
        #expect(inflater.capacity <= limit + 512, "memory stays within the limit plus a constant")
        #expect(throws: InflateError.tooLarge(limit: limit)) {
            try gzip(CompressionFixtures.gzipMember(deflate: bomb, of: Data()), limit: limit)
        }
    }

    @Test func outputOfExactlyTheLimitIsAccepted() throws {
        let bomb = DeflateWriter.bomb(matches: 4000)
        let size = 1 + 258 * 4000
        #expect(try zlib(bomb, limit: size) == Data(count: size))
        #expect(throws: InflateError.tooLarge(limit: size - 1)) { try zlib(bomb, limit: size - 1) }
        #expect(throws: InflateError.tooLarge(limit: 5)) { try gzip(CompressionFixtures.storedGzip, limit: 5) }
        #expect(throws: InflateError.tooLarge(limit: 0)) { try gzip(CompressionFixtures.helloGzip, limit: 0) }
    }

    @Test func checksumsMatchTheirReferenceValues() {
        let text = Data("123456789".utf8)
        #expect(text.withUnsafeBytes { CRC32.checksum($0) } == 0xCBF4_3926)
        #expect(text.withUnsafeBytes { Adler32.checksum($0) } == 0x091E_01DE)
        let long = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let split = long.withUnsafeBytes { raw in
            CRC32.checksum(UnsafeRawBufferPointer(rebasing: raw[37...]), continuing: CRC32.checksum(UnsafeRawBufferPointer(rebasing: raw[..<37])))
        }
        #expect(split == long.withUnsafeBytes { CRC32.checksum($0) })
    }
}

// MARK: - Helpers

func gzip(_ data: Data, limit: Int = 64 << 20) throws(InflateError) -> Data {
    try data.withUnsafeBytes { raw in Result { () throws(InflateError) in try GzipReader.decode(raw, limit: limit) } }.get()
}

func zlib(_ data: Data, limit: Int = 64 << 20) throws(InflateError) -> Data {
    try data.withUnsafeBytes { raw in Result { () throws(InflateError) in try ZlibReader.decode(raw, limit: limit) } }.get()
}
