/// One parsed JSON value on a ``JSONDocument``'s tape: 16 bytes, no references.
///
/// Objects and arrays are followed on the tape by their contents (for an object, key then value for
/// each member) and know the index just past their last descendant, so that a value is skipped in O(1).
/// Strings and numbers point into the document's bytes and are converted only when decoded.
struct JSONTapeEntry {
    /// The kind in the low 4 bits, flags in bits 4 to 7, and a length or count above.
    var header: UInt64
    /// A byte offset (strings: the first byte after the quote; numbers: the first byte), or, for
    /// arrays and objects, the tape index just past the container.
    var payload: UInt64

    @inline(__always) var kind: JSONKind { JSONKind(rawValue: UInt8(truncatingIfNeeded: header & 0x0F))! }
    @inline(__always) var kindBits: UInt8 { UInt8(truncatingIfNeeded: header & 0x0F) }
    @inline(__always) var flags: UInt8 { UInt8(truncatingIfNeeded: header & 0xF0) }
    /// Content bytes of a string (escapes included), bytes of a number, elements of an array,
    /// members of an object.
    @inline(__always) var length: Int { Int(truncatingIfNeeded: header >> 8) }
    @inline(__always) var offset: Int { Int(truncatingIfNeeded: payload) }
    @inline(__always) var end: Int { Int(truncatingIfNeeded: payload) }

    @inline(__always)
    init(kind: JSONKind, flags: UInt8 = 0, length: Int = 0, payload: Int = 0) {
        header = UInt64(kind.rawValue) | UInt64(flags) | (UInt64(length) << 8)
        self.payload = UInt64(payload)
    }

    // Flags.
    /// A string that contains at least one backslash escape.
    static let isEscaped: UInt8 = 0x10
    /// A string whose raw bytes are all ASCII.
    static let isASCII: UInt8 = 0x20
    /// A number written with a fraction or an exponent.
    static let isNonInteger: UInt8 = 0x10
    /// A number with a leading minus sign.
    static let isNegative: UInt8 = 0x20
}
