import Foundation
import VariablyCodable

/// The requests of per-record endpoints (``HTTPRecordEndpoints``) and what their answers carry: each
/// record's URL, the request that creates, updates or deletes it (its method, its version as
/// `If-Match` or in the body, its write body in the declared shape), the version an answer holds, the
/// report of a refusal. It sends nothing: ``HTTPRecordPusher`` sends what it builds.
struct HTTPRecordRequests<Model: VariablyCodable & Identifiable & Sendable>: Sendable
where Model.ID: Codable & Sendable {
    /// Gives each request the source's headers and `Accept`.
    let exchange: HTTPExchange
    /// The path of a record's id in its JSON (the pull shape's), which updates may carry.
    let idPath: DataPath

    /// Marks a push outcome's version as a record's version (an entity tag or the version field), not a
    /// sync cursor: the repository keeps it as the base of the record's next change.
    static var recordVersionPrefix: String { "record-version:" }

    /// The version of a record the server does not have (answered `404` or `410`): the next upsert of
    /// it creates it again, whatever version its JSON still carries.
    static var absentRecordVersion: RecordVersion { RecordVersion(rawValue: recordVersionPrefix + "null") }

    /// The request that creates or updates a record: its method, its body (the fields the endpoints
    /// send, the version where the body carries it, in the declared write shape) and its headers.
    ///
    /// - Parameter known: The version the change is based on, as the server sent it.
    func upsertRequest(
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

    /// The report of a refusal: the status, the redirect target, and the start of the body.
    static func refusal(_ response: HTTPExchange.Response, for change: RemoteChange<Model.ID>, isCreate: Bool)
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
    static func recordVersion(of response: HTTPExchange.Response, endpoints: HTTPRecordEndpoints) -> RecordVersion {
        let concurrency = endpoints.concurrency
        let tag = response.head.headers["etag"].map { JSONValue.string($0).jsonString() }
        let record = answerRecord(response.body, at: endpoints.writes.answerRecordPath) ?? response.body
        let own = endpoints.versionField.flatMap { try? versionJSON(in: record, field: $0) }
        let version: String? = if case .ifMatch = concurrency { tag ?? own } else { own ?? tag }
        return RecordVersion(rawValue: recordVersionPrefix + (version ?? ""))
    }

    /// The version of a record the server listed (an answer to a look-up of many): its version field's
    /// value, with no entity tag to read.
    static func recordVersion(ofListed record: Data, endpoints: HTTPRecordEndpoints) -> RecordVersion {
        let own = endpoints.versionField.flatMap { try? versionJSON(in: record, field: $0) }
        return RecordVersion(rawValue: recordVersionPrefix + (own ?? ""))
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
        try replacing(DataPath(dotted: field), in: record, with: version)
    }

    /// The record with the value at `path` replaced by `json` (JSON text), byte for byte elsewhere; the
    /// record as it is when it has no such member.
    static func replacing(_ path: DataPath, in record: Data, with json: String) throws -> Data {
        guard let body = try? JSONBody(record), let range = try body.range(at: path) else {
            return record
        }
        var bytes = body.bytes
        bytes.replaceSubrange(range, with: Array(json.utf8))
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
