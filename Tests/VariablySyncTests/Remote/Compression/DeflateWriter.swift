import Foundation

/// DEFLATE bits written by hand (RFC 1951 §3.1.1: values least significant bit first, Huffman codes
/// most significant bit first), for streams no compressor would produce: invalid codes, distances too
/// far back, bombs.
struct DeflateWriter {
    private(set) var bytes: [UInt8] = []
    private var pending: UInt64 = 0
    private var pendingCount = 0

    /// Appends `count` bits of `value`, least significant first.
    mutating func bits(_ value: Int, _ count: Int) {
        pending |= UInt64(value) << UInt64(pendingCount)
        pendingCount += count
        while pendingCount >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: pending))
            pending >>= 8
            pendingCount -= 8
        }
    }

    /// Appends the Huffman code `code` of `length` bits, most significant first.
    mutating func code(_ code: Int, _ length: Int) {
        for bit in (0..<length).reversed() { bits((code >> bit) & 1, 1) }
    }

    /// Appends `count` zero bits, quickly.
    mutating func zeros(_ count: Int) {
        var left = count
        while left > 0, pendingCount != 0 {
            bits(0, 1)
            left -= 1
        }
        bytes += repeatElement(0, count: left / 8)
        bits(0, left % 8)
    }

    /// A fixed-code literal/length symbol (§3.2.6).
    mutating func fixedSymbol(_ symbol: Int) {
        switch symbol {
        case 0...143: code(0x30 + symbol, 8)
        case 144...255: code(0x190 + symbol - 144, 9)
        case 256...279: code(symbol - 256, 7)
        default: code(0xC0 + symbol - 280, 8)
        }
    }

    /// The bytes, the last one padded with zero bits.
    func finished() -> Data {
        Data(bytes + (pendingCount > 0 ? [UInt8(truncatingIfNeeded: pending)] : []))
    }

    /// A fixed-Huffman final block holding `symbols` (literal/length codes and raw bit fields).
    static func fixedBlock(_ write: (inout DeflateWriter) -> Void) -> Data {
        var writer = DeflateWriter()
        writer.bits(1, 1)
        writer.bits(1, 2)
        write(&writer)
        return writer.finished()
    }

    /// A DEFLATE stream of `1 + 258 × matches` zero bytes in about `matches / 4` bytes, about 1:1000,
    /// as dense as DEFLATE gets: one dynamic block whose length 258 and distance 1 have 1-bit codes, so
    /// each match is two zero bits.
    static func bomb(matches: Int) -> Data {
        var writer = DeflateWriter()
        writer.bits(1, 1)  // final
        writer.bits(2, 2)  // dynamic
        writer.bits(29, 5)  // 286 literal/length codes
        writer.bits(0, 5)  // 1 distance code
        writer.bits(14, 4)  // 18 code-length codes
        // Code-length code: symbols 0, 1, 2 and 18 get 2 bits (codes 00, 01, 10, 11), in RFC order
        // 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1.
        for length in [0, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2] { writer.bits(length, 3) }
        writer.code(2, 2)  // literal 0: length 2
        writer.code(3, 2)  // 138 zeros (symbols 1...138)
        writer.bits(127, 7)
        writer.code(3, 2)  // 117 zeros (139...255)
        writer.bits(106, 7)
        writer.code(2, 2)  // end of block: length 2
        writer.code(3, 2)  // 28 zeros (257...284)
        writer.bits(17, 7)
        writer.code(1, 2)  // 285 (length 258): length 1
        writer.code(1, 2)  // distance code 0 (distance 1): length 1
        // Codes: 285 is 0, literal 0 is 10, end of block 11; distance 0 is 0.
        writer.code(2, 2)
        writer.zeros(2 * matches)
        writer.code(3, 2)
        return writer.finished()
    }
}
