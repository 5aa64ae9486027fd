import Foundation

/// A JSON text parsed once into a tape of ``JSONTapeEntry``s over its own copy of the UTF-8 bytes.
///
/// The bytes are copied (16 zero bytes of padding after them let the scanner read ahead without bound
/// checks), so the document stays valid for as long as anything references it, including a `Decoder`
/// that a `Decodable` type kept.
final class JSONDocument {
    /// The UTF-8 bytes, followed by ``padding`` zero bytes.
    let bytes: UnsafeMutablePointer<UInt8>
    /// The number of bytes of JSON text.
    let byteCount: Int
    /// The parsed values, the top-level value first.
    private(set) var tape: UnsafeMutablePointer<JSONTapeEntry>
    private(set) var tapeCount = 0
    private var tapeCapacity: Int
    /// A `null` after the top-level value: what a super decoder reads for a missing key.
    private(set) var nullIndex = 0

    static let padding = 16
    /// The deepest nesting of arrays and objects accepted, as Foundation's `JSONDecoder`.
    static let defaultMaximumDepth = 512

    /// Parses `data` (UTF-8, or UTF-16/32 detected as Foundation's `JSONDecoder` does).
    ///
    /// - Throws: ``JSONSyntaxError`` if `data` is not one JSON value (RFC 8259) in valid UTF-8.
    init(data: Data, maximumDepth: Int = JSONDocument.defaultMaximumDepth) throws(JSONSyntaxError) {
        let utf8 = try JSONDocument.utf8Bytes(of: data)
        byteCount = utf8.count
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: byteCount + JSONDocument.padding)
        utf8.withUnsafeBytes { raw in
            if let base = raw.baseAddress {
                bytes.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: raw.count)
            }
        }
        (bytes + byteCount).initialize(repeating: 0, count: JSONDocument.padding)
        self.bytes = bytes
        tapeCapacity = max(16, byteCount / 5)
        tape = .allocate(capacity: tapeCapacity)
        // Every stored property is set, so `deinit` frees the buffers if parsing throws.
        var parser = JSONParser(document: self, maximumDepth: maximumDepth)
        try parser.parseDocument()
        nullIndex = append(JSONTapeEntry(kind: .null))
    }

    deinit {
        bytes.deallocate()
        tape.deallocate()
    }

    @inline(__always)
    subscript(index: Int) -> JSONTapeEntry { tape[index] }

    /// Appends `entry` and returns its index.
    @inline(__always)
    func append(_ entry: JSONTapeEntry) -> Int {
        if tapeCount == tapeCapacity { grow() }
        tape[tapeCount] = entry
        tapeCount += 1
        return tapeCount - 1
    }

    /// Sets the end index and count of the container at `index` once its contents are on the tape.
    @inline(__always)
    func close(_ index: Int, count: Int) {
        tape[index].header |= UInt64(count) << 8
        tape[index].payload = UInt64(tapeCount)
    }

    private func grow() {
        let capacity = tapeCapacity * 2
        let grown = UnsafeMutablePointer<JSONTapeEntry>.allocate(capacity: capacity)
        grown.moveInitialize(from: tape, count: tapeCount)
        tape.deallocate()
        tape = grown
        tapeCapacity = capacity
    }

    /// The tape index just past the value at `index`.
    @inline(__always)
    func next(after index: Int) -> Int {
        let entry = tape[index]
        let kind = entry.kindBits
        return kind >= JSONKind.array.rawValue ? entry.end : index + 1
    }

    /// The raw bytes of a string's content or a number.
    @inline(__always)
    func rawBytes(of entry: JSONTapeEntry) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: bytes + entry.offset, count: entry.length)
    }

    /// The UTF-8 text of `data`: as is, without a UTF-8 byte order mark, or converted from UTF-16/32
    /// detected by a byte order mark or by the zero bytes around the first ASCII characters.
    private static func utf8Bytes(of data: Data) throws(JSONSyntaxError) -> Data {
        let count = data.count
        let start = data.startIndex
        func byte(_ offset: Int) -> UInt8? { offset < count ? data[start + offset] : nil }
        let (b0, b1, b2, b3) = (byte(0), byte(1), byte(2), byte(3))
        let encoding: String.Encoding
        let bomLength: Int
        switch (b0, b1, b2, b3) {
        case (0, 0, 0xFE, 0xFF): (encoding, bomLength) = (.utf32BigEndian, 4)
        case (0xFE, 0xFF, 0, 0): (encoding, bomLength) = (.utf32LittleEndian, 4)
        case (0xFE, 0xFF, _, _): (encoding, bomLength) = (.utf16BigEndian, 2)
        case (0xFF, 0xFE, _, _): (encoding, bomLength) = (.utf16LittleEndian, 2)
        case (0xEF, 0xBB, 0xBF, _): return data.dropFirst(3)
        case let (0, 0, 0, .some(last)) where last != 0: (encoding, bomLength) = (.utf32BigEndian, 0)
        case let (0, .some(second), 0, .some(fourth)) where second != 0 && fourth != 0:
            (encoding, bomLength) = (.utf16BigEndian, 0)
        case let (.some(first), 0, 0, 0) where first != 0: (encoding, bomLength) = (.utf32LittleEndian, 0)
        case let (.some(first), 0, .some(third), 0) where first != 0 && third != 0:
            (encoding, bomLength) = (.utf16LittleEndian, 0)
        case let (0, .some(second), nil, nil) where second != 0: (encoding, bomLength) = (.utf16BigEndian, 0)
        case let (.some(first), 0, nil, nil) where first != 0: (encoding, bomLength) = (.utf16LittleEndian, 0)
        default: return data
        }
        guard let text = String(bytes: data.dropFirst(bomLength), encoding: encoding) else {
            throw JSONSyntaxError(.invalidUTF8, offset: 0)
        }
        return Data(text.utf8)
    }
}
