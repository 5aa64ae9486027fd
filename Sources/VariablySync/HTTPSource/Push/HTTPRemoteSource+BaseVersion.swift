import Foundation
import VariablyCodable

// MARK: - The base of a change with no version kept

extension HTTPRemoteSource {
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
        let current = try await exchange.send(makeRecordRequest(url: recordURL, method: "GET", endpoints: endpoints))
        if [404, 410].contains(current.head.status) {
            if case .delete = change.operation { return .settled(.accepted(version: Self.absentRecordVersion)) }
            return .settled(.conflict(serverRecord: nil, version: Self.absentRecordVersion))
        }
        let answer = try HTTPExchange.successBody(current)
        let body = Self.answerRecord(answer, at: endpoints.writes.answerRecordPath) ?? answer
        let version = Self.recordVersion(of: current, endpoints: endpoints)
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
        let text = String(version.rawValue.dropFirst(Self.recordVersionPrefix.count))
        return .version(text.isEmpty ? nil : text)
    }

    /// `DELETE {path}/{id}`, based on `known` (JSON text) when the endpoints check versions: `If-Match`,
    /// or with ``HTTPRecordEndpoints/Concurrency/versionInBody`` the declared
    /// ``HTTPRecordEndpoints/DeleteVersion`` (a query parameter, or a JSON body with the version field).
    func deleteRequest(url: URL, basedOn known: String?, endpoints: HTTPRecordEndpoints) throws -> HTTPRequestHead {
        guard let known else { return makeRecordRequest(url: url, method: "DELETE", endpoints: endpoints) }
        switch endpoints.concurrency {
        case .none:
            return makeRecordRequest(url: url, method: "DELETE", endpoints: endpoints)
        case .ifMatch:
            var request = makeRecordRequest(url: url, method: "DELETE", endpoints: endpoints)
            request.headers.append(("If-Match", Self.entityTag(known)))
            return request
        case .versionInBody:
            switch endpoints.deleteVersion ?? .body {
            case .query(let name):
                let value = (try? JSONValue(parsing: known)).flatMap { JSONBody.text(of: $0) } ?? known
                guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                    throw RemoteSourceError.invalidResponse("cannot build a URL from \(url)")
                }
                let parameter =
                    HTTPRequestHead.percentEncodedQueryValue(name) + "="
                    + HTTPRequestHead.percentEncodedQueryValue(value)
                let query = components.percentEncodedQuery
                components.percentEncodedQuery = query.map { $0 + "&" + parameter } ?? parameter
                guard let withVersion = components.url else {
                    throw RemoteSourceError.invalidResponse("cannot build a URL from \(url) and \(parameter)")
                }
                return makeRecordRequest(url: withVersion, method: "DELETE", endpoints: endpoints)
            case .body:
                var request = makeRecordRequest(url: url, method: "DELETE", endpoints: endpoints)
                guard let field = endpoints.versionField else { return request }
                // `{"lock_version": 3}`; a nested path writes its objects (`{"meta": {"version": 3}}`).
                var json = known
                for key in DataPath(dotted: field).keys.reversed() {
                    json = "{" + JSONValue.string(key).jsonString() + ":" + json + "}"
                }
                request.body = Data(json.utf8)
                request.headers.append(("Content-Type", endpoints.writes.mediaType.of("DELETE")))
                return request
            }
        }
    }

}

extension HTTPRemoteSource: ClientReferencingSource {
    /// The declared client reference's field: a create whose record has it empty gets a new UUID.
    package var clientReferenceField: String? {
        guard case .perRecord(let endpoints) = api.push else { return nil }
        return endpoints.clientReference?.field
    }
}
