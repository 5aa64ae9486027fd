import Foundation

/// A DEFLATE decoder (RFC 1951: stored, fixed and dynamic Huffman blocks) that writes into one output
/// buffer bounded by `limit`: it stops with `InflateError.tooLarge` before the output would pass the
/// limit, so a "gzip bomb" costs at most `limit` bytes plus a small constant, however far it expands.
///
/// Several streams may be decoded one after the other into the same output (gzip members); a match
/// may not reach back before the start of its own stream. The output buffer belongs to this object
/// (`malloc`ed, grown by doubling up to the limit, freed in `deinit` unless taken by `takeOutput`).
final class Inflater {
    /// The most output bytes accepted.
    let limit: Int
    private(set) var count = 0
    /// The bytes allocated for the output: at most `limit` plus a small constant.
    private(set) var capacity: Int
    private var output: UnsafeMutablePointer<UInt8>?
    let literalLengths = HuffmanTable(primaryBits: 10, maximumCodes: 288)
    let distances = HuffmanTable(primaryBits: 8, maximumCodes: 32)
    let codeLengths = HuffmanTable(primaryBits: 7, maximumCodes: 19)

    /// The slack kept past `count`: one match (258 bytes) and the 8-byte overshoot of a wide copy.
    private static let slack = 258 + 8

    /// A decoder whose output may take `limit` bytes; `expectedSize` is the first allocation.
    init(limit: Int, expectedSize: Int = 64 << 10) {
        self.limit = max(0, min(limit, Int.max / 2))
        capacity = min(max(expectedSize, 4096), self.limit) + Self.slack
        output = UnsafeMutablePointer<UInt8>(OpaquePointer(malloc(capacity)))
    }

    deinit {
        free(output)
    }

    /// The bytes decoded so far, from offset `start`.
    func withOutput<Result>(from start: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let start = min(max(start, 0), count)
        return body(UnsafeRawBufferPointer(start: output.map { $0 + start }, count: count - start))
    }

    /// The decoded bytes; the decoder is empty afterwards.
    func takeOutput() -> Data {
        guard let output, count > 0 else { return Data() }
        let data = Data(bytesNoCopy: output, count: count, deallocator: .free)
        self.output = nil
        capacity = 0
        count = 0
        return data
    }

    /// Decodes the DEFLATE stream that starts at `offset` of `input`, appending to the output.
    ///
    /// - Returns: The offset of the first byte after the stream (its last byte padded to a boundary).
    /// - Throws: `InflateError`: `malformed` for data that breaks RFC 1951, `truncated` when the input
    ///   ends inside the stream, `tooLarge` before the output would pass `limit`.
    /// - Complexity: O(*n* + *m*), *n* the input and *m* the output bytes.
    func inflate(_ input: UnsafeRawBufferPointer, from offset: Int) throws(InflateError) -> Int {
        var reader = BitReader(input, from: offset)
        let streamStart = count
        var isFinal = false
        while !isFinal {
            try reader.refill()
            isFinal = reader.take(1) == 1
            switch reader.take(2) {
            case 0:
                try copyStoredBlock(&reader, input)
            case 1:
                try buildFixedTables()
                try decodeBlock(&reader, streamStart: streamStart)
            case 2:
                try readDynamicTables(&reader)
                try decodeBlock(&reader, streamStart: streamStart)
            default:
                throw .malformed("a DEFLATE block of the reserved type 3")
            }
        }
        return try reader.alignToByte()
    }

    // MARK: - Blocks

    /// A stored block (§3.2.4): LEN, its one's complement NLEN, LEN bytes.
    private func copyStoredBlock(_ reader: inout BitReader, _ input: UnsafeRawBufferPointer) throws(InflateError) {
        let start = try reader.alignToByte()
        guard input.count - start >= 4 else { throw .truncated }
        let length = Int(input[start]) | Int(input[start + 1]) << 8
        let complement = Int(input[start + 2]) | Int(input[start + 3]) << 8
        guard length == complement ^ 0xFFFF else { throw .malformed("a stored block's length check fails") }
        guard input.count - start - 4 >= length else { throw .truncated }
        guard length <= limit - count else { throw .tooLarge(limit: limit) }
        try reserve(length)
        if length > 0, let output, let source = input.baseAddress {
            (output + count).update(from: source.advanced(by: start + 4).assumingMemoryBound(to: UInt8.self), count: length)
        }
        count += length
        reader.restart(at: start + 4 + length)
    }

