import Foundation

/// `Content-Encoding: deflate`: the zlib format (RFC 1950: a 2-byte header, a DEFLATE stream, the
/// Adler-32 of the data), or a raw DEFLATE stream, which some servers send under that name; as
/// browsers do, data whose first two bytes are not a zlib header is read as raw DEFLATE.
enum ZlibReader {
    /// The data of `input`, at most `limit` bytes.
    ///
    /// - Throws: `InflateError`: `malformed` for a bad stream, a preset dictionary, an Adler-32 that
    ///   does not match or bytes after the stream; `truncated` when the input ends inside the stream;
    ///   `tooLarge` before the output would pass `limit`.
    /// - Complexity: O(*n* + *m*), *n* the input and *m* the output bytes.
    static func decode(_ input: UnsafeRawBufferPointer, limit: Int) throws(InflateError) -> Data {
        let inflater = Inflater(limit: limit, expectedSize: input.count.multipliedReportingOverflow(by: 8).partialValue)
        var offset: Int
        if isZlibHeader(input) {
            guard input[1] & 0x20 == 0 else { throw .malformed("a zlib stream that needs a preset dictionary") }
            offset = try inflater.inflate(input, from: 2)
            guard input.count - offset >= 4 else { throw .truncated }
            let expected = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(input[offset + $1]) }
            guard inflater.withOutput(from: 0, { Adler32.checksum($0) }) == expected else {
                throw .malformed("a zlib stream's Adler-32 does not match its data")
            }
            offset += 4
        } else {
            offset = try inflater.inflate(input, from: 0)
        }
        guard offset == input.count else { throw .malformed("bytes after the end of the deflate data") }
        return inflater.takeOutput()
    }

    /// Whether the first two bytes are a zlib header (§2.2): method 8, a window of at most 32 KiB, and
    /// a check making the pair a multiple of 31.
    static func isZlibHeader(_ input: UnsafeRawBufferPointer) -> Bool {
        guard input.count >= 2 else { return false }
        return input[0] & 0x0F == 8 && input[0] >> 4 <= 7 && (UInt16(input[0]) << 8 | UInt16(input[1])) % 31 == 0
    }
}
