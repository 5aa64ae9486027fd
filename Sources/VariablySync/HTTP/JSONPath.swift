/// Where a value lives in a JSON response: object keys from the top, dot-separated (`"meta.next_cursor"`);
/// the empty path is the whole body.
///
/// ```swift
/// let path: JSONPath = "data.items"
/// ```
public struct JSONPath: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The keys, outermost first.
    public let keys: [String]

    /// A path of `keys`, outermost first; use this form for a key that contains a dot.
    ///
    /// ```swift
    /// JSONPath(keys: ["meta", "next.cursor"])
    /// ```
    public init(keys: [String]) {
        self.keys = keys
    }

    /// A dot-separated path; `""` is the whole body.
    ///
    /// ```swift
    /// JSONPath("data.items")
    /// ```
    public init(_ text: String) {
        keys = text.isEmpty ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The whole body.
    public static let body = JSONPath(keys: [])

    public var description: String { keys.isEmpty ? "(the body)" : keys.joined(separator: ".") }
}
