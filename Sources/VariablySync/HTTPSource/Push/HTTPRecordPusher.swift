import Foundation
import VariablyCodable

/// Pushes changes to per-record endpoints (``HTTPPushShape/perRecord(_:)``) over an ``HTTPExchange``:
/// one request per change (``pushRecords(_:to:willSend:onResult:)``, a window of them at a time, or in
/// batches), after the look-ups a change needs (a create in doubt, a write with no version kept), each
/// answer read as the change's outcome. ``HTTPRecordRequests`` builds the requests.
struct HTTPRecordPusher<Model: VariablyCodable & Identifiable & Sendable>: Sendable
where Model.ID: Codable & Sendable {
    typealias Requests = HTTPRecordRequests<Model>

    /// The URL the endpoint paths are appended to.
    let baseURL: URL
    /// The API's shape: the pull's tells where a record's id and deletion marker are.
    let api: HTTPAPI
    /// What sends each request.
    let exchange: HTTPExchange
    /// The creates in doubt found before the push, many at a time.
    var createsFound = HTTPCreatesFound()

    /// The builder of the endpoints' requests.
    var requests: Requests { Requests(exchange: exchange, idPath: api.pull.idPath) }

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
        let collection = try Requests.collectionURL(baseURL, endpoints)
        let recordURL = try Requests.url(of: change.id, in: collection, trailingSlash: endpoints.trailingSlash)
        // The version this change is based on, as the server sent it: pulled, or from an accepted push.
        // A record with no version kept compares its pre-edit row instead (a deletion's base read from
        // the local row is not the server's: see `baseVersion(of:at:endpoints:)`).
        let acknowledged = change.baseVersion.flatMap { base -> String? in
            guard change.preEditRecord == nil, base.rawValue.hasPrefix(Requests.recordVersionPrefix) else {
                return nil
            }
            let text = String(base.rawValue.dropFirst(Requests.recordVersionPrefix.count))
            return text.isEmpty || text == "null" ? nil : text
        }
        // The server answered that it has no such record (a conflict with its deletion, kept local).
        let isAbsent = change.baseVersion == Requests.absentRecordVersion
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
            request = try requests.deleteRequest(url: recordURL, basedOn: known, endpoints: endpoints)
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
            request = try requests.upsertRequest(
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
        let collection = try Requests.collectionURL(baseURL, endpoints)
        let outcome = try await outcome(
            of: response, for: change, isCreate: isCreate, recordURL: recordURL, endpoints: endpoints)
        // A create in doubt that the server refused (its unique client reference taken) may have been
        // applied by the first request, still in progress when the look-up above ran: look again.
        // The look-up asks again: what was found before the push is older than the refusal.
        var askingAgain = self
        askingAgain.createsFound = HTTPCreatesFound()
        if isCreate, change.mayHaveBeenApplied, case .rejected = outcome, case .upsert(let record) = change.operation,
            let adopted = try await askingAgain.adoptCreateInDoubt(
                change, record: record, collection: collection, recordURL: recordURL, endpoints: endpoints)
        {
            return adopted
        }
        // The record the server stored, at the declared place in its answer; none in a `204` answer: the
        // record stays as sent.
        guard isCreate, case .accepted = outcome,
            let stored = Requests.answerRecord(response.body, at: endpoints.writes.answerRecordPath)
        else { return (outcome, nil) }
        return (outcome, stored)
    }

    /// A create whose answer was lost, found on the server by its client reference or, without one that
    /// finds it, by the id this device chose: adopted instead of created twice (see ``adoptCreate(_:record:at:endpoints:)``).
    /// `nil` when the server has neither.
    private func adoptCreateInDoubt(
        _ change: RemoteChange<Model.ID>, record: Data, collection: URL, recordURL: URL, endpoints: HTTPRecordEndpoints
    ) async throws -> (PushOutcome, Data?)? {
        if let reference = endpoints.clientReference {
            if let adopted = try await adoptCreate(
                change, record: record, reference: reference, in: collection, endpoints: endpoints)
            {
                return adopted
            }
            // The server holds no record with the reference the create carries: it never got the create,
            // under whatever id.
            if HTTPCreatesFound.text(at: DataPath(dotted: reference.field), in: record) != nil { return nil }
        }
        return try await adoptCreate(change, record: record, at: recordURL, endpoints: endpoints)
    }

    /// The version a change with no version kept is based on, or the outcome that settles it unsent.
    enum BaseVersion {
        /// Send the change based on this version (JSON text; `nil` when the server sends none).
        case version(String?)
        /// Do not send it: the server has no such record (a deletion's goal; an edit's conflict), or
        /// its record differs from the one this device pulled (a conflict for the policy).
        case settled(PushOutcome)
    }

    /// The base of `change`, a change of a record with no version kept (cached before the source
    /// declared one): the server's current record is read and compared with the record as this device
    /// pulled it (``RemoteChange/preEditRecord``). The same record: its version is the base. Another
    /// one: a conflict, settled by the policy as a `409` or `412` would be, never an edit sent on top
    /// of a version this device never saw. A change queued before pre-edit rows were kept (by an older
    /// version, or while the source declared no version) has nothing to compare with, and takes the
    /// server's current version.
    ///
    /// - Throws: ``RemoteSourceError/invalidResponse(_:)`` when the server's record does not decode as
    ///   the model, ``RemoteSourceError/httpStatus(_:body:)`` for a failed read.
    func baseVersion(
        of change: RemoteChange<Model.ID>, at recordURL: URL, endpoints: HTTPRecordEndpoints
    ) async throws -> BaseVersion {
        let current = try await exchange.send(
            requests.makeRecordRequest(url: recordURL, method: "GET", endpoints: endpoints))
        if [404, 410].contains(current.head.status) {
            if case .delete = change.operation { return .settled(.accepted(version: Requests.absentRecordVersion)) }
            return .settled(.conflict(serverRecord: nil, version: Requests.absentRecordVersion))
        }
        let answer = try HTTPExchange.successBody(current)
        let body = Requests.answerRecord(answer, at: endpoints.writes.answerRecordPath) ?? answer
        let version = Requests.recordVersion(of: current, endpoints: endpoints)
        if let preEdit = change.preEditRecord {
            let isUnchanged: Bool
            do {
                isUnchanged = try preEdit.isUnchanged(body)
            } catch {
                throw RemoteSourceError.invalidResponse(
                    "record \(change.id) as the server sends it does not decode as \(Model.self): \(error)")
            }
            guard isUnchanged else { return .settled(.conflict(serverRecord: body, version: version)) }
        }
        let text = String(version.rawValue.dropFirst(Requests.recordVersionPrefix.count))
        return .version(text.isEmpty ? nil : text)
    }

    /// The outcome of `change` from the server's answer to its request.
    func outcome(
        of response: HTTPExchange.Response, for change: RemoteChange<Model.ID>, isCreate: Bool, recordURL: URL,
        endpoints: HTTPRecordEndpoints
    ) async throws -> PushOutcome {
        let status = response.head.status
        let isDelete = if case .delete = change.operation { true } else { false }
        switch status {
        case 200...299:
            return .accepted(version: Requests.recordVersion(of: response, endpoints: endpoints))
        case let status where status != 401 && exchange.refusesCredentials(status):
            // A status the API declares a refusal of the credentials (403): the push stops, nothing settled.
            throw RemoteSourceError.httpStatus(status, body: String(decoding: response.body.prefix(200), as: UTF8.self))
        case 404 where !isCreate, 410 where !isCreate:
            // Deleted on the server: what a delete wanted; for an update, a conflict with the deletion.
            // Unless the server answers bad credentials so: the declared check tells.
            try await exchange.verifyCredentials(before: "\(isDelete ? "a delete" : "an update") answered \(status)")
            return isDelete
                ? .accepted(version: Requests.absentRecordVersion)
                : .conflict(serverRecord: nil, version: Requests.absentRecordVersion)
        case 409 where !isCreate, 412 where !isCreate:
            var current = response
            let place = endpoints.writes.answerRecordPath
            // Many APIs answer a conflict with an error object: only a body that reads as the model is
            // the server's record; a conflict settled with an error object would never settle.
            let answered = Requests.answerRecord(response.body, at: place)
            if (try? KeySetJSONDecoder(source: .remote).decode(Model.self, from: answered ?? Data())) == nil {
                current = try await exchange.send(
                    requests.makeRecordRequest(url: recordURL, method: "GET", endpoints: endpoints))
                if [404, 410].contains(current.head.status) {
                    return .conflict(serverRecord: nil, version: Requests.absentRecordVersion)
                }
                _ = try HTTPExchange.successBody(current)
            }
            return .conflict(
                serverRecord: Requests.answerRecord(current.body, at: place) ?? current.body,
                version: Requests.recordVersion(of: current, endpoints: endpoints))
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
                    Requests.refusal(response, for: change, isCreate: isCreate),
                    naming: requests.refusedFields(in: response.body, endpoints: endpoints)))
        }
    }
}
