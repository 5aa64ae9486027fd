/// A position in a server's change feed. Opaque to the client: only the server that made it reads it.
///
/// The repository stores the cursor of the last applied page in the same transaction as the page,
/// so a sync always resumes exactly after what the cache holds.
///
/// ```swift
/// let page = try await remote.pull(after: SyncCursor(rawValue: "1200"), limit: 100)
/// ```
public struct SyncCursor: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The server's text for this position.
    public let rawValue: String

    /// Wraps a server's cursor text.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A cursor from a literal: `let start: SyncCursor = "0"`.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// Decodes a cursor from a JSON string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the cursor as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The cursor's text, cut after 120 characters (a cursor can hold a whole pull state; an error
    /// message should not): `{"since":"2026-…"}`, or `eyJwIjoi… (36,112 characters)`.
    public var description: String { Self.shortened(rawValue) }

    /// `text` cut after 120 characters, with its length: what an error message shows of a server's
    /// opaque text.
    static func shortened(_ text: String) -> String {
        guard text.count > 120 else { return text }
        return String(text.prefix(120)) + "… (\(text.count) characters)"
    }
}
