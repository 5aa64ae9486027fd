import Foundation
import Testing

@testable import VariablySync

/// Every class of corrupt compressed data gives a typed `InflateError`, and so does each of many
/// seeded random corruptions of a valid stream: never a crash, never wrong bytes from gzip or zlib.
@Suite struct InflaterCorruptionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let data: Data
        let isGzip: Bool
        /// A part of the `malformed` reason, or `nil` for `truncated`.
        let reason: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        let records = CompressionFixtures.recordsGzip
        func gzipCase(_ name: String, _ data: Data, _ reason: String?) -> Case {
            Case(name: name, data: data, isGzip: true, reason: reason)
        }
        func fixed(_ write: (inout DeflateWriter) -> Void) -> Data {
            CompressionFixtures.gzipMember(deflate: DeflateWriter.fixedBlock(write), of: Data())
        }
        func changing(_ data: Data, at offset: Int, to byte: UInt8) -> Data {
            var data = data
            data[data.startIndex + (offset < 0 ? data.count + offset : offset)] = byte
            return data
        }
        // A dynamic block whose 19 code-length codes all have 1 bit: over-subscribed.
        var oversubscribed = DeflateWriter()
        oversubscribed.bits(0b101, 3)
        oversubscribed.bits(0, 10)
        oversubscribed.bits(15, 4)
        for _ in 0..<19 { oversubscribed.bits(1, 3) }
        // Two code-length codes of 2 bits: incomplete.
        var incomplete = DeflateWriter()
        incomplete.bits(0b101, 3)
        incomplete.bits(0, 10)
        incomplete.bits(0, 4)
        for length in [2, 2, 0, 0] { incomplete.bits(length, 3) }
        let storedLength = 11  // the offset of NLEN's first byte in `storedGzip`
        return [
            gzipCase("not gzip", Data(#"{"records": []}"#.utf8), "magic number"),
            gzipCase("method 7", changing(records, at: 2, to: 7), "compression method"),
            gzipCase("reserved flag", changing(records, at: 3, to: 0x20), "reserved flags"),
            gzipCase(
                "header CRC-16",
                changing(
                    CompressionFixtures.gzipMember(
                        deflate: CompressionFixtures.recordsDeflate, of: CompressionFixtures.records, name: "x",
                        headerCRC: true), at: 12, to: 0), "CRC-16"),
            gzipCase("block type 3", CompressionFixtures.gzipMember(deflate: Data([0x07]), of: Data()), "reserved type 3"),
            gzipCase("literal/length 286", fixed { $0.fixedSymbol(286) }, "invalid literal/length code"),
            gzipCase(
                "distance code 30",
                fixed {
                    $0.fixedSymbol(97)
                    $0.fixedSymbol(257)
                    $0.code(30, 5)
                }, "invalid distance code"),
            gzipCase(
                "distance before the start",
                fixed {
                    $0.fixedSymbol(257)
                    $0.code(0, 5)
                }, "too far back"),
            gzipCase(
                "distance into the previous member",
                CompressionFixtures.helloGzip
                    + fixed {
                        $0.fixedSymbol(257)
                        $0.code(0, 5)
                    }, "too far back"),
            gzipCase(
                "over-subscribed code",
                CompressionFixtures.gzipMember(deflate: oversubscribed.finished(), of: Data()), "over-subscribed"),
            gzipCase(
                "incomplete code", CompressionFixtures.gzipMember(deflate: incomplete.finished(), of: Data()),
                "incomplete"),
            gzipCase(
                "stored length check", changing(CompressionFixtures.storedGzip, at: storedLength + 2, to: 0),
                "length check"),
            gzipCase("cut in the header", records.prefix(6), nil),
            gzipCase("cut in the stream", records.prefix(200), nil),
            gzipCase("cut in the trailer", records.dropLast(3), nil),
            gzipCase("CRC-32", changing(records, at: -8, to: 0), "CRC-32"),
            gzipCase("size", changing(records, at: -4, to: 0), "size does not match"),
            gzipCase("trailing garbage", records + Data("garbage".utf8), "do not start another member"),
            gzipCase("one trailing byte", records + [0x0A], "do not start another member"),
            Case(
                name: "Adler-32", data: changing(CompressionFixtures.recordsZlib, at: -1, to: 0), isGzip: false,
                reason: "Adler-32"),
            Case(name: "preset dictionary", data: Data([0x78, 0x20, 0, 0, 0, 0]), isGzip: false, reason: "dictionary"),
            Case(
                name: "bytes after deflate", data: CompressionFixtures.recordsDeflate + [1, 2], isGzip: false,
                reason: "bytes after"),
            Case(name: "zlib cut", data: CompressionFixtures.recordsZlib.dropLast(2), isGzip: false, reason: nil),
            Case(name: "deflate cut", data: CompressionFixtures.recordsDeflate.prefix(300), isGzip: false, reason: nil),
        ]
    }()

    @Test(arguments: cases)
    func corruptDataIsATypedError(_ corruption: Case) {
        do {
            let decoded = try corruption.isGzip ? gzip(corruption.data) : zlib(corruption.data)
            Issue.record("decoded \(decoded.count) bytes")
        } catch .truncated {
            #expect(corruption.reason == nil)
        } catch .malformed(let reason) {
            #expect(corruption.reason.map { reason.contains($0) } == true, "\(reason)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func seededRandomCorruptionsGiveATypedErrorOrTheRightBytes() {
        var random = SplitMix64(seed: 20_240_611)
        let streams: [(data: Data, plain: Data, isGzip: Bool)] = [
            (CompressionFixtures.recordsGzip, CompressionFixtures.records, true),
            (CompressionFixtures.recordsZlib, CompressionFixtures.records, false),
            (CompressionFixtures.helloGzip, CompressionFixtures.hello, true),
            (CompressionFixtures.storedGzip + CompressionFixtures.helloGzip, CompressionFixtures.stored + CompressionFixtures.hello, true),
        ]
        var outcomes = (errors: 0, intact: 0)
        for round in 0..<4000 {
            let stream = streams[round % streams.count]
            var data = [UInt8](stream.data)
            for _ in 0...Int.random(in: 0..<3, using: &random) {
                let offset = Int.random(in: 0..<data.count, using: &random)
                switch Int.random(in: 0..<5, using: &random) {
                case 0: data[offset] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
                case 1: data[offset] = UInt8.random(in: 0...255, using: &random)
                case 2: data.removeSubrange(offset...)
                case 3: data.insert(UInt8.random(in: 0...255, using: &random), at: offset)
                default: data.remove(at: offset)
                }
                if data.isEmpty { data = [0] }
            }
            do {
                let decoded = try stream.isGzip ? gzip(Data(data), limit: 1 << 20) : zlib(Data(data), limit: 1 << 20)
                #expect(decoded == stream.plain, "round \(round): wrong bytes")
                outcomes.intact += 1
            } catch {
                outcomes.errors += 1
            }
        }
        #expect(outcomes.errors > 3000)
    }
}
