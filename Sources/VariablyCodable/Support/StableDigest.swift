/// A 64-bit FNV-1a digest (http://www.isthe.com/chongo/tech/comp/fnv/) written as 16 hexadecimal
/// digits: the same in every process and on every platform, unlike `Hasher`, so it may name what is
/// stored (an index, a trigger, a record in a cursor).
package enum StableDigest {
    /// The digest of `bytes`.
    ///
    /// ```swift
    /// StableDigest.hex(of: Array("a".utf8).withUnsafeBytes { $0 })   // "af63dc4c8601ec8c"
    /// ```
    package static func hex(of bytes: UnsafeRawBufferPointer) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// The digest of `text`'s UTF-8 bytes.
    package static func hex(of text: String) -> String {
        var text = text
        return text.withUTF8 { hex(of: UnsafeRawBufferPointer($0)) }
    }
}
