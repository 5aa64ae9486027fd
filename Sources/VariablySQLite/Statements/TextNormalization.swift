import Foundation

/// Text that records and predicates bind is in Unicode Normalization Form C, so that SQLite's byte-wise
/// comparisons agree with Swift's: two strings are `==` in Swift exactly when their NFC forms have the
/// same bytes, and Swift's `<` orders strings by the scalars of their NFC forms, which is the byte order
/// of their UTF-8 (https://www.sqlite.org/datatype3.html#collating_sequences: `BINARY` is `memcmp`).
/// Arguments of hand-written SQL are bound as given: they may name tables and columns, which are
/// compared as written.
enum TextNormalization {
    /// `text` in NFC: as is when it is already (ASCII and Latin text below U+0300, checked in one pass
    /// over its bytes), otherwise `precomposedStringWithCanonicalMapping`.
    ///
    /// - Complexity: O(n) in the UTF-8 length.
    static func nfc(_ text: String) -> String {
        var text = text
        let isInNFC = text.withUTF8 { Self.isLatin($0, allowingCRLF: true) }
        return isInNFC ? text : text.precomposedStringWithCanonicalMapping
    }

    /// Whether `bytes` are valid UTF-8 of scalars below U+0300 only (ASCII, Latin-1, Latin Extended-A
    /// and B, IPA, spacing modifiers). Such text is in NFC (no scalar below U+0300 decomposes, and every
    /// combining mark is at or above it), and each of its scalars is a `Character` of its own except
    /// `"\r\n"`, which is one: with `allowingCRLF: false` a CR followed by LF makes the answer `false`.
    static func isLatin(_ bytes: UnsafeBufferPointer<UInt8>, allowingCRLF: Bool) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte < 0x80 {
                if !allowingCRLF, byte == 0x0D, index + 1 < count, bytes[index + 1] == 0x0A { return false }
                index += 1
            } else if byte >= 0xC2, byte <= 0xCB, index + 1 < count, bytes[index + 1] & 0xC0 == 0x80 {
                index += 2
            } else {
                return false
            }
        }
        return true
    }

    /// Copies `source` to `destination` while checking ``isLatin(_:allowingCRLF:)`` (with CRLF
    /// allowed): one pass for what a bind needs, the check and the copy.
    ///
    /// - Returns: Whether `source` is Latin text, in NFC; when `false`, `destination` holds some bytes.
    @inline(__always)
    static func copyIfLatin(_ source: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>) -> Bool {
        guard let base = source.baseAddress else { return true }
        let count = source.count
        var index = 0
        while index < count {
            let byte = base[index]
            destination[index] = byte
            if byte < 0x80 {
                index &+= 1
            } else if byte >= 0xC2, byte <= 0xCB, index &+ 1 < count, base[index &+ 1] & 0xC0 == 0x80 {
                destination[index &+ 1] = base[index &+ 1]
                index &+= 2
            } else {
                return false
            }
        }
        return true
    }
}
