package import Foundation

/// Checks an XML property list before Foundation reads it, for two inputs that stop the process there.
///
/// - Nesting: Foundation's XML property list reader recurses once per level of arrays and
///   dictionaries with no limit, so a damaged or hostile file nested 10,000 deep overflows the stack;
///   counting the opening and closing tags first turns such a file into a `DecodingError` instead.
/// - Encoding: it traps on bytes that are not UTF-8 in a document it reads as UTF-8 (found by
///   `Fuzz/run local_plist`: `<integer>` followed by `0xFF` bytes); such a document is refused first.
package enum XMLPropertyListCheck {
    /// The deepest nesting of arrays and dictionaries accepted, as for JSON.
    package static let maximumNesting = 512

    /// Throws `DecodingError.dataCorrupted` if `data` is an XML property list nested deeper than
    /// ``maximumNesting``, or one whose bytes are not UTF-8; returns quietly for anything
    /// else (binary property lists have their own check).
    ///
    /// - Complexity: O(n) in the size of `data`.
    package static func validate(_ data: Data) throws {
        guard isXML(data) else { return }
        // Whatever its declaration says: Foundation reads the document's bytes as UTF-8 (a Latin-1 string
        // with a byte above 0x7F is an error there too, an integer with one a trap).
        if String(validating: data, as: UTF8.self) == nil {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: "The XML property list is not valid UTF-8."))
        }
        var depth = 0
        var index = data.startIndex
        let open = UInt8(ascii: "<")
        while let start = data[index...].firstIndex(of: open) {
            let next = data.index(after: start)
            guard next < data.endIndex else { break }
            let tag = data[next..<min(next + 6, data.endIndex)]
            if tag.starts(with: Array("array>".utf8)) || tag.starts(with: Array("dict>".utf8)) {
                depth += 1
                if depth > maximumNesting {
                    throw DecodingError.dataCorrupted(
                        DecodingError.Context(
                            codingPath: [],
                            debugDescription:
                                "The property list nests arrays or dictionaries deeper than \(maximumNesting) levels."))
                }
            } else if tag.starts(with: Array("/array".utf8)) || tag.starts(with: Array("/dict>".utf8)) {
                depth -= 1
            }
            index = next
        }
    }

    /// Whether `data` starts like an XML document: `<` after an optional UTF-8 byte order mark and
    /// whitespace.
    private static func isXML(_ data: Data) -> Bool {
        var index = data.startIndex
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        while index < data.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(data[index]) { index += 1 }
        return index < data.endIndex && data[index] == UInt8(ascii: "<")
    }
}
