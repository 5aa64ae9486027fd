/// How an ``HTTPAPI`` sends local changes.
public enum HTTPPushShape: Sendable {
    /// A pull-only API: a push of queued changes fails with ``RemoteSourceError/unavailable(_:)``, and
    /// the changes stay queued.
    case none
    /// The package's batch envelope, `POST {base}/{path}` with every change and one result per change
    /// (see ``HTTPRemoteSource``).
    case changesEnvelope(path: String)
    /// One request per change: see ``HTTPRecordEndpoints``.
    case perRecord(HTTPRecordEndpoints)
}
