public import Foundation
import VariablyCodable

// MARK: - Pushing one record at a time

extension HTTPRemoteSource {
    /// Marks a push outcome's version as a record's version (an entity tag or the version field), not a
    /// sync cursor: the repository keeps it as the base of the record's next change.
    static var recordVersionPrefix: String { "record-version:" }

    /// The version of a record the server does not have (answered `404` or `410`): the next upsert of
    /// it creates it again, whatever version its JSON still carries.
    static var absentRecordVersion: SyncCursor { SyncCursor(rawValue: recordVersionPrefix + "null") }

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
        let url = try Self.url(
            of: id, in: Self.collectionURL(baseURL, endpoints), trailingSlash: endpoints.trailingSlash)
        let response = try await exchange.send(makeRecordRequest(url: url, method: "GET", endpoints: endpoints))
        if [404, 410].contains(response.head.status) { return nil }
        let body = try HTTPExchange.successBody(response)
        return Self.answerRecord(body, at: endpoints.writes.answerRecordPath) ?? body
    }

    /// Sends one change; returns its outcome and, for an accepted create, the record the server
    /// answered with.
    func pushRecord(_ change: RemoteChange<Model.ID>, to endpoints: HTTPRecordEndpoints) async throws
        -> (PushOutcome, Data?)
    {
        switch try await prepareRecord(change, to: endpoints) {
        case .settled(let outcome, let record):
            return (outcome, record)
        case .send(let request, let isCreate, let recordURL):
            let response = try await exchange.send(request)
            return try await finishRecord(
                change, answeredWith: response, isCreate: isCreate, recordURL: recordURL, endpoints: endpoints)
        }
    }

    /// What one change needs: settled already (by a look-up), or a request to send.
    enum PreparedWrite {
        /// Settled without a write of its own: its outcome and, for a create, the server's record.
        case settled(PushOutcome, Data?)
        /// The request to send, whether it creates the record, and the record's URL.
        case send(HTTPRequestHead, isCreate: Bool, recordURL: URL)
    }

    /// The request for `change`, after the look-ups it needs (a create in doubt, a write with no version
    /// kept), or its outcome when a look-up settled it.
    func prepareRecord(_ change: RemoteChange<Model.ID>, to endpoints: HTTPRecordEndpoints) async throws
        -> PreparedWrite
    {
        let collection = try Self.collectionURL(baseURL, endpoints)
        let recordURL = try Self.url(of: change.id, in: collection, trailingSlash: endpoints.trailingSlash)
        // The version this change is based on, as the server sent it: pulled, or from an accepted push.
        // A record with no version kept compares its pre-edit row instead (a deletion's base read from
        // the local row is not the server's: see `baseVersion(of:at:endpoints:)`).
        let acknowledged = change.baseCursor.flatMap { cursor -> String? in
            guard change.preEditRecord == nil, cursor.rawValue.hasPrefix(Self.recordVersionPrefix) else { return nil }
            let text = String(cursor.rawValue.dropFirst(Self.recordVersionPrefix.count))
            return text.isEmpty || text == "null" ? nil : text
        }
        // The server answered that it has no such record (a conflict with its deletion, kept local).
        let isAbsent = change.baseCursor == Self.absentRecordVersion
        var request: HTTPRequestHead
        var isCreate = false
        switch change.operation {
        case .delete:
            // A record deleted here while its create was in doubt: its provisional id means nothing to
            // the server, which may hold it under an id of its own, found by its client reference.
            if change.isNew, change.mayHaveBeenApplied, let created = change.createdRecord,
                let reference = endpoints.clientReference
            {
                return .settled(
                    try await deleteCreated(created, reference: reference, in: collection, endpoints: endpoints), nil)
            }
            var known = isAbsent ? nil : acknowledged
            if !isAbsent, known == nil, endpoints.versionField != nil, endpoints.concurrency != .none {
                switch try await baseVersion(of: change, at: recordURL, endpoints: endpoints) {
                case .version(let version): known = version
                case .settled(let outcome): return .settled(outcome, nil)
                }
            }
            request = try deleteRequest(url: recordURL, basedOn: known, endpoints: endpoints)
        case .upsert(let record):
            isCreate = change.isNew || isAbsent
            // A create whose answer was lost, on a server that may ignore `Idempotency-Key`: found by its
            // client reference, it is adopted instead of created twice.
            if isCreate, change.mayHaveBeenApplied,
                let adopted = try await adoptCreateInDoubt(
                    change, record: record, collection: collection, recordURL: recordURL, endpoints: endpoints)
            {
                return .settled(adopted.0, adopted.1)
            }
            var known = acknowledged
            // A conditional write with no version kept for the record (pulled before the source declared
            // one): the server's version when its record is still the one pulled, a conflict otherwise.
            if !isCreate, known == nil, endpoints.versionField != nil, endpoints.concurrency != .none {
                switch try await baseVersion(of: change, at: recordURL, endpoints: endpoints) {
                case .version(let version): known = version
                case .settled(let outcome): return .settled(outcome, nil)
                }
            }
            request = try upsertRequest(
                change, record: record, isCreate: isCreate, basedOn: known, collection: collection,
                recordURL: recordURL, endpoints: endpoints)
        }
        request.headers.append(("Idempotency-Key", change.idempotencyKey))
        return .send(request, isCreate: isCreate, recordURL: recordURL)
    }

    /// The outcome of `change` from the server's answer to its request, and for an accepted create the
    /// record the server stored.
    func finishRecord(
        _ change: RemoteChange<Model.ID>, answeredWith response: HTTPExchange.Response, isCreate: Bool, recordURL: URL,
        endpoints: HTTPRecordEndpoints
    ) async throws -> (PushOutcome, Data?) {
        let collection = try Self.collectionURL(baseURL, endpoints)
        let outcome = try await outcome(
            of: response, for: change, isCreate: isCreate, recordURL: recordURL, endpoints: endpoints)
        // A create in doubt that the server refused (its unique client reference taken) may have been
        // applied by the first request, still in progress when the look-up above ran: look again.
        if isCreate, change.mayHaveBeenApplied, case .rejected = outcome, case .upsert(let record) = change.operation,
            let adopted = try await adoptCreateInDoubt(
                change, record: record, collection: collection, recordURL: recordURL, endpoints: endpoints)
        {
            return adopted
        }
        // The record the server stored, at the declared place in its answer; none in a `204` answer: the
        // record stays as sent.
        guard isCreate, case .accepted = outcome,
            let stored = Self.answerRecord(response.body, at: endpoints.writes.answerRecordPath)
        else { return (outcome, nil) }
        return (outcome, stored)
    }

    /// A create whose answer was lost, found on the server by its client reference or, without one that
    /// finds it, by the id this device chose: adopted instead of created twice (see ``adoptCreate(_:record:at:endpoints:)``).
    /// `nil` when the server has neither.
    private func adoptCreateInDoubt(
        _ change: RemoteChange<Model.ID>, record: Data, collection: URL, recordURL: URL, endpoints: HTTPRecordEndpoints
    ) async throws -> (PushOutcome, Data?)? {
        if let reference = endpoints.clientReference,
            let adopted = try await adoptCreate(
                change, record: record, reference: reference, in: collection, endpoints: endpoints)
        {
            return adopted
        }
        return try await adoptCreate(change, record: record, at: recordURL, endpoints: endpoints)
    }

    /// The request that creates or updates a record: its method, its body (the fields the endpoints
    /// send, the version where the body carries it, in the declared write shape) and its headers.
    ///
    /// - Parameter known: The version the change is based on, as the server sent it.
    private func upsertRequest(
        _ change: RemoteChange<Model.ID>, record: Data, isCreate: Bool, basedOn known: String?, collection: URL,
        recordURL: URL, endpoints: HTTPRecordEndpoints
    ) throws -> HTTPRequestHead {
        let field = endpoints.versionField
        var request: HTTPRequestHead
        var record = record
        if isCreate {
            if endpoints.createsWithPost {
                request = makeRecordRequest(url: collection, method: "POST", endpoints: endpoints)
            } else {
                request = makeRecordRequest(url: recordURL, method: "PUT", endpoints: endpoints)
                request.headers.append(("If-None-Match", "*"))
            }
        } else {
            request = makeRecordRequest(url: recordURL, method: endpoints.update.rawValue, endpoints: endpoints)
            let own = try field.flatMap { try Self.versionJSON(in: record, field: $0) }
            if case .ifMatch = endpoints.concurrency, let version = known ?? own {
                request.headers.append(("If-Match", Self.entityTag(version)))
            }
            if case .versionInBody = endpoints.concurrency, let field, let known {
                record = try Self.replacingVersion(in: record, field: field, with: known)
            }
        }
        try setWriteBody(of: &request, record: record, change: change, isCreate: isCreate, endpoints: endpoints)
        return request
    }

    func outcome(
        of response: HTTPExchange.Response, for change: RemoteChange<Model.ID>, isCreate: Bool, recordURL: URL,
        endpoints: HTTPRecordEndpoints
    ) async throws -> PushOutcome {
        let status = response.head.status
        let isDelete = if case .delete = change.operation { true } else { false }
        switch status {
        case 200...299:
            return .accepted(version: Self.recordVersion(of: response, endpoints: endpoints))
        case let status where status != 401 && exchange.refusesCredentials(status):
            // A status the API declares a refusal of the credentials (403): the push stops, nothing settled.
            throw RemoteSourceError.httpStatus(status, body: String(decoding: response.body.prefix(200), as: UTF8.self))
        case 404 where !isCreate, 410 where !isCreate:
            // Deleted on the server: what a delete wanted; for an update, a conflict with the deletion.
            // Unless the server answers bad credentials so: the declared check tells.
            try await exchange.verifyCredentials(before: "\(isDelete ? "a delete" : "an update") answered \(status)")
            return isDelete
                ? .accepted(version: Self.absentRecordVersion)
                : .conflict(serverRecord: nil, version: Self.absentRecordVersion)
        case 409 where !isCreate, 412 where !isCreate:
            var current = response
            let place = endpoints.writes.answerRecordPath
            // Many APIs answer a conflict with an error object: only a body that reads as the model is
            // the server's record; a conflict settled with an error object would never settle.
            let answered = Self.answerRecord(response.body, at: place)
            if (try? KeySetJSONDecoder(source: .remote).decode(Model.self, from: answered ?? Data())) == nil {
                current = try await exchange.send(
                    makeRecordRequest(url: recordURL, method: "GET", endpoints: endpoints))
                if [404, 410].contains(current.head.status) {
                    return .conflict(serverRecord: nil, version: Self.absentRecordVersion)
                }
                _ = try HTTPExchange.successBody(current)
            }
            return .conflict(
                serverRecord: Self.answerRecord(current.body, at: place) ?? current.body,
                version: Self.recordVersion(of: current, endpoints: endpoints))
        case 401, 408, 429, 500...599:
            _ = try HTTPExchange.successBody(response)  // throws: transient, rate limited, or unauthorized
            throw RemoteSourceError.httpStatus(status, body: "")
        default:
            // Anything else is a refusal the library cannot act on (a redirect it may not follow, 400,
            // 403, 415, 422, a create answered 404): the change is kept, held with the answer. A create
            // refused with 400 or 404 may be bad credentials in disguise: the declared check tells.
            if isCreate, status == 400 || status == 404 {
                try await exchange.verifyCredentials(before: "a create answered \(status)")
            }
            return .rejected(
                reason: FailedChange<Model.ID>.reason(
                    Self.refusal(response, for: change, isCreate: isCreate),
                    naming: refusedFields(in: response.body, endpoints: endpoints)))
        }
    }

    /// The report of a refusal: the status, the redirect target, and the start of the body.
    private static func refusal(_ response: HTTPExchange.Response, for change: RemoteChange<Model.ID>, isCreate: Bool)
        -> String
    {
        let status = response.head.status
        var text = "HTTP \(status)"
        if (300...399).contains(status) {
            let target = response.head.headers["location"].map { " to \($0.prefix(200))" } ?? ""
            text +=
                " (a redirect\(target) that a write may not follow: declare the URL the server expects, e.g. "
                + "trailingSlash: true)"
        } else if isCreate, status == 404 || status == 410 {
            text += " (no collection at this URL to create the record in)"
        }
        let body = String(decoding: response.body.prefix(512), as: UTF8.self)
        return body.isEmpty ? text : text + ": " + body
    }

    /// `{base}/{path}`, ending with `/` when declared so.
    static func collectionURL(_ base: URL, _ endpoints: HTTPRecordEndpoints) throws -> URL {
        let collection = endpoints.path.isEmpty ? base : base.appendingPathComponent(endpoints.path)
        guard endpoints.trailingSlash, !collection.absoluteString.hasSuffix("/") else { return collection }
        guard var components = URLComponents(url: collection, resolvingAgainstBaseURL: false) else {
            throw RemoteSourceError.invalidResponse("cannot build a URL from \(collection)")
        }
        components.percentEncodedPath += "/"
        guard let url = components.url else {
            throw RemoteSourceError.invalidResponse("cannot build a URL from \(collection)")
        }
        return url
    }

    /// The record's version in an answer: its entity tag (preferred with `If-Match`) or the version
    /// field of the record at the declared answer path, as JSON text after ``recordVersionPrefix``.
    static func recordVersion(of response: HTTPExchange.Response, endpoints: HTTPRecordEndpoints) -> SyncCursor {
        let concurrency = endpoints.concurrency
        let tag = response.head.headers["etag"].map { JSONValue.string($0).jsonString() }
        let record = answerRecord(response.body, at: endpoints.writes.answerRecordPath) ?? response.body
        let own = endpoints.versionField.flatMap { try? versionJSON(in: record, field: $0) }
        let version: String? = if case .ifMatch = concurrency { tag ?? own } else { own ?? tag }
        return SyncCursor(rawValue: recordVersionPrefix + (version ?? ""))
    }

    /// The JSON text at the path `field` (dotted, as in key sets) in a record's JSON; `nil` when absent
    /// or `null`.
    private static func versionJSON(in record: Data, field: String) throws -> String? {
        guard let body = try? JSONBody(record), let range = try body.range(at: DataPath(dotted: field)) else {
            return nil
        }
        let text = String(decoding: body.data(range), as: UTF8.self)
        return text == "null" ? nil : text
    }

    /// The record with its version field's value replaced by `version` (JSON text), byte for byte elsewhere.
    private static func replacingVersion(in record: Data, field: String, with version: String) throws -> Data {
        guard let body = try? JSONBody(record), let range = try body.range(at: DataPath(dotted: field)) else {
            return record
        }
        var bytes = body.bytes
        bytes.replaceSubrange(range, with: Array(version.utf8))
        return Data(bytes)
    }

    /// `version` (JSON text) as an entity tag: a received tag as it came, a version field's value quoted.
    static func entityTag(_ version: String) -> String {
        guard let value = try? JSONValue(parsing: version), let text = JSONBody.text(of: value) else {
            return "\"\(version)\""
        }
        if text.hasPrefix("\"") || text.hasPrefix("W/\"") { return text }
        return "\"\(text)\""
    }

    /// `{collection}/{id}`, the id percent-encoded as one path segment (a string id as its text), and
    /// `/` after it when declared so.
    static func url(of id: Model.ID, in collection: URL, trailingSlash: Bool) throws -> URL {
        let json = try JSONEncoder().encode([id])
        guard let body = try? JSONBody(json), let elements = try body.elements(of: body.root),
            let first = elements.first,
            let text = try JSONBody.text(of: body.value(first))
        else { throw RemoteSourceError.invalidResponse("the id \(id) has no text form for a URL") }
        guard var components = URLComponents(url: collection, resolvingAgainstBaseURL: false) else {
            throw RemoteSourceError.invalidResponse("cannot build a URL from \(collection)")
        }
        let path = components.percentEncodedPath
        components.percentEncodedPath =
            (path.hasSuffix("/") ? path : path + "/") + HTTPRequestHead.percentEncodedQueryValue(text)
            + (trailingSlash ? "/" : "")
        guard let url = components.url else {
            throw RemoteSourceError.invalidResponse("cannot build a URL for id \(id)")
        }
        return url
    }
}

extension HTTPRecordEndpoints.Concurrency {
    /// Whether the version travels in the record's body.
    var isInBody: Bool {
        if case .versionInBody = self { return true }
        return false
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

    package var deletionVersionField: String? {
        guard case .perRecord(let endpoints) = api.push, case .ifMatch = endpoints.concurrency else { return nil }
        return endpoints.versionField
    }

    package var deletionBasePrefix: String { Self.recordVersionPrefix }
}
