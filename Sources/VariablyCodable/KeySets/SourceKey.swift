/// The name a property has in one source: a key, a nested path of keys, or alternatives tried in order.
///
/// A string is split at dots into a nested path; an array lists alternatives. Decoding tries each
/// alternative in order and uses the first one present; encoding always writes the first.
///
/// ```swift
/// Key(\.userName, "user_name")                         // one key
/// Key(\.city, "data.address.city")                     // nested objects
/// Key(\.userName, ["user_name", "username"])           // alternatives
/// Key(\.rate, .verbatim("rate.usd"))                   // a key that contains a dot
/// ```
public struct SourceKey: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    CustomStringConvertible
{
    /// The alternatives, in the order decoding tries them; each is a path of one or more keys.
    public let alternatives: [KeyPathComponents]

    /// Creates a key from alternatives, each a path of keys.
    public init(alternatives: [KeyPathComponents]) {
        self.alternatives = alternatives
    }

    /// A single key or dotted path: `"user_name"`, `"data.profile.name"`.
    public init(stringLiteral value: String) {
        self.alternatives = [KeyPathComponents(dotted: value)]
    }

    /// Alternatives tried in order when decoding: `["user_name", "username"]`.
    public init(arrayLiteral elements: SourceKey...) {
        self.alternatives = elements.flatMap(\.alternatives)
    }

    /// A single key taken as written, even if it contains dots.
    public static func verbatim(_ key: String) -> SourceKey {
        SourceKey(alternatives: [KeyPathComponents([key])])
    }

    /// A nested path given component by component: `.path("data", "profile.v1", "name")`.
    public static func path(_ components: String...) -> SourceKey {
        SourceKey(alternatives: [KeyPathComponents(components)])
    }

    /// The path encoding writes: the first alternative.
    public var primary: KeyPathComponents { alternatives[0] }

    /// `"user_name" | "username"`, as used in error messages.
    public var description: String {
        alternatives.map { "\"\($0)\"" }.joined(separator: " | ")
    }
}

/// A path of keys into nested objects: `["data", "profile", "name"]`.
public struct KeyPathComponents: Hashable, Sendable, CustomStringConvertible {
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
    public var leaf: String { keys[keys.count - 1] }

    /// The keys of the objects around the value (empty for a top-level key).
    public var parents: ArraySlice<String> { keys.dropLast() }

    /// Whether every key has at least one character.
    public var isWellFormed: Bool { !keys.isEmpty && keys.allSatisfy { !$0.isEmpty } }

    public var description: String { keys.joined(separator: ".") }
}
