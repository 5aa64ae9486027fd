import Foundation
import VariablyCodable

// MARK: - Pushing one record at a time

extension HTTPRemoteSource {
    /// Marks a push outcome's version as a record's version (an entity tag or the version field), not a
    /// sync cursor: the repository keeps it as the base of the record's next change.
    static var recordVersionPrefix: String { "record-version:" }

    /// The version of a record the server does not have (answered `404` or `410`): the next upsert of
    /// it creates it again, whatever version its JSON still carries.
    static var absentRecordVersion: SyncCursor { SyncCursor(rawValue: recordVersionPrefix + "null") }

    /// One request per change, in order; a transient failure fails the batch, which the repository
    /// retries with the same idempotency keys.
    func pushRecords(_ changes: [RemoteChange<Model.ID>], to endpoints: HTTPRecordEndpoints) async throws
        -> [PushResult<Model.ID>]
    {
        var results: [PushResult<Model.ID>] = []
        results.reserveCapacity(changes.count)
        for change in changes {
            try Task.checkCancellation()
            let outcome = try await pushRecord(change, to: endpoints)
            results.append(PushResult(idempotencyKey: change.idempotencyKey, id: change.id, outcome: outcome))
        }
        return results
    }

    private func pushRecord(_ change: RemoteChange<Model.ID>, to endpoints: HTTPRecordEndpoints) async throws -> PushOutcome {
        let collection = endpoints.path.isEmpty ? baseURL : baseURL.appendingPathComponent(endpoints.path)
        let recordURL = try Self.url(of: change.id, in: collection)
        // The version this change is based on: an accepted push's (not yet pulled back), else the record's own.
        let acknowledged = change.baseCursor.flatMap { cursor -> String? in
            guard cursor.rawValue.hasPrefix(Self.recordVersionPrefix) else { return nil }
            let text = String(cursor.rawValue.dropFirst(Self.recordVersionPrefix.count))
            return text.isEmpty ? nil : text
        }
        // The server answered that it has no such record (a conflict with its deletion, kept local).
        let isAbsent = change.baseCursor == Self.absentRecordVersion
        var request: HTTPRequestHead
        switch change.operation {
        case .delete:
            request = makeRequest(url: recordURL, method: "DELETE")
            if case .ifMatch = endpoints.concurrency, let acknowledged, !isAbsent {
                request.headers.append(("If-Match", Self.entityTag(acknowledged)))
            }
        case .upsert(var record):
            let field = endpoints.versionField
            let own = try field.flatMap { try Self.versionJSON(in: record, field: $0) }
            let version = isAbsent ? nil : acknowledged ?? own
            if field != nil, version == nil {
                // New to the server.
                if endpoints.createsWithPost {
                    request = makeRequest(url: collection, method: "POST")
                } else {
                    request = makeRequest(url: recordURL, method: "PUT")
                    request.headers.append(("If-None-Match", "*"))
                }
            } else {
                request = makeRequest(url: recordURL, method: endpoints.update.rawValue)
                switch endpoints.concurrency {
                case .none: break
                case .ifMatch: if let version { request.headers.append(("If-Match", Self.entityTag(version))) }
                case .versionInBody:
                    if let field, let acknowledged, acknowledged != own { record = try Self.replacingVersion(in: record, field: field, with: acknowledged) }
                }
            }
            request.body = record
            request.headers.append(("Content-Type", endpoints.update == .patch ? "application/merge-patch+json" : "application/json"))
        }
        request.headers.append(("Idempotency-Key", change.idempotencyKey))
        let response = try await exchange(request)
        let isCreate = request.method == "POST" || request.headers.contains { $0.name == "If-None-Match" }
        return try await outcome(of: response, for: change, isCreate: isCreate, recordURL: recordURL, endpoints: endpoints)
    }

