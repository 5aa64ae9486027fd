public import Foundation
public import VariablyCodable

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A ``RemoteSource`` that speaks JSON over HTTP with `URLSession`.
///
/// It expects two endpoints under ``baseURL``:
///
/// **Pull** — `GET {baseURL}/changes?after={cursor}&limit={n}` (no `after` for the first page) answers
/// `200` with
/// ```json
/// {"records": [{"id": 1, "user_name": "ada", ...}], "deleted": [7, 9], "next_cursor": "1042", "has_more": true}
/// ```
/// where `records` are objects in the model's remote keys and `deleted` are ids.
///
/// **Push** — `POST {baseURL}/changes` with
/// ```json
/// {"changes": [{"idempotency_key": "4F1C...", "id": 1, "operation": "upsert", "base_cursor": "1042",
///               "supersedes": ["0B7E..."], "record": {"id": 1, "user_name": "ada", ...}},
///              {"idempotency_key": "9A0B...", "id": 7, "operation": "delete", "base_cursor": null}]}
/// ```
/// answers `200` with one result per change, matched by idempotency key:
/// ```json
/// {"results": [{"idempotency_key": "4F1C...", "status": "accepted", "version": "1043"},
///              {"idempotency_key": "9A0B...", "status": "conflict", "version": "1040", "record": {...}},
///              {"idempotency_key": "...", "status": "rejected", "reason": "email is required"}]}
/// ```
/// A conflict's `record` is `null` when the server deleted the record. `supersedes` lists keys of earlier
/// changes to the same record whose outcome the client never received: a record last written by one of
/// them is the client's own write and must not be reported as a conflict. Statuses 408, 429 and 5xx, and
/// connection failures, are thrown as transient errors (the repository retries them); other statuses
/// as ``RemoteSourceError/httpStatus(_:body:)``.
///
/// ```swift
/// let remote = HTTPRemoteSource<User>(baseURL: URL(string: "https://api.example.com/v1/users")!)
/// let repository = try Repository(database: database, remote: remote)
/// ```
public struct HTTPRemoteSource<Model: VariablyCodable & Identifiable & Sendable>: RemoteSource
where Model.ID: Codable & Sendable {
    /// The URL the endpoint paths are appended to.
    public let baseURL: URL
    /// Headers sent with every request, e.g. `Authorization`.
    public let headers: [String: String]
    /// How long one request may take.
    public let timeout: TimeInterval
    private let session: URLSession

    /// Creates a source for the endpoints under `baseURL`.
    ///
    /// ```swift
    /// let remote = HTTPRemoteSource<User>(
    ///     baseURL: URL(string: "http://127.0.0.1:8080/users")!, headers: ["Authorization": "Bearer ..."])
    /// ```
    ///
    /// - Parameters:
    ///   - baseURL: The collection's URL; `/changes` is appended.
    ///   - headers: Headers for every request.
    ///   - timeout: Seconds one request may take.
    ///   - session: The session to use; `URLSession.shared` by default.
    public init(
        baseURL: URL, headers: [String: String] = [:], timeout: TimeInterval = 30, session: URLSession = .shared
    ) {
        self.baseURL = baseURL
        self.headers = headers
        self.timeout = timeout
        self.session = session
    }

    // MARK: - RemoteSource

    /// `GET {baseURL}/changes?after={cursor}&limit={limit}`.
    ///
    /// ```swift
    /// let page = try await remote.pull(after: nil, limit: 500)
    /// ```
    ///
    /// - Throws: ``RemoteSourceError`` for failures, bad statuses and malformed envelopes.
    public func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Model.ID> {
        var components = URLComponents(
            url: baseURL.appendingPathComponent("changes"), resolvingAgainstBaseURL: false)
        var query = [URLQueryItem(name: "limit", value: String(limit))]
        if let cursor { query.insert(URLQueryItem(name: "after", value: cursor.rawValue), at: 0) }
        components?.queryItems = query
        guard let url = components?.url else {
            throw RemoteSourceError.invalidResponse("cannot build a URL from \(baseURL)")
        }
        let body = try await send(makeRequest(url: url, method: "GET"))
        let envelope: PullEnvelope
        do {
            envelope = try JSONDecoder().decode(PullEnvelope.self, from: body)
        } catch {
            throw RemoteSourceError.invalidResponse("the pull response is not a page: \(error)")
        }
        // The records stay the server's JSON: cut them out of the envelope for the repository to decode.
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let records = object["records"] as? [Any],
            let recordsJSON = try? JSONSerialization.data(withJSONObject: records)
        else {
            throw RemoteSourceError.invalidResponse("the pull response has no \"records\" array")
        }
        return RemotePage(
            records: recordsJSON, deletedIDs: envelope.deleted, nextCursor: envelope.nextCursor,
            hasMore: envelope.hasMore)
    }

    /// `POST {baseURL}/changes` with every change; results are matched back by idempotency key.
    ///
    /// ```swift
    /// let results = try await remote.push(changes)
    /// ```
    ///
    /// - Throws: ``RemoteSourceError`` for failures, bad statuses and answers missing a change.
    public func push(_ changes: [RemoteChange<Model.ID>]) async throws -> [PushResult<Model.ID>] {
        var list: [[String: Any]] = []
        for change in changes {
            var item: [String: Any] = [
                "idempotency_key": change.idempotencyKey,
                "id": try Self.jsonValue(of: change.id),
                "base_cursor": change.baseCursor.map { $0.rawValue as Any } ?? NSNull(),
                "supersedes": change.supersedes,
            ]
            switch change.operation {
            case .upsert(let record):
                item["operation"] = "upsert"
                item["record"] = try JSONSerialization.jsonObject(with: record)
            case .delete:
                item["operation"] = "delete"
            }
            list.append(item)
        }
        var request = makeRequest(url: baseURL.appendingPathComponent("changes"), method: "POST")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["changes": list])
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let body = try await send(request)
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let results = object["results"] as? [[String: Any]]
        else {
            throw RemoteSourceError.invalidResponse("the push response has no \"results\" array")
        }
        var outcomes: [String: PushOutcome] = [:]
        for result in results {
            guard let key = result["idempotency_key"] as? String else {
                throw RemoteSourceError.invalidResponse("a push result has no idempotency_key")
            }
            outcomes[key] = try Self.outcome(of: result)
        }
        return try changes.map { change in
            guard let outcome = outcomes[change.idempotencyKey] else {
                throw RemoteSourceError.invalidResponse("no result for change \(change.idempotencyKey)")
            }
            return PushResult(idempotencyKey: change.idempotencyKey, id: change.id, outcome: outcome)
        }
    }

    // MARK: - Internals

    private struct PullEnvelope: Decodable {
        var deleted: [Model.ID]
        var nextCursor: SyncCursor
        var hasMore: Bool

        enum CodingKeys: String, CodingKey {
            case deleted
            case nextCursor = "next_cursor"
            case hasMore = "has_more"
        }
    }

    private func makeRequest(url: URL, method: String) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    private func send(_ request: URLRequest) async throws -> Data {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch let error as URLError {
            switch error.code {
            case .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet,
                .cannotFindHost, .dnsLookupFailed:
                throw RemoteSourceError.transient("\(request.httpMethod ?? "") \(request.url?.path ?? ""): \(error)")
            default:
                throw RemoteSourceError.unavailable("\(request.httpMethod ?? "") \(request.url?.path ?? ""): \(error)")
            }
        }
        guard let http = response as? HTTPURLResponse else {
            throw RemoteSourceError.invalidResponse("not an HTTP response")
        }
        guard (200...299).contains(http.statusCode) else {
            throw RemoteSourceError.httpStatus(http.statusCode, body: String(decoding: data, as: UTF8.self))
        }
        return data
    }

    private static func jsonValue(of id: Model.ID) throws -> Any {
        let data = try JSONEncoder().encode([id])
        guard let array = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) as? [Any],
            let value = array.first
        else { throw RemoteSourceError.invalidResponse("id \(id) does not encode as JSON") }
        return value
    }

    private static func outcome(of result: [String: Any]) throws -> PushOutcome {
        let version = (result["version"] as? String).map(SyncCursor.init(rawValue:))
        switch result["status"] as? String {
        case "accepted":
            guard let version else { throw RemoteSourceError.invalidResponse("accepted without a version") }
            return .accepted(version: version)
        case "rejected":
            return .rejected(reason: result["reason"] as? String ?? "rejected")
        case "conflict":
            guard let version else { throw RemoteSourceError.invalidResponse("conflict without a version") }
            let record: Data?
            if let object = result["record"], !(object is NSNull) {
                record = try JSONSerialization.data(withJSONObject: object)
            } else {
                record = nil
            }
            return .conflict(serverRecord: record, version: version)
        default:
            throw RemoteSourceError.invalidResponse("unknown status \(result["status"] ?? "nil")")
        }
    }
}
