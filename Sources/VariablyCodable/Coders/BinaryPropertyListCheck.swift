package import Foundation

/// A structural check of a binary property list ("bplist00") before Foundation reads it.
///
/// Foundation's binary reader trusts the lengths and object references in the file; a damaged file can
/// make it trap (a collection whose count runs past the end of the file) or recurse without bound. This
/// check walks the trailer, the offset table and every object reachable from the top one, with bounds on
/// every length, reference and nesting depth, so that such a file is reported as corrupt instead.
/// Format: https://opensource.apple.com/source/CF/CF-1153.18/CFBinaryPList.c (the comment at its top).
package struct BinaryPropertyListCheck {
    /// The deepest nesting of arrays, sets and dictionaries accepted.
    package static let maximumDepth = 512
    /// The most values the file may expand to: objects referenced many times are read once per reference.
    package static let maximumExpandedCount = 50_000_000

    private let bytes: [UInt8]
    private let offsetTableStart: Int
    private let referenceSize: Int
    private let offsets: [Int]

    /// Throws `DecodingError.dataCorrupted` if `data` is a binary property list with an inconsistent
    /// structure; returns quietly for anything else (other formats are left to their decoders).
    package static func validate(_ data: Data) throws {
        guard data.starts(with: Array("bplist00".utf8)) else { return }
        let check = try BinaryPropertyListCheck(Array(data))
        try check.walk()
    }

    private init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        guard bytes.count >= 8 + 32 else { throw Self.corrupt("it is shorter than a header and a trailer") }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw Self.corrupt("its trailer has invalid integer sizes")
        }
        let objectCount = Self.integer(bytes[(trailer + 8)..<(trailer + 16)])
        let topObject = Self.integer(bytes[(trailer + 16)..<(trailer + 24)])
        let tableStart = Self.integer(bytes[(trailer + 24)..<(trailer + 32)])
        guard objectCount > 0, objectCount <= UInt64(trailer), topObject < objectCount, tableStart >= 8,
            tableStart <= UInt64(trailer), UInt64(trailer) - tableStart >= objectCount * UInt64(offsetSize)
        else { throw Self.corrupt("its trailer points outside the file") }
        offsetTableStart = Int(tableStart)
        var offsets: [Int] = []
        offsets.reserveCapacity(Int(objectCount))
        for index in 0..<Int(objectCount) {
            let start = offsetTableStart + index * offsetSize
            let offset = Self.integer(bytes[start..<(start + offsetSize)])
            guard offset >= 8, offset < tableStart else {
                throw Self.corrupt("object \(index) lies outside the objects")
            }
            offsets.append(Int(offset))
        }
        self.offsets = offsets
        guard Int(topObject) < offsets.count else { throw Self.corrupt("its top object does not exist") }
        topIndex = Int(topObject)
    }

    private var topIndex = 0

    private func walk() throws {
        var onPath = Set<Int>()
        var heights: [Int: (height: Int, count: Int)] = [:]
        _ = try visit(topIndex, depth: 0, onPath: &onPath, heights: &heights)
    }

    /// Checks `object` and what it contains; returns the nesting height below it and the number of
    /// values it expands to. Both are kept, so an object referenced many times is walked once.
    private func visit(
        _ object: Int, depth: Int, onPath: inout Set<Int>, heights: inout [Int: (height: Int, count: Int)]
    ) throws -> (height: Int, count: Int) {
        guard object < offsets.count else { throw Self.corrupt("a reference points to no object") }
        if let known = heights[object] {
            guard depth + known.height <= Self.maximumDepth else {
                throw Self.corrupt("it nests deeper than \(Self.maximumDepth) levels")
            }
            return known
        }
        guard depth <= Self.maximumDepth else { throw Self.corrupt("it nests deeper than \(Self.maximumDepth) levels") }
        let start = offsets[object]
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        var position = start + 1
        func length() throws -> Int {
            guard low == 0x0F else { return low }
            guard position < offsetTableStart, bytes[position] & 0xF0 == 0x10 else {
                throw Self.corrupt("object \(object) has a malformed length")
            }
            let size = 1 << Int(bytes[position] & 0x0F)
            guard size <= 8, position + 1 + size <= offsetTableStart else {
                throw Self.corrupt("object \(object) has a malformed length")
            }
            let value = Self.integer(bytes[(position + 1)..<(position + 1 + size)])
            position += 1 + size
            guard value <= UInt64(offsetTableStart) else {
                throw Self.corrupt("object \(object) is longer than the file")
            }
            return Int(value)
        }
        func require(_ byteCount: Int) throws {
            guard byteCount >= 0, position + byteCount <= offsetTableStart else {
                throw Self.corrupt("object \(object) runs past the end of the objects")
            }
        }
        var height = 0
        var expanded = 1
        switch marker >> 4 {
        case 0x0:
            break
        case 0x1, 0x2:
            guard low <= 4 else { throw Self.corrupt("object \(object) is a number of unsupported size") }
            try require(1 << low)
        case 0x3:
            try require(8)
        case 0x4, 0x5:
            try require(try length())
        case 0x6:
            let count = try length()
            try require(count * 2)
        case 0x8:
            try require(low + 1)
        case 0xA, 0xC, 0xD:
            let count = try length() * (marker >> 4 == 0xD ? 2 : 1)
            try require(count * referenceSize)
            guard onPath.insert(object).inserted else { throw Self.corrupt("object \(object) contains itself") }
            for index in 0..<count {
                let at = position + index * referenceSize
                let reference = Self.integer(bytes[at..<(at + referenceSize)])
                guard reference < UInt64(offsets.count) else { throw Self.corrupt("a reference points to no object") }
                let below = try visit(Int(reference), depth: depth + 1, onPath: &onPath, heights: &heights)
                height = max(height, below.height + 1)
                expanded += below.count
                guard expanded <= Self.maximumExpandedCount else {
                    throw Self.corrupt("it expands to more than \(Self.maximumExpandedCount) values")
                }
            }
            onPath.remove(object)
        default:
            throw Self.corrupt("object \(object) has an unknown type")
        }
        heights[object] = (height, expanded)
        return (height, expanded)
    }

    private static func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func corrupt(_ reason: String) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: [], debugDescription: "The binary property list is damaged: \(reason)."))
    }
}
