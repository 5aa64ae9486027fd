/// The bits of a DEFLATE stream, least significant first (RFC 1951 §3.1.1), from a buffer the caller
/// keeps alive. Up to 64 bits are held in `buffer`; past the end of the input, zero bytes are fed in
/// (`padding`), so that the hot loop needs no length check per symbol: a stream that uses them is
/// truncated, which `requireNoPaddingConsumed` and a cap on the padding detect.
struct BitReader {
    let base: UnsafeRawPointer?
    let end: Int
    /// The next input byte to load.
    private(set) var position: Int
    /// Zero bytes loaded past `end`.
    private(set) var padding = 0
    private(set) var buffer: UInt64 = 0
    /// Valid bits in `buffer`; the bits above them are either zero or the stream's next bits.
    private(set) var available = 0

    init(_ input: UnsafeRawBufferPointer, from offset: Int) {
        base = input.baseAddress
        end = input.count
        position = min(max(offset, 0), input.count)
    }

    /// Ensures at least 56 bits are available (the most one literal/length and one distance need).
    @inline(__always)
    mutating func refill() throws(InflateError) {
        if available >= 56 { return }
        if end - position >= 8, let base {
            buffer |= UInt64(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self)) << available
            position += (63 - available) >> 3
            available |= 56
        } else {
            try refillSlowly()
        }
    }

    private mutating func refillSlowly() throws(InflateError) {
        while available < 56 {
            if position < end, let base {
                buffer |= UInt64(base.load(fromByteOffset: position, as: UInt8.self)) << available
                position += 1
            } else {
                // More than 8 padding bytes means at least one was consumed: the input ended early.
                padding += 1
                guard padding <= 8 else { throw .truncated }
            }
            available += 8
        }
    }

    /// The next `count` bits (at most 56 after a refill), not consumed.
    @inline(__always)
    func peek(_ count: Int) -> UInt64 {
        buffer & ((1 &<< UInt64(count)) &- 1)
    }

    /// Consumes `count` bits; the caller has checked that they are available.
    @inline(__always)
    mutating func drop(_ count: Int) {
        buffer >>= UInt64(count)
        available -= count
    }

    /// Consumes `count` bits and returns them.
    @inline(__always)
    mutating func take(_ count: Int) -> Int {
        let value = Int(truncatingIfNeeded: peek(count))
        drop(count)
        return value
    }

    /// Skips to the next byte boundary and returns the offset of that byte in the input.
    ///
    /// - Throws: `InflateError.truncated` if the stream used bits past the end of the input.
    mutating func alignToByte() throws(InflateError) -> Int {
        drop(available & 7)
        let offset = position + padding - available >> 3
        guard offset <= end else { throw .truncated }
        return offset
    }

    /// Continues at byte `offset`, dropping the buffered bits (after a stored block's bytes).
    mutating func restart(at offset: Int) {
        position = min(max(offset, 0), end)
        padding = 0
        buffer = 0
        available = 0
    }
}
