/// A canonical Huffman code (RFC 1951 §3.2.2) as a two-level lookup table, so that a symbol is
/// decoded with one or two loads instead of a walk down a tree.
///
/// The primary table is indexed by the next `primaryBits` bits of the stream (codes are sent most
/// significant bit first, so each code is stored bit-reversed); a longer code's primary entry points
/// to a subtable indexed by the bits that follow. An entry is a `UInt32`:
///
/// | bits | field |
/// | --- | --- |
/// | 0–4 | bits to consume at this level |
/// | 5–7 | kind: literal, length or distance, end of block, subtable, invalid |
/// | 8–15 | extra bits after the code (lengths, distances), or the subtable's index bits |
/// | 16–31 | the literal byte, the base length or distance, or the subtable's offset |
///
/// The memory belongs to this object: allocated in `init`, freed in `deinit`. Every slot a lookup can
/// reach is written by `build`, so a stream cannot make the decoder read outside the table.
final class HuffmanTable {
    static let literal: UInt32 = 0 << 5
    static let match: UInt32 = 1 << 5
    static let endOfBlock: UInt32 = 2 << 5
    static let subtable: UInt32 = 3 << 5
    static let invalid: UInt32 = 4 << 5
    static let kindMask: UInt32 = 7 << 5

    let primaryBits: Int
    let capacity: Int
    let entries: UnsafeMutablePointer<UInt32>

    /// A table for codes of at most `maximumCodes` symbols of up to 15 bits.
    init(primaryBits: Int, maximumCodes: Int) {
        self.primaryBits = primaryBits
        // Each subtable serves at least one code, and holds at most 2^(15 - primaryBits) entries.
        capacity = (1 << primaryBits) + maximumCodes << (15 - primaryBits)
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: Self.invalid, count: capacity)
    }

    deinit {
        entries.deallocate()
    }

    /// Fills the table for the code lengths `lengths` (0: the symbol is unused); `leaves[symbol]` is
    /// the symbol's entry without its length.
    ///
    /// - Throws: `InflateError.malformed` for a set of lengths that is over-subscribed, or incomplete
    ///   with more than one code (zlib's rule: one code of one bit is allowed, and no code at all).
    func build(lengths: UnsafeBufferPointer<UInt8>, leaves: UnsafeBufferPointer<UInt32>) throws(InflateError) {
        var counts = [Int](repeating: 0, count: 16)
        var total = 0
        for length in lengths where length > 0 {
            guard length <= 15 else { throw .malformed("a Huffman code is longer than 15 bits") }
            counts[Int(length)] += 1
            total += 1
        }
        var left = 1
        for length in 1...15 {
            left = left << 1 - counts[length]
            guard left >= 0 else { throw .malformed("an over-subscribed Huffman code") }
        }
        if left > 0, total > 1 || (total == 1 && counts[1] != 1) {
            throw .malformed("an incomplete Huffman code")
        }
        try fill(lengths: lengths, leaves: leaves, counts: counts)
    }

    private func fill(
        lengths: UnsafeBufferPointer<UInt8>, leaves: UnsafeBufferPointer<UInt32>, counts: [Int]
    ) throws(InflateError) {
        let primarySize = 1 << primaryBits
        entries.update(repeating: Self.invalid, count: primarySize)
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for length in 1...15 {
            code = (code + counts[length - 1]) << 1
            next[length] = code
        }
        // First pass: the longest code behind each primary slot sizes its subtable.
        var subtableBits = [UInt8](repeating: 0, count: primarySize)
        var codes = next
        for length in lengths where Int(length) > primaryBits {
            let reversed = Self.reversed(codes[Int(length)], bits: Int(length))
            codes[Int(length)] += 1
            let slot = reversed & (primarySize - 1)
            subtableBits[slot] = max(subtableBits[slot], length - UInt8(primaryBits))
        }
        var offset = primarySize
        for slot in 0..<primarySize where subtableBits[slot] > 0 {
            let size = 1 << Int(subtableBits[slot])
            guard offset + size <= capacity, offset <= 0xFFFF else { throw .malformed("a Huffman code is too large") }
            entries[slot] = UInt32(offset) << 16 | UInt32(subtableBits[slot]) << 8 | Self.subtable | UInt32(primaryBits)
            (entries + offset).update(repeating: Self.invalid, count: size)
            offset += size
        }
        // Second pass: every slot whose low bits are a code's (reversed) bits decodes to that code.
        for symbol in 0..<min(lengths.count, leaves.count) where lengths[symbol] > 0 {
            let length = Int(lengths[symbol])
            let reversed = Self.reversed(next[length], bits: length)
            next[length] += 1
            let leaf = leaves[symbol]
            if length <= primaryBits {
                var slot = reversed
                while slot < primarySize {
                    entries[slot] = leaf | UInt32(length)
                    slot += 1 << length
                }
            } else {
                let pointer = entries[reversed & (primarySize - 1)]
                let base = Int(pointer >> 16)
                let size = 1 << Int((pointer >> 8) & 0xFF)
                let subLength = length - primaryBits
                var slot = reversed >> primaryBits
                while slot < size {
                    entries[base + slot] = leaf | UInt32(subLength)
                    slot += 1 << subLength
                }
            }
        }
    }

    private static func reversed(_ code: Int, bits: Int) -> Int {
        var code = code
        var result = 0
        for _ in 0..<bits {
            result = result << 1 | code & 1
            code >>= 1
        }
        return result
    }

    // MARK: - Alphabets

    /// The entries of the literal/length alphabet (RFC 1951 §3.2.5): 0–255 literals, 256 the end of a
    /// block, 257–285 lengths with their extra bits; 286 and 287 never occur in valid data.
    static let literalLengthLeaves: [UInt32] = {
        let bases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163,
            195, 227, 258]
        let extras = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
        var leaves = (0..<256).map { UInt32($0) << 16 | literal }
        leaves.append(endOfBlock)
        for index in 0..<29 { leaves.append(UInt32(bases[index]) << 16 | UInt32(extras[index]) << 8 | match) }
        leaves += [invalid, invalid]
        return leaves
    }()

    /// The entries of the distance alphabet: 0–29 with their extra bits; 30 and 31 never occur.
    static let distanceLeaves: [UInt32] = {
        var leaves: [UInt32] = []
        for code in 0..<30 {
            let extra = code < 4 ? 0 : code / 2 - 1
            let base = code < 4 ? code + 1 : (2 + code % 2) << extra + 1
            leaves.append(UInt32(base) << 16 | UInt32(extra) << 8 | match)
        }
        return leaves + [invalid, invalid]
    }()

    /// The entries of the code-length alphabet (§3.2.7): 0–15 lengths, 16–18 repeats, as "literals".
    static let codeLengthLeaves: [UInt32] = (0..<19).map { UInt32($0) << 16 | literal }
}
