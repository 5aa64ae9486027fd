/// The CRC-32 of gzip members (RFC 1952 §8: polynomial 0xEDB88320, reflected, inverted), eight bytes
/// per step with eight tables ("slicing-by-8").
enum CRC32 {
    /// The checksum of `bytes`, continuing from `crc` (0 to start).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        var value = ~crc
        guard let base = bytes.baseAddress else { return crc }
        var index = 0
        let count = bytes.count
        tables.withUnsafeBufferPointer { table in
            while count - index >= 8 {
                let low = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt32.self)) ^ value
                let high = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self))
                value =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                value = table[Int((value ^ UInt32(base.load(fromByteOffset: index, as: UInt8.self))) & 0xFF)] ^ (value >> 8)
                index += 1
            }
        }
        return ~value
    }

    /// Table *k* (256 entries each) gives the CRC of a byte followed by *k* zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var value = UInt32(byte)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            tables[byte] = value
        }
        for byte in 0..<256 {
            for table in 1..<8 {
                let previous = tables[(table - 1) * 256 + byte]
                tables[table * 256 + byte] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()
}
