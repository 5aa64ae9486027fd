import Foundation
import Testing

@testable import VariablySync

/// The decoder against Python's `zlib` and `gzip` (the zlib library itself) at levels 0, 1, 6 and 9:
/// gzip, zlib and raw DEFLATE streams of a JSON body with an incompressible part, several members
/// written by `gzip.GzipFile` (with a file name), empty data, and a 10 MB body.
@Suite(.timeLimit(.minutes(3)), .enabled(if: PythonScriptProcess.python != nil, "python3 is not installed"))
struct InflaterPythonTests {
    /// Written once for the suite: the fixtures take python a second or two.
    static let fixtures: [String: Data] = (try? CompressionFixtures.python(script)) ?? [:]

    @Test(arguments: [0, 1, 6, 9])
    func decodesWhatZlibWritesAtEveryLevel(level: Int) throws {
        let plain = try #require(Self.fixtures["body"])
        #expect(plain.count > 300_000)
        #expect(try gzip(#require(Self.fixtures["body.\(level).gz"])) == plain)
        #expect(try zlib(#require(Self.fixtures["body.\(level).zlib"])) == plain)
        #expect(try zlib(#require(Self.fixtures["body.\(level).raw"])) == plain)
    }

    @Test func decodesMembersWrittenOneAfterTheOther() throws {
        let plain = try #require(Self.fixtures["body"])
        #expect(try gzip(#require(Self.fixtures["members.gz"])) == plain + plain.prefix(1000) + Data("tail".utf8))
    }

    @Test func decodesEmptyData() throws {
        #expect(try gzip(#require(Self.fixtures["empty.gz"])).isEmpty)
        #expect(try zlib(#require(Self.fixtures["empty.zlib"])).isEmpty)
        #expect(try zlib(#require(Self.fixtures["empty.raw"])).isEmpty)
    }

    @Test func decodesATenMegabyteBody() throws {
        let compressed = try #require(Self.fixtures["big.gz"])
        let decoded = try gzip(compressed)
        #expect(decoded.count == 10_000_000)
        #expect(decoded.withUnsafeBytes { CRC32.checksum($0) } == compressed.suffix(8).prefix(4).reduce(into: UInt32(0)) {
            $0 = $0 >> 8 | UInt32($1) << 24
        })
        #expect(throws: InflateError.tooLarge(limit: 9_999_999)) { try gzip(compressed, limit: 9_999_999) }
    }

    private static let script = #"""
        import gzip, io, json, os, random, sys, zlib
        folder = sys.argv[1]
        def write(name, data):
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
        random.seed(7)
        words = ["alpha", "beta", "gamma", "delta", "omega", "user", "name", "email"]
        records = [{"id": i, "user_name": "user%d" % i, "email_address": "user%d@example.com" % i,
                    "age": random.randint(18, 90), "bio": " ".join(random.choice(words) for _ in range(random.randint(0, 12)))}
                   for i in range(3000)]
        body = json.dumps({"records": records, "has_more": False}).encode() + random.randbytes(40000)
        write("body", body)
        for level in (0, 1, 6, 9):
            write("body.%d.gz" % level, gzip.compress(body, compresslevel=level))
            write("body.%d.zlib" % level, zlib.compress(body, level))
            c = zlib.compressobj(level, zlib.DEFLATED, -15)
            write("body.%d.raw" % level, c.compress(body) + c.flush())
        members = io.BytesIO()
        for part, level in ((body, 6), (body[:1000], 1), (b"tail", 9)):
            with gzip.GzipFile(filename="part.json", mode="wb", fileobj=members, compresslevel=level) as f:
                f.write(part)
        write("members.gz", members.getvalue())
        write("empty.gz", gzip.compress(b""))
        write("empty.zlib", zlib.compress(b""))
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        write("empty.raw", c.compress(b"") + c.flush())
        big = bytearray()
        while len(big) < 10_000_000:
            big += json.dumps(random.choice(records)).encode() + b","
        write("big.gz", gzip.compress(bytes(big[:10_000_000]), compresslevel=6))
        """#
}
