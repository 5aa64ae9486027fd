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
    public let alternatives: [DataPath]

    /// Creates a key from alternatives, each a path of keys.
    public init(alternatives: [DataPath]) {
        self.alternatives = alternatives
    }

    /// A single key or dotted path: `"user_name"`, `"data.profile.name"`.
    public init(stringLiteral value: String) {
        self.alternatives = [DataPath(dotted: value)]
    }

    /// Alternatives tried in order when decoding: `["user_name", "username"]`.
    public init(arrayLiteral elements: SourceKey...) {
        self.alternatives = elements.flatMap(\.alternatives)
    }

    /// A single key taken as written, even if it contains dots.
    public static func verbatim(_ key: String) -> SourceKey {
        SourceKey(alternatives: [DataPath([key])])
    }

    /// A nested path given component by component: `.path("data", "profile.v1", "name")`.
    public static func path(_ components: String...) -> SourceKey {
        SourceKey(alternatives: [DataPath(components)])
    }

    /// The path encoding writes: the first alternative.
    package var primary: DataPath { alternatives[0] }

    /// `"user_name" | "username"`, as used in error messages.
    public var description: String {
        alternatives.map { "\"\($0.keys.joined(separator: "."))\"" }.joined(separator: " | ")
    }
}
