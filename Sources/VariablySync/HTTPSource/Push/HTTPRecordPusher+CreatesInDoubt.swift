import Foundation
import VariablyCodable

// MARK: - Creates in doubt, found by their client reference or their own id

extension HTTPRecordPusher {
    /// A create in doubt that the server has (found by its client reference): the record as this device
    /// has it now is sent as an update of the server's record (it may have been edited since the first
    /// request), and the answer is the create's, with the server's record and id. `nil` when the server
    /// does not have it.
    func adoptCreate(
        _ change: RemoteChange<Model.ID>, record: Data, reference: HTTPRecordEndpoints.ClientReference,
        in collection: URL,
        endpoints: HTTPRecordEndpoints
    ) async throws -> (PushOutcome, Data?)? {
        guard let found = try await createdRecord(record, reference: reference, in: collection) else { return nil }
        // Created, then deleted by another client: the create's record is gone from the server.
        if let body = try? JSONBody(found), try api.pull.isDeletion(body.root, in: body) {
            return (.conflict(serverRecord: nil, version: Requests.absentRecordVersion), nil)
        }
        guard let body = try? JSONBody(found), let idRange = try body.range(at: api.pull.idPath, in: body.root),
            let id = try? RecordIDDecoder<Model>().id(from: body.data(idRange))
        else {
            throw RemoteSourceError.invalidResponse(
                "the record found by \(reference.query) has no \"\(api.pull.idKey)\"")
        }
        let recordURL = try Requests.url(of: id, in: collection, trailingSlash: endpoints.trailingSlash)
        var request = requests.makeRecordRequest(
            url: recordURL, method: endpoints.update.rawValue, endpoints: endpoints)
        // The update names the server's record: its id, not the provisional one, where a body carries it
        // (JSON:API's `data.id`, which the server checks against the URL).
        let adopted = try Requests.replacing(
            api.pull.idPath, in: record, with: String(decoding: body.data(idRange), as: UTF8.self))
        try requests.setWriteBody(of: &request, record: adopted, change: nil, isCreate: false, endpoints: endpoints)
        request.headers.append(("Idempotency-Key", change.idempotencyKey))
        let response = try await exchange.send(request)
        var updated = change
        updated.isNew = false
        let outcome = try await outcome(
            of: response, for: updated, isCreate: false, recordURL: recordURL, endpoints: endpoints)
        guard case .accepted = outcome else { return (outcome, nil) }
        return (outcome, Requests.answerRecord(response.body, at: endpoints.writes.answerRecordPath) ?? found)
    }

    /// A create in doubt whose id this device chose (PocketBase, a `PUT` of a new record): the id is its
    /// own reference. The server's record with that id is the create's when it holds every field sent
    /// but the server's own stamps (read-only fields, the version, the changed-since field) (accepted,
    /// with the server's record); a record that differs is a conflict, which the repository's
    /// policy settles. `nil` when the server has no record with the id (a provisional id never has one),
    /// and the create goes as usual.
    func adoptCreate(
        _ change: RemoteChange<Model.ID>, record: Data, at recordURL: URL, endpoints: HTTPRecordEndpoints
    ) async throws -> (PushOutcome, Data?)? {
        let found: Data
        let version: RecordVersion
        if let id = HTTPCreatesFound.text(at: api.pull.idPath, in: record), let listed = createsFound.byID[id] {
            // Found (or proven absent) with the other creates in doubt, by one request.
            guard let listed else { return nil }
            (found, version) = (listed, Requests.recordVersion(ofListed: listed, endpoints: endpoints))
        } else {
            let response = try await exchange.send(
                requests.makeRecordRequest(url: recordURL, method: "GET", endpoints: endpoints))
            // No such record; `400`: an id the server would never assign (a provisional one), which it
            // cannot have.
            if [400, 404, 410].contains(response.head.status) { return nil }
            let answer = try HTTPExchange.successBody(response)
            found = Requests.answerRecord(answer, at: endpoints.writes.answerRecordPath) ?? answer
            version = Requests.recordVersion(of: response, endpoints: endpoints)
        }
        if let body = try? JSONBody(found), try api.pull.isDeletion(body.root, in: body) {
            return (.conflict(serverRecord: nil, version: Requests.absentRecordVersion), nil)
        }
        // The server's own stamps (its version, its write time) differ from what any create sent.
        let stamps = [endpoints.versionField, api.pull.changedSince?.field].compactMap { $0 }
        let removed = Set((Array(endpoints.readOnlyFields) + stamps).map { DataPath(dotted: $0).keys })
        func holds(_ record: Data) throws -> Bool {
            guard let json = try? JSONBody(record) else { return false }
            let sent = Data(try HTTPWriteBody(json, json.root).keeping(only: nil, removing: removed).bytes)
            return RemoteChange<Model.ID>.record(found, holds: sent, paths: nil)
        }
        if try holds(record) { return (.accepted(version: version), found) }
        // A record as the lost create (or a later send of it) sent it, edited here since: the server holds
        // this device's own create, and the edit goes on top of it as an update (not a conflict that drops
        // the edit).
        let sent = change.createdRecords.isEmpty ? [change.createdRecord].compactMap { $0 } : change.createdRecords
        if try sent.contains(where: holds) {
            var update = change
            update.isNew = false
            update.mayHaveBeenApplied = false
            update.changedKeys = nil
            update.changedPaths = nil
            update.baseVersion = version
            let (outcome, _) = try await pushRecord(update, to: endpoints)
            return (outcome, nil)
        }
        return (.conflict(serverRecord: found, version: version), nil)
    }

