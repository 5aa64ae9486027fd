import Foundation

/// The forms a server gave the dates of one model's records, by the field's path in the source
/// (`"updated_at"`, `"attributes.published_at"`): handed to an encoder as
/// `userInfo[.serverDateFormats]`, it writes each `Date` whose key declares no strategy in its server's
/// form instead of the source's default.
///
/// ```swift
/// var encoder = KeySetJSONEncoder(source: .remote)
/// encoder.userInfo[.serverDateFormats] = ServerDateFormats(["updated_at": format])
/// ```
package struct ServerDateFormats: Sendable, Equatable {
    package var byPath: [String: ServerDateFormat]

    package init(_ byPath: [String: ServerDateFormat] = [:]) { self.byPath = byPath }

    /// The form of the field an entry writes at `path` (its first alternative).
    package func format(at path: ResolvedDataPath) -> ServerDateFormat? {
        byPath.isEmpty ? nil : byPath[path.components.description]
    }
}

extension CodingUserInfoKey {
    /// The ``ServerDateFormats`` an encoder writes server dates in.
    package static let serverDateFormats = CodingUserInfoKey(rawValue: "VariablyCodable.serverDateFormats")!
}
