/// A path of keys into a source's nested objects: `["data", "profile", "name"]`, written
/// `"data.profile.name"`, in a ``Key`` or in an HTTP API's declared shape.
///
/// Not a Swift key path: a `DataPath` names where a value sits in a source's data, a key path names
/// the model's property. The empty path, ``root``, is the whole document (a key set rejects it as a
/// key: a property is always under some key).
///
/// ```swift
/// let path: DataPath = "data.profile.name"
/// path.keys                          // ["data", "profile", "name"]
/// "\(path)"                          // "data.profile.name"
/// DataPath(["meta", "next.cursor"])  // a key that contains a dot
/// ```
public struct DataPath: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The keys from the outermost object inwards.
    public let keys: [String]

    /// Creates a path from its keys; use this form for a key that contains a dot.
    public init(_ keys: [String]) {
        self.keys = keys
    }

    /// Splits `"data.profile.name"` at its dots; `""` is ``root``.
    public init(dotted: String) {
        self.keys =
            dotted.isEmpty ? [] : dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// A dotted path, as ``init(dotted:)`` reads it.
    public init(stringLiteral value: String) {
        self.init(dotted: value)
    }

    /// The empty path: the whole document, such as the whole body of an HTTP answer.
    public static let root = DataPath([])

    /// The innermost key, the one that holds the value.
    package var leaf: String { keys[keys.count - 1] }

    /// The keys of the objects around the value (empty for a top-level key).
    package var parents: ArraySlice<String> { keys.dropLast() }

    /// Whether every key has at least one character.
    package var isWellFormed: Bool { !keys.isEmpty && keys.allSatisfy { !$0.isEmpty } }

    /// The keys joined by dots, `"data.profile.name"`, as error messages show the path; `(root)` for
    /// ``root``.
    public var description: String { keys.isEmpty ? "(root)" : keys.joined(separator: ".") }
}
