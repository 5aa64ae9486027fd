import VariablyCodable

/// A source whose record deletions are conditional on the record's version, as the client last saw it
/// (`DELETE /notes/2` with `If-Match: "4"`). A deletion sends no record, so the repository keeps that
/// version for it: its capture trigger reads it from the deleted row, in the column of the source's
/// version field, and stores it as the change's base.
package protocol RecordVersionedSource {
    /// The top-level key of the version in the source's records (`"version"`), if deletions carry it.
    var deletionVersionField: String? { get }

    /// The text that a deletion's ``RemoteChange/baseCursor`` starts with, followed by the version as
    /// JSON text (`4`, `"a1b2"`), for the source to read back when it pushes the deletion.
    var deletionBasePrefix: String { get }
}
