/// A place a model is stored in, each with its own key names.
///
/// `CodingSource` is an open set: the package ships ``remote``, ``local`` and ``sqlite``, and you add
/// your own as static members.
///
/// ```swift
/// extension CodingSource {
///     static let remoteV2: CodingSource = "remote.v2"
/// }
/// ```
public struct CodingSource: Hashable, Sendable, RawRepresentable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The source's name, used in error messages and as its identity.
    public let rawValue: String

    /// Creates a source named `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a source from a string literal: `let v2: CodingSource = "remote.v2"`.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public var description: String { rawValue }
}

// MARK: - Built-in sources

extension CodingSource {
    /// JSON exchanged with a server.
    public static let remote: CodingSource = "remote"
    /// A local cache file (JSON or property list).
    public static let local: CodingSource = "local"
    /// Columns of a SQLite table.
    public static let sqlite: CodingSource = "sqlite"
}

// MARK: - Defaults

extension CodingSource {
    /// How the `Date` properties of this source are read and written when its key set declares no
    /// strategy: ``DateCodingStrategy/flexible`` for ``remote`` (servers send ISO 8601 text, with or
    /// without fractional seconds, or epoch numbers; pushes write ISO 8601 with milliseconds in UTC),
    /// `nil` for the others, whose coders keep their own date handling.
    ///
    /// ```swift
    /// CodingSource.remote.defaultDateStrategy   // .flexible
    /// CodingSource.sqlite.defaultDateStrategy   // nil: the column's DateEncoding decides
    /// ```
    package var defaultDateStrategy: DateCodingStrategy? {
        self == .remote ? .flexible : nil
    }
}