    /// Deletes the server's copy of a record created here whose create is in doubt, found by the client
    /// reference of `created` (the record as the create sent it): accepted when the server holds none,
    /// or only a tombstone, as a deletion wants.
    func deleteCreated(
        _ created: Data, reference: HTTPRecordEndpoints.ClientReference, in collection: URL,
        endpoints: HTTPRecordEndpoints
    ) async throws -> PushOutcome {
        guard let found = try await createdRecord(created, reference: reference, in: collection),
            let body = try? JSONBody(found), try !api.pull.isDeletion(body.root, in: body)
        else { return .accepted(version: Requests.absentRecordVersion) }
        guard let idRange = try body.range(at: api.pull.idPath, in: body.root),
            let id = try? RecordIDDecoder<Model>().id(from: body.data(idRange))
        else {
            throw RemoteSourceError.invalidResponse(
                "the record found by \(reference.query) has no \"\(api.pull.idKey)\"")
        }
        let recordURL = try Requests.url(of: id, in: collection, trailingSlash: endpoints.trailingSlash)
        let response = try await exchange.send(
            requests.makeRecordRequest(url: recordURL, method: "DELETE", endpoints: endpoints))
        // Gone already is what a deletion wants; any other failure throws, and the deletion stays queued.
        if ![404, 410].contains(response.head.status) { _ = try HTTPExchange.successBody(response) }
        return .accepted(version: Requests.absentRecordVersion)
    }

    /// The record the server holds with the client reference of `record`, looked up in the collection
    /// with the reference's query (`GET {collection}?client_id=…`); `nil` when it holds none.
    func createdRecord(
        _ record: Data, reference: HTTPRecordEndpoints.ClientReference, in collection: URL
    ) async throws -> Data? {
        let field = DataPath(dotted: reference.field)
        guard let body = try? JSONBody(record), let range = try body.range(at: field),
            let value = try? body.value(range), value != .null, let text = JSONBody.text(of: value),
            var components = URLComponents(url: collection, resolvingAgainstBaseURL: false)
        else { return nil }
        // Found (or proven absent) with the other creates in doubt, by one request.
        if let listed = createsFound.byReference[text.lowercased()] { return listed }
        let query =
            HTTPRequestHead.percentEncodedQueryValue(reference.query) + "="
            + HTTPRequestHead.percentEncodedQueryValue(text)
        components.percentEncodedQuery = components.percentEncodedQuery.map { $0 + "&" + query } ?? query
        guard let url = components.url else { return nil }
        let request =
            if case .perRecord(let endpoints) = api.push {
                requests.makeRecordRequest(url: url, method: "GET", endpoints: endpoints)
            } else {
                exchange.request(url: url, method: "GET")
            }
        let answer = try HTTPExchange.successBody(await exchange.send(request))
        guard let list = try? JSONBody(answer) else {
            throw RemoteSourceError.invalidResponse("the look-up of a create by \(reference.query) did not answer JSON")
        }
        let array = list.bytes.first == UInt8(ascii: "[") ? list.root : try list.range(at: api.pull.records)
        guard let array, let elements = try list.elements(of: array) else {
            throw RemoteSourceError.invalidResponse(
                "the look-up of a create by \(reference.query) answered no records array at \(api.pull.records)")
        }
        for element in elements {
            guard let member = try list.range(at: field, in: element) else { continue }
            let found = try list.value(member)
            // A UUID may come back in another case than it was sent (Django writes it in lower case).
            if found == value || JSONBody.text(of: found).map({ $0.lowercased() == text.lowercased() }) == true {
                return list.data(element)
            }
        }
        return nil
    }
}
