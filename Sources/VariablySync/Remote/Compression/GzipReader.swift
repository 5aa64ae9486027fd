import Foundation

/// The gzip format (RFC 1952): one or more members, each a header, a DEFLATE stream and a trailer
/// with the CRC-32 and the size (mod 2^32) of its data, checked. Members are decoded one after the
/// other into one output, bounded by the limit as a whole.
enum GzipReader {
    /// The data of every member of `input`, at most `limit` bytes.
    ///
    /// - Throws: `InflateError`: `malformed` for a bad header, a bad stream, a checksum or size that
    ///   does not match, or bytes after a member that do not start another; `truncated` when the input
    ///   ends inside a member; `tooLarge` before the output would pass `limit`.
    /// - Complexity: O(*n* + *m*), *n* the input and *m* the output bytes.
    static func decode(_ input: UnsafeRawBufferPointer, limit: Int) throws(InflateError) -> Data {
        let inflater = Inflater(limit: limit, expectedSize: input.count.multipliedReportingOverflow(by: 8).partialValue)
        var offset = 0
        repeat {
            let start = inflater.count
            offset = try inflater.inflate(input, from: try headerEnd(input, from: offset))
            guard input.count - offset >= 8 else { throw .truncated }
            let crc = littleEndian32(input, at: offset)
            let size = littleEndian32(input, at: offset + 4)
            offset += 8
            guard inflater.withOutput(from: start, { CRC32.checksum($0) }) == crc else {
                throw .malformed("a gzip member's CRC-32 does not match its data")
            }
            guard UInt32(truncatingIfNeeded: inflater.count - start) == size else {
                throw .malformed("a gzip member's size does not match its data")
            }
        } while offset < input.count
        return inflater.takeOutput()
    }

    /// The offset of the DEFLATE stream after the member header at `offset` (§2.3).
    private static func headerEnd(_ input: UnsafeRawBufferPointer, from offset: Int) throws(InflateError) -> Int {
        let isMagic = (0..<min(2, input.count - offset)).allSatisfy { input[offset + $0] == [0x1F, 0x8B][$0] }
        guard isMagic else {
            throw .malformed(
                offset == 0 ? "not gzip data (no 1F 8B magic number)" : "bytes after the gzip data that do not start another member")
        }
        guard input.count - offset >= 10 else { throw .truncated }
        guard input[offset + 2] == 8 else { throw .malformed("a gzip compression method other than DEFLATE") }
        let flags = input[offset + 3]
        guard flags & 0xE0 == 0 else { throw .malformed("a gzip header with reserved flags set") }
        var position = offset + 10
        if flags & 0x04 != 0 {  // FEXTRA
            guard input.count - position >= 2 else { throw .truncated }
            let length = Int(input[position]) | Int(input[position + 1]) << 8
            guard input.count - position - 2 >= length else { throw .truncated }
            position += 2 + length
        }
        for flag: UInt8 in [0x08, 0x10] where flags & flag != 0 {  // FNAME, FCOMMENT: zero-terminated
            while true {
                guard position < input.count else { throw .truncated }
                position += 1
                if input[position - 1] == 0 { break }
            }
        }
        if flags & 0x02 != 0 {  // FHCRC: the low 16 bits of the header's CRC-32
            guard input.count - position >= 2 else { throw .truncated }
            let expected = UInt16(input[position]) | UInt16(input[position + 1]) << 8
            let header = UnsafeRawBufferPointer(rebasing: input[offset..<position])
            guard UInt16(truncatingIfNeeded: CRC32.checksum(header)) == expected else {
                throw .malformed("a gzip header's CRC-16 does not match")
            }
            position += 2
        }
        return position
    }

    private static func littleEndian32(_ input: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(input[offset + $1]) << (8 * $1) }
    }
}
