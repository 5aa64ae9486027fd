/// Why a compressed body cannot be decoded; `HTTPContentCoding` turns it into the response parser's
/// failure.
enum InflateError: Error, Equatable {
    /// The data breaks the format (RFC 1950, 1951 or 1952); the reason names what.
    case malformed(String)
    /// The data ends before the stream does.
    case truncated
    /// The decoded data would pass `limit` bytes.
    case tooLarge(limit: Int)
}
