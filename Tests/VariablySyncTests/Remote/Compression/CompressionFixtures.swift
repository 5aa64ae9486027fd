import Foundation
import VariablyTestSupport

@testable import VariablySync

/// Compressed data for the decoder's tests: small streams made by Python's `gzip`/`zlib` (level 6,
/// `mtime=0`) embedded as hex, streams crafted bit by bit (`DeflateWriter`), and larger ones produced
/// by python3 at test time (`python(_:)`).
enum CompressionFixtures {
    /// 60 JSON records, 3,331 bytes: what the `records` streams hold.
    static let records = Data(
        ("[" + (0..<60).map { #"{"id":\#($0),"name":"user \#($0)","email":"user\#($0)@example.com"}"# }
            .joined(separator: ",") + "]").utf8)

    /// `gzip.compress(records, 6, mtime=0)`: one member, one dynamic Huffman block.
    static let recordsGzip = Data(hex: "1f8b0800000000000003" + recordsDeflateHex + "0d2f8fbf863a122e030d0000")
    /// `zlib.compress(records, 6)`.
    static let recordsZlib = Data(hex: "789c" + recordsDeflateHex + "0d2f8fbfee0d0da9")
    /// The raw DEFLATE stream of `records` (`wbits=-15`).
    static let recordsDeflate = Data(hex: recordsDeflateHex + "0d2f8fbf")

    /// `gzip.compress(b"hello, hello, hello gzip world\n", 6, mtime=0)`: a fixed Huffman block.
    static let helloGzip = Data(hex: "1f8b0800000000000003cb48cdc9c9d751c840a214d2ab320b14caf38b7252b800538431e91f000000")
    static let hello = Data("hello, hello, hello gzip world\n".utf8)
    /// `gzip.compress(b"hello, stored\n", 0, mtime=0)`: a stored block.
    static let storedGzip = Data(hex: "1f8b0800000000000403010e00f1ff68656c6c6f2c2073746f7265640a63ab158f0e000000")
    static let stored = Data("hello, stored\n".utf8)

    private static let recordsDeflateHex =
        "75d6bd4a04511044e157918917d9eeaede1f23df430c169d606157451104f1dd0d34b9676ad28113cd47df7af89ececfd3dd7633bd9c"
        + "aef374377d7eccef37db6933cdd7d3f9f2ff617b3f7f9dae6f97f9f6e9f53afd6cfea218a3401436ca314a4469a31aa3425436d21809"
        + "916cd463d488da46bb31da21dad9683f467b447b1b1dc6e880e860a3e3181d111dfdcf0589a089584141150b16de4500465046781a01"
        + "1b411ce1750478047d84071210122412de4800495049782601274128e1a504a804ad84c712d012e412de4bc24bd24b7a2f092f492fb9"
        + "724778481697c47b4978497a49ef25e125e925bd978497a497f45e125e925ed27b4978497a49ef25e125e925bd978497a497f45e0a5e"
        + "8a5eca7b2978297a29efa5e0a5e8a5569e1ebe3d8bc7c77b2978297a29efa5e0a5e8a5bc978297a297f25e0a5e8a5eca7b2978297a29"
        + "efa5e0a5e8a5bc17c18be845de8be045f422ef45f0227a91f7227811bd6865ad70ae2cf68af7227811bdc87b11bc885ee4bd085e442f"
        + "f25e042fa217792f8217d18bbc978697a697f65e1a5e9a5eda7b6978697a69efa5e1a5e9a5bd978697a6975e19b85cb88b89ebbd34bc"
        + "34bdb4f7d2f0d2f4d2de4bc34bd34b7b2f0d2f4d2f"

    // MARK: - Containers

    /// A gzip member around the raw DEFLATE stream `deflate` of `data`, with the given header fields.
    static func gzipMember(
        deflate: Data, of data: Data, extra: Data? = nil, name: String? = nil, comment: String? = nil,
        headerCRC: Bool = false
    ) -> Data {
        var flags: UInt8 = 0
        if headerCRC { flags |= 0x02 }
        if extra != nil { flags |= 0x04 }
        if name != nil { flags |= 0x08 }
        if comment != nil { flags |= 0x10 }
        var member = Data([0x1F, 0x8B, 8, flags, 0, 0, 0, 0, 0, 3])
        if let extra { member += [UInt8(extra.count & 0xFF), UInt8(extra.count >> 8)] + extra }
        if let name { member += Data(name.utf8) + [0] }
        if let comment { member += Data(comment.utf8) + [0] }
        if headerCRC {
            let crc = member.withUnsafeBytes { CRC32.checksum($0) }
            member += [UInt8(crc & 0xFF), UInt8((crc >> 8) & 0xFF)]
        }
        let crc = data.withUnsafeBytes { CRC32.checksum($0) }
        return member + deflate + littleEndian(crc) + littleEndian(UInt32(truncatingIfNeeded: data.count))
    }

    static func littleEndian(_ value: UInt32) -> Data {
        Data((0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
    }

    // MARK: - Python

    /// Runs `script` with python3 and a fresh folder as its argument, and returns the files it wrote
    /// there by name.
    static func python(_ script: String) throws -> [String: Data] {
        guard let python = PythonScriptProcess.python else { throw CocoaError(.fileNoSuchFile) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inflate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("fixtures.py")
        try Data(script.utf8).write(to: file)
        let child = try ChildProcess(executable: python, arguments: [file.path, folder.path])
        guard child.waitForExit(timeout: .seconds(60)) == .exited(0) else { throw CocoaError(.fileReadCorruptFile) }
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name != "fixtures.py" {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }
}

extension Data {
    /// The bytes of a hexadecimal string (two digits a byte; test fixtures only).
    init(hex: String) {
        let digits = Array(hex.utf8)
        self.init(
            stride(from: 0, to: digits.count - 1, by: 2).map {
                UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)!
            })
    }
}
