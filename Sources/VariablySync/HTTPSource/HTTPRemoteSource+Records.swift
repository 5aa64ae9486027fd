public import Foundation

// MARK: - Records one at a time

extension HTTPRemoteSource {
    typealias Requests = HTTPRecordRequests<Model>

    /// The pusher of the per-record endpoints, over the source's exchange.
    var recordPusher: HTTPRecordPusher<Model> { HTTPRecordPusher(baseURL: baseURL, api: api, exchange: exchange) }

    /// `GET {base}/{path}/{id}` of the per-record endpoints: the record's JSON, `nil` for `404` or `410`.
    ///
    /// ```swift
    /// let json = try await remote.currentRecord(id: 42)
    /// ```
    ///
    /// - Throws: ``RemoteSourceError/unavailable(_:)`` for an API without per-record endpoints,
    ///   ``RemoteSourceError/httpStatus(_:body:)`` for another failed answer.
    public func currentRecord(id: Model.ID) async throws -> Data? {
        guard case .perRecord(let endpoints) = api.push else {
            throw RemoteSourceError.unavailable("this API declares no per-record endpoints to read record \(id) from")
        }
        let url = try Requests.url(
            of: id, in: Requests.collectionURL(baseURL, endpoints), trailingSlash: endpoints.trailingSlash)
        let response = try await exchange.send(
            recordPusher.requests.makeRecordRequest(url: url, method: "GET", endpoints: endpoints))
        if [404, 410].contains(response.head.status) { return nil }
        let body = try HTTPExchange.successBody(response)
        return Requests.answerRecord(body, at: endpoints.writes.answerRecordPath) ?? body
    }
}

// MARK: - Results as they arrive

extension HTTPRemoteSource: ResultStreamingSource {
    /// Pushes `changes`, handing each per-record result to `onResult` as its answer arrives; the
    /// package's envelope is answered as a whole.
    package func push(
        _ changes: [RemoteChange<Model.ID>],
        willSend: @escaping @Sendable ([RemoteChange<Model.ID>]) async throws -> Void,
        onResult: @escaping @Sendable (PushResult<Model.ID>) async -> Void
    ) async throws -> [PushResult<Model.ID>] {
        guard case .perRecord(let endpoints) = api.push else {
            try await willSend(changes)
            return try await push(changes)
        }
        return try await recordPusher.pushRecords(changes, to: endpoints, willSend: willSend, onResult: onResult)
    }
}

// MARK: - Conditional deletions

extension HTTPRemoteSource: RecordVersionedSource {
    /// The version field of per-record endpoints that send `If-Match`: a deletion sends the version the
    /// client last saw, so that it does not win over a server edit made since.
    package var recordVersionField: String? {
        guard case .perRecord(let endpoints) = api.push else { return nil }
        if case .none = endpoints.concurrency { return nil }
        return endpoints.versionField
    }

    /// The version field of per-record endpoints that send `If-Match`, whose deletions carry the
    /// version the client last saw.
    package var deletionVersionField: String? {
        guard case .perRecord(let endpoints) = api.push, case .ifMatch = endpoints.concurrency else { return nil }
        return endpoints.versionField
    }

    /// The mark of a record's version in a change's base (``HTTPRecordRequests/recordVersionPrefix``).
    package var deletionBasePrefix: String { Requests.recordVersionPrefix }

    /// Per-record endpoints read a change's base only when it is a record's version; the package's
    /// envelope sends the base, the cursor included, for the server to compare.
    package var basesChangesOnCursor: Bool {
        guard case .perRecord = api.push else { return true }
        return false
    }
}

// MARK: - Client references

extension HTTPRemoteSource: ClientReferencingSource {
    /// The declared client reference's field: a create whose record has it empty gets a new UUID.
    package var clientReferenceField: String? {
        guard case .perRecord(let endpoints) = api.push else { return nil }
        return endpoints.clientReference?.field
    }
}