    /// The symbols of a Huffman block, up to its end-of-block code (§3.2.5).
    private func decodeBlock(_ reader: inout BitReader, streamStart: Int) throws(InflateError) {
        let lengthTable = literalLengths.entries
        let lengthMask = UInt64(1 << literalLengths.primaryBits - 1)
        let distanceTable = distances.entries
        let distanceMask = UInt64(1 << distances.primaryBits - 1)
        guard var out = output else { throw .tooLarge(limit: limit) }
        var count = self.count
        defer { self.count = count }
        while true {
            if capacity - count < Self.slack {
                self.count = count
                try reserve(Self.slack)
                guard let grown = output else { throw .tooLarge(limit: limit) }
                out = grown
            }
            try reader.refill()
            var entry = lengthTable[Int(reader.buffer & lengthMask)]
            if entry & HuffmanTable.kindMask == HuffmanTable.subtable {
                reader.drop(Int(entry & 31))
                entry = lengthTable[Int(entry >> 16) + Int(reader.peek(Int((entry >> 8) & 0xFF)))]
            }
            reader.drop(Int(entry & 31))
            switch entry & HuffmanTable.kindMask {
            case HuffmanTable.literal:
                guard count < limit else { throw .tooLarge(limit: limit) }
                out[count] = UInt8(truncatingIfNeeded: entry >> 16)
                count += 1
            case HuffmanTable.match:
                let length = Int(entry >> 16) + reader.take(Int((entry >> 8) & 0xFF))
                var distanceEntry = distanceTable[Int(reader.buffer & distanceMask)]
                if distanceEntry & HuffmanTable.kindMask == HuffmanTable.subtable {
                    reader.drop(Int(distanceEntry & 31))
                    distanceEntry =
                        distanceTable[Int(distanceEntry >> 16) + Int(reader.peek(Int((distanceEntry >> 8) & 0xFF)))]
                }
                guard distanceEntry & HuffmanTable.kindMask == HuffmanTable.match else {
                    throw .malformed("an invalid distance code")
                }
                reader.drop(Int(distanceEntry & 31))
                let distance = Int(distanceEntry >> 16) + reader.take(Int((distanceEntry >> 8) & 0xFF))
                guard distance <= count - streamStart else { throw .malformed("a distance too far back") }
                guard length <= limit - count else { throw .tooLarge(limit: limit) }
                Self.copyMatch(out + count, distance: distance, length: length)
                count += length
            case HuffmanTable.endOfBlock:
                return
            default:
                throw .malformed("an invalid literal/length code")
            }
        }
    }

    /// Copies `length` bytes from `distance` bytes back; the source may overlap the destination (a
    /// distance of 1 repeats one byte). Writes up to 7 bytes past the end, inside the slack.
    @inline(__always)
    private static func copyMatch(_ destination: UnsafeMutablePointer<UInt8>, distance: Int, length: Int) {
        let source = destination - distance
        if distance >= 8 {
            // Each 8-byte load reads bytes already written: the source is at least 8 bytes behind.
            let from = UnsafeRawPointer(source)
            let to = UnsafeMutableRawPointer(destination)
            var offset = 0
            while offset < length {
                to.storeBytes(of: from.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
        } else if distance == 1 {
            destination.update(repeating: source.pointee, count: length)
        } else {
            for index in 0..<length { destination[index] = source[index] }
        }
    }

    // MARK: - Output

    /// Makes room for `extra` more bytes plus the slack, doubling up to the limit.
    private func reserve(_ extra: Int) throws(InflateError) {
        let needed = count + extra + Self.slack
        guard needed > capacity else { return }
        let ceiling = limit + Self.slack
        guard needed <= ceiling else { throw .tooLarge(limit: limit) }
        let grown = min(max(capacity * 2, needed), ceiling)
        guard let moved = realloc(output, grown) else { throw .tooLarge(limit: limit) }
        output = moved.assumingMemoryBound(to: UInt8.self)
        capacity = grown
    }
}
