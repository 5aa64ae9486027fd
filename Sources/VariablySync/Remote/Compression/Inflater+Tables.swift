// MARK: - Huffman tables

extension Inflater {
    /// The fixed codes of block type 1 (RFC 1951 §3.2.6).
    func buildFixedTables() throws(InflateError) {
        var lengths = [UInt8](repeating: 8, count: 288)
        for symbol in 144..<256 { lengths[symbol] = 9 }
        for symbol in 256..<280 { lengths[symbol] = 7 }
        try build(literalLengths, lengths[...], HuffmanTable.literalLengthLeaves)
        try build(distances, [UInt8](repeating: 5, count: 32)[...], HuffmanTable.distanceLeaves)
    }

    /// The code lengths of a dynamic block (§3.2.7), themselves Huffman-coded, and the two tables
    /// they describe.
    func readDynamicTables(_ reader: inout BitReader) throws(InflateError) {
        try reader.refill()
        let literalCount = reader.take(5) + 257
        let distanceCount = reader.take(5) + 1
        let codeLengthCount = reader.take(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else {
            throw .malformed("a dynamic block declares more than 286 literal/length or 30 distance codes")
        }
        var codeLengthLengths = [UInt8](repeating: 0, count: 19)
        try reader.refill()
        for index in 0..<codeLengthCount {
            codeLengthLengths[Self.codeLengthOrder[index]] = UInt8(reader.take(3))
        }
        try build(codeLengths, codeLengthLengths[...], HuffmanTable.codeLengthLeaves)

        let table = codeLengths.entries
        let mask = UInt64(1 << codeLengths.primaryBits - 1)
        let total = literalCount + distanceCount
        var lengths = [UInt8](repeating: 0, count: total)
        var index = 0
        while index < total {
            try reader.refill()
            let entry = table[Int(reader.buffer & mask)]
            guard entry & HuffmanTable.kindMask == HuffmanTable.literal else { throw .malformed("an invalid code-length code") }
            reader.drop(Int(entry & 31))
            let symbol = Int(entry >> 16)
            let (value, repeats): (UInt8, Int)
            switch symbol {
            case 0...15:
                (value, repeats) = (UInt8(symbol), 1)
            case 16:
                guard index > 0 else { throw .malformed("a repeated code length with none before it") }
                (value, repeats) = (lengths[index - 1], 3 + reader.take(2))
            case 17:
                (value, repeats) = (0, 3 + reader.take(3))
            default:
                (value, repeats) = (0, 11 + reader.take(7))
            }
            guard repeats <= total - index else { throw .malformed("code lengths run past their count") }
            for offset in index..<(index + repeats) { lengths[offset] = value }
            index += repeats
        }
        guard lengths[256] > 0 else { throw .malformed("a dynamic block without an end-of-block code") }
        try build(literalLengths, lengths[0..<literalCount], HuffmanTable.literalLengthLeaves)
        try build(distances, lengths[literalCount...], HuffmanTable.distanceLeaves)
    }

    private func build(_ table: HuffmanTable, _ lengths: ArraySlice<UInt8>, _ leaves: [UInt32]) throws(InflateError) {
        try lengths.withUnsafeBufferPointer { lengths throws(InflateError) in
            try leaves.withUnsafeBufferPointer { leaves throws(InflateError) in
                try table.build(lengths: lengths, leaves: leaves)
            }
        }
    }

    /// The order in which a dynamic block sends the code-length code's lengths.
    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
}
