import Foundation

/// Compressed data for the tests that tell an encoded body from a decoded one: streams made by
/// Python's `gzip`/`zlib` (level 6, `mtime=0`), embedded as hex.
enum CompressionFixtures {
    /// 60 JSON records, 3,331 bytes: what the `records` streams hold.
    static let records = Data(
        ("["
            + (0..<60).map { #"{"id":\#($0),"name":"user \#($0)","email":"user\#($0)@example.com"}"# }
            .joined(separator: ",") + "]").utf8)

    /// `gzip.compress(records, 6, mtime=0)`: one member, one dynamic Huffman block.
    static let recordsGzip = Data(hex: "1f8b0800000000000003" + recordsDeflateHex + "0d2f8fbf863a122e030d0000")
    /// `zlib.compress(records, 6)`.
    static let recordsZlib = Data(hex: "789c" + recordsDeflateHex + "0d2f8fbfee0d0da9")
    /// The raw DEFLATE stream of `records` (`wbits=-15`).
    static let recordsDeflate = Data(hex: recordsDeflateHex + "0d2f8fbf")

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