    private func outcome(
        of response: Response, for change: RemoteChange<Model.ID>, isCreate: Bool, recordURL: URL,
        endpoints: HTTPRecordEndpoints
    ) async throws -> PushOutcome {
        let status = response.head.status
        let isDelete = if case .delete = change.operation { true } else { false }
        switch status {
        case 200...299:
            return .accepted(version: Self.recordVersion(of: response, field: endpoints.versionField, concurrency: endpoints.concurrency))
        case 404, 410:
            if isCreate {
                // No collection there (a wrong path), not a deleted record: the new record stays queued.
                _ = try Self.successBody(response)
                throw RemoteSourceError.httpStatus(status, body: "")
            }
            // Deleted on the server: what a delete wanted; for an update, a conflict with the deletion.
            return isDelete
                ? .accepted(version: Self.absentRecordVersion) : .conflict(serverRecord: nil, version: Self.absentRecordVersion)
        case 409, 412:
            var current = response
            // Many APIs answer a conflict with an error object: only a body that reads as the model is
            // the server's record; a conflict settled with an error object would never settle.
            if (try? KeySetJSONDecoder(source: .remote).decode(Model.self, from: response.body)) == nil {
                current = try await exchange(makeRequest(url: recordURL, method: "GET"))
                if [404, 410].contains(current.head.status) {
                    return .conflict(serverRecord: nil, version: Self.absentRecordVersion)
                }
                _ = try Self.successBody(current)
            }
            return .conflict(
                serverRecord: current.body,
                version: Self.recordVersion(of: current, field: endpoints.versionField, concurrency: endpoints.concurrency))
        case 401, 408, 429, 500...599:
            _ = try Self.successBody(response)  // throws: transient, rate limited, or unauthorized
            throw RemoteSourceError.httpStatus(status, body: "")
        default:
            let body = String(decoding: response.body.prefix(1024), as: UTF8.self)
            return .rejected(reason: "HTTP \(status): \(body)")
        }
    }

    /// The record's version in an answer: its entity tag (preferred with `If-Match`) or the version
    /// field of the body, as JSON text after ``recordVersionPrefix``.
    private static func recordVersion(
        of response: Response, field: String?, concurrency: HTTPRecordEndpoints.Concurrency
    ) -> SyncCursor {
        let tag = response.head.headers["etag"].map { JSONValue.string($0).jsonString() }
        let own = field.flatMap { try? versionJSON(in: response.body, field: $0) }
        let version: String? = if case .ifMatch = concurrency { tag ?? own } else { own ?? tag }
        return SyncCursor(rawValue: recordVersionPrefix + (version ?? ""))
    }

    /// The JSON text of `field` in a record's JSON; `nil` when absent or `null`.
    private static func versionJSON(in record: Data, field: String) throws -> String? {
        guard let body = try? JSONBody(record), let range = try body.member(field, of: body.root) else { return nil }
        let text = String(decoding: body.data(range), as: UTF8.self)
        return text == "null" ? nil : text
    }

    /// The record with its version field's value replaced by `version` (JSON text), byte for byte elsewhere.
    private static func replacingVersion(in record: Data, field: String, with version: String) throws -> Data {
        guard let body = try? JSONBody(record), let range = try body.member(field, of: body.root) else { return record }
        var bytes = body.bytes
        bytes.replaceSubrange(range, with: Array(version.utf8))
        return Data(bytes)
    }

    /// `version` (JSON text) as an entity tag: a received tag as it came, a version field's value quoted.
    private static func entityTag(_ version: String) -> String {
        guard let value = try? JSONValue(parsing: version), let text = JSONBody.text(of: value) else { return "\"\(version)\"" }
        if text.hasPrefix("\"") || text.hasPrefix("W/\"") { return text }
        return "\"\(text)\""
    }

    /// `{collection}/{id}`, the id percent-encoded as one path segment (a string id as its text).
    private static func url(of id: Model.ID, in collection: URL) throws -> URL {
        let json = try JSONEncoder().encode([id])
        guard let body = try? JSONBody(json), let elements = try body.elements(of: body.root), let first = elements.first,
            let text = try JSONBody.text(of: body.value(first))
        else { throw RemoteSourceError.invalidResponse("the id \(id) has no text form for a URL") }
        guard var components = URLComponents(url: collection, resolvingAgainstBaseURL: false) else {
            throw RemoteSourceError.invalidResponse("cannot build a URL from \(collection)")
        }
        let path = components.percentEncodedPath
        components.percentEncodedPath = (path.hasSuffix("/") ? path : path + "/") + HTTPRequestHead.percentEncodedQueryValue(text)
        guard let url = components.url else { throw RemoteSourceError.invalidResponse("cannot build a URL for id \(id)") }
        return url
    }
}

// MARK: - Conditional deletions

extension HTTPRemoteSource: RecordVersionedSource {
    /// The version field of per-record endpoints that send `If-Match`: a deletion sends the version the
    /// client last saw, so that it does not win over a server edit made since.
    package var deletionVersionField: String? {
        guard case .perRecord(let endpoints) = api.push, case .ifMatch = endpoints.concurrency else { return nil }
        return endpoints.versionField
    }

    package var deletionBasePrefix: String { Self.recordVersionPrefix }
}
