/// The server state a local change is based on, and what a server answers a push with: a record's
/// version as the server wrote it (an ETag, a `lock_version`, an `updated_at` stamp) or, for a server
/// whose versions are positions in its change feed, the cursor the change was made at. Opaque to the
/// client: the server that made it compares it.
///
/// ```swift
/// let change = RemoteChange(
///     idempotencyKey: UUID().uuidString, id: 7, operation: .delete, baseVersion: RecordVersion("4"))
/// ```
public struct RecordVersion: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The server's text for this version.
    public let rawValue: String

    /// Wraps a server's version text.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps a server's version text: `RecordVersion("W/\"a1b2\"")`.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The version a server whose versions are its change positions gives a record at `cursor`.
    ///
    /// ```swift
    /// let base = RecordVersion(SyncCursor(rawValue: "1204"))
    /// ```
    public init(_ cursor: SyncCursor) {
        rawValue = cursor.rawValue
    }

    /// A version from a literal: `let base: RecordVersion = "4"`.
    public init(stringLiteral value: String) {
        rawValue = value
    }

    // Coded as a JSON string: the standard library's coding of a `RawRepresentable` over `String`.

    /// The version's text, cut after 120 characters, as a cursor's is.
    public var description: String { SyncCursor.shortened(rawValue) }
}
