import Foundation

/// A record as this device pulled it, before its first queued edit, for a change with no version kept:
/// whether the server's current record is still that record decides the change's base (the server's
/// version when it is, a conflict when it is not).
struct PreEditRecord: Sendable {
    /// Whether `server` (the server's current record, its JSON in the remote key set) holds what the
    /// record held when this device pulled it, field by field.
    ///
    /// - Throws: A decoding error when `server` does not decode as the model.
    let isUnchanged: @Sendable (_ server: Data) throws -> Bool
}

/// A source that fills a record's empty client reference when it creates the record (see
/// `HTTPRecordEndpoints.clientReference`).
package protocol ClientReferencingSource {
    /// The top-level key of the client reference in a record's JSON; `nil` for none.
    var clientReferenceField: String? { get }
}
