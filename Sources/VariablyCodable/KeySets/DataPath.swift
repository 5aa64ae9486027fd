/// A path of keys into a source's nested objects: `["data", "profile", "name"]`, written
/// `"data.profile.name"` in a ``Key``.
///
/// Not a Swift key path: a `DataPath` names where a value sits in a source's data, a key path names
/// the model's property.
///
/// ```swift
/// let path = DataPath(dotted: "data.profile.name")
/// path.keys          // ["data", "profile", "name"]
/// "\(path)"          // "data.profile.name"
/// ```
public struct DataPath: Hashable, Sendable, CustomStringConvertible {
    /// The keys from the outermost object inwards.
    public let keys: [String]

    /// Creates a path from its keys.
    public init(_ keys: [String]) {
        self.keys = keys
    }

    /// Splits `"data.profile.name"` at its dots.
    public init(dotted: String) {
        self.keys = dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The innermost key, the one that holds the value.
    package var leaf: String { keys[keys.count - 1] }

    /// The keys of the objects around the value (empty for a top-level key).
    package var parents: ArraySlice<String> { keys.dropLast() }

    /// Whether every key has at least one character.
    package var isWellFormed: Bool { !keys.isEmpty && keys.allSatisfy { !$0.isEmpty } }

    /// The keys joined by dots, `"data.profile.name"`, as error messages show the path.
    public var description: String { keys.joined(separator: ".") }
}

