internal import CSQLite
import Foundation

/// `variably_contains(text, needle)` and `variably_starts_with(text, prefix)`: Swift's
/// `contains` and `starts(with:)` on `String`s, as `#Predicate` evaluates them, for SQL.
///
/// Swift compares `Character`s (grapheme clusters) under canonical equivalence: `"e\u{301}"` does not
/// contain `"e"`, `"\r\n"` does not contain `"\n"`, a family emoji does not contain one of its people,
/// `"🇺🇸🇫🇷"` does not contain `"🇸🇫"`. SQLite's `instr` and `LIKE` compare bytes and find all of these.
/// The predicate translation keeps `instr`/`LIKE` as a fast filter (sound on text stored in NFC, see
/// ``TextNormalization``) and lets these functions decide (https://www.sqlite.org/appfunc.html).
enum SwiftTextSearch {
    /// Registers both functions on `handle`.
    static func register(on handle: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(
            handle, "variably_contains", 2, flags, nil,
            { context, _, arguments in
                SwiftTextSearch.answer(context, arguments, prefixOnly: false)
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            handle, "variably_starts_with", 2, flags, nil,
            { context, _, arguments in
                SwiftTextSearch.answer(context, arguments, prefixOnly: true)
            }, nil, nil, nil)
    }

    private static func answer(
        _ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?, prefixOnly: Bool
    ) {
        guard let arguments, let text = arguments[0], let needle = arguments[1],
            sqlite3_value_type(text) != SQLITE_NULL, sqlite3_value_type(needle) != SQLITE_NULL
        else { return sqlite3_result_null(context) }
        let found = withBytes(of: text) { text in
            withBytes(of: needle) { needle in matches(text, needle, prefixOnly: prefixOnly) }
        }
        sqlite3_result_int(context, found ? 1 : 0)
    }

    /// The bytes of a value (a text's UTF-8, a blob's bytes, a number's text).
    private static func withBytes<Result>(of value: OpaquePointer, _ body: (UnsafeBufferPointer<UInt8>) -> Result)
        -> Result
    {
        // https://www.sqlite.org/c3ref/value_blob.html: the pointer first, then the size.
        let base = sqlite3_value_blob(value)
        let count = Int(sqlite3_value_bytes(value))
        guard let base, count > 0 else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return body(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count))
    }

    /// Whether `text` contains (or starts with) `needle`, as Swift answers for the strings these bytes
    /// decode to (invalid UTF-8 as U+FFFD, as rows are read).
    ///
    /// - Complexity: O(n·m) bytes compared for Latin text (scalars below U+0300, no `"\r\n"`), where
    ///   every scalar is a `Character` of its own; otherwise the strings are built and compared by
    ///   `Character`.
    static func matches(_ text: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>, prefixOnly: Bool)
        -> Bool
    {
        if TextNormalization.isLatin(text, allowingCRLF: false), TextNormalization.isLatin(needle, allowingCRLF: true) {
            if prefixOnly { return text.starts(with: needle) }
            return firstByteMatch(of: needle, in: text)
        }
        let haystack = String(decoding: text, as: UTF8.self)
        let other = String(decoding: needle, as: UTF8.self)
        return prefixOnly ? sequenceStartsWith(haystack, other) : collectionContains(haystack, other)
    }

    private static func firstByteMatch(of needle: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        guard !needle.isEmpty else { return true }
        guard needle.count <= text.count else { return false }
        let first = needle[0]
        for start in 0...(text.count - needle.count) where text[start] == first {
            var offset = 1
            while offset < needle.count, text[start + offset] == needle[offset] { offset += 1 }
            if offset == needle.count { return true }
        }
        return false
    }

    // The generic forms `PredicateExpressions.CollectionContainsCollection` and `SequenceStartsWith`
    // evaluate with, so that the answer is theirs whatever overloads `String` gains.
    private static func collectionContains<Base: Collection, Other: Collection>(_ base: Base, _ other: Other) -> Bool
    where Base.Element == Other.Element, Base.Element: Equatable {
        base.contains(other)
    }

    private static func sequenceStartsWith<Base: Sequence, Prefix: Sequence>(_ base: Base, _ prefix: Prefix) -> Bool
    where Base.Element == Prefix.Element, Base.Element: Equatable {
        base.starts(with: prefix)
    }
}
