import VariablyCodable

/// A source whose record writes are conditional on the record's version, as the server last sent it
/// (`PATCH /notes/2/` with `If-Match: "2026-11-26T12:44:56.647898Z"`). Versions are opaque: the
/// repository keeps the bytes of each pulled record's version field as they came (a timestamp
/// re-encoded from the model could differ in its last digits and make every push a false conflict),
/// and a queued change is based on them. A deletion sends no record; when no pulled version is kept,
/// its capture trigger reads the version from the deleted row, in the column of the version field.
package protocol RecordVersionedSource {
    /// The top-level key of the version in the source's records, if writes are conditional on it.
    var recordVersionField: String? { get }

    /// The top-level key of the version in the source's records (`"version"`), if deletions carry it.
    var deletionVersionField: String? { get }

    /// The text that a change's ``RemoteChange/baseVersion`` starts with, followed by the version as
    /// JSON text (`4`, `"a1b2"`), for the source to read back when it pushes the deletion.
    var deletionBasePrefix: String { get }

    /// Whether a change of a record with no version kept is based on the table's cursor (the position
    /// of the last pull, which a server of the package's envelope compares). A source that reads
    /// record versions only says `false`, and such a change is queued with no base: a cursor can hold
    /// a look-back window of up to 10,000 records, which every queued change would otherwise copy.
    var basesChangesOnCursor: Bool { get }
}

extension RecordVersionedSource {
    /// Changes of records with no version kept are based on the table's cursor.
    package var basesChangesOnCursor: Bool { true }
}
