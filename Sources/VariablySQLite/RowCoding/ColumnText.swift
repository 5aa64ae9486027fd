/// Strings made from a column's UTF-8 bytes.
enum ColumnText {
    /// The string of `bytes`, invalid sequences replaced by U+FFFD as `String(decoding:as:)` does.
    ///
    /// Written into the string's own storage first and validated there: for 15 bytes or fewer that
    /// storage is the small string itself, with no allocation, and the validation of bytes that are
    /// valid UTF-8 (what SQLite text almost always is) is the only pass over them.
    @inline(__always)
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return "" }
        return String(unsafeUninitializedCapacity: count) { buffer in
            buffer.baseAddress!.update(from: base, count: count)
            return count
        }
    }
}
