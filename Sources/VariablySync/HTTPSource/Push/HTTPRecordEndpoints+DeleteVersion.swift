extension HTTPRecordEndpoints {
    /// Where a delete sends the version it is based on with ``Concurrency/versionInBody`` (a `DELETE`
    /// has no record to leave the version in): the server refuses it with `409` when the record changed.
    ///
    /// ```swift
    /// // Rails with `lock_version`: DELETE /notes/42?lock_version=3
    /// HTTPRecordEndpoints(
    ///     path: "notes", update: .patch, versionField: "lock_version", concurrency: .versionInBody,
    ///     deleteVersion: .query("lock_version"))
    /// ```
    public enum DeleteVersion: Sendable, Equatable {
        /// A query parameter of this name: `DELETE {path}/{id}?lock_version=3` (a string version as its
        /// text, percent-encoded).
        case query(String)
        /// A JSON body with the version field alone: `{"version": 3}`. The default, for declarations
        /// that name none.
        case body
    }
}
