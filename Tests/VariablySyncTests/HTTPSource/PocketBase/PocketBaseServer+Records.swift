import Foundation
import VariablyHTTP

// MARK: - Server-side writes and reads, as another client would

extension PocketBaseServer {
    /// A `users` record as PocketBase stores and writes it.
    struct ServerUser: Decodable, Equatable {
        var id: String
        var user_name: String
        var email_address: String
        var age: Int
        var is_active: Bool
        /// As PocketBase writes it: `2026-11-27 14:58:16.233Z`.
        var updated: String
    }

    /// Creates a record of `collection` with `fields` (an `id` among them: 15 characters of `[a-z0-9]`,
    /// else PocketBase makes one), with the superuser's token; returns its id.
    @discardableResult
    func create(_ collection: String, fields: [String: Any]) async throws -> String {
        let answer = try await call("POST", "api/collections/\(collection)/records", body: fields)
        guard let id = (try JSONSerialization.jsonObject(with: answer) as? [String: Any])?["id"] as? String else {
            throw Self.failure("the create answered no id: \(String(decoding: answer, as: UTF8.self))")
        }
        return id
    }

    /// Sets `fields` of record `id` of `collection` (`PATCH`), with the superuser's token: a new `updated`.
    func update(_ collection: String, id: String, fields: [String: Any]) async throws {
        try await call("PATCH", "api/collections/\(collection)/records/\(id)", body: fields)
    }

    /// Deletes record `id` of `collection` with the superuser's token: for good (relations declared
    /// `cascadeDelete` take their records with it), or, for a comment where the server keeps tombstones
    /// (``CommentDeletions/keptAsTombstones``), by setting its `deleted`.
    func delete(_ collection: String, id: String) async throws {
        try await call("DELETE", "api/collections/\(collection)/records/\(id)", body: nil)
    }

    /// Every record of `collection`, by id, read page after page of 1,000 (PocketBase's largest `perPage`)
    /// with the superuser's token, until `page` reaches `totalPages`.
    func records<Record: Decodable>(_ collection: String, as type: Record.Type) async throws -> [Record] {
        var records: [Record] = []
        var page = 1
        while true {
            let data = try await call(
                "GET", "api/collections/\(collection)/records?sort=id&perPage=1000&page=\(page)", body: nil)
            let decoded = try JSONDecoder().decode(Page<Record>.self, from: data)
            records += decoded.items
            guard page < decoded.totalPages else { return records }
            page += 1
        }
    }

    /// A page of a list, as PocketBase answers it (`page`, `perPage` and `totalItems` left out).
    private struct Page<Record: Decodable>: Decodable {
        var items: [Record]
        var totalPages: Int
    }

    /// The `users` records, by id.
    func users() async throws -> [ServerUser] {
        try await records("users", as: ServerUser.self)
    }

    /// The fields of seeded user `index`: `user<index>`, `user<index>@example.com`, an age of
    /// `20 + index % 60`, active when `index` is even.
    static func seedFields(_ index: Int) -> [String: Any] {
        [
            "user_name": "user\(index)", "email_address": "user\(index)@example.com", "age": 20 + index % 60,
            "is_active": index % 2 == 0,
        ]
    }

    /// Creates users 1 to `count` (``seedFields(_:)``) through the batch API, ``batchLimit`` in each
    /// request (one transaction each); returns their ids in order.
    @discardableResult
    func seedUsers(_ count: Int) async throws -> [String] {
        var ids: [String] = []
        for start in stride(from: 1, through: count, by: Self.batchLimit) {
            let requests: [[String: Any]] = (start...min(count, start + Self.batchLimit - 1)).map {
                ["method": "POST", "url": "/api/collections/users/records", "body": Self.seedFields($0)]
            }
            let answer = try await call("POST", "api/batch", body: ["requests": requests])
            let results = try JSONSerialization.jsonObject(with: answer) as? [[String: Any]] ?? []
            for result in results {
                guard let id = (result["body"] as? [String: Any])?["id"] as? String else {
                    throw Self.failure("a batch create answered no id: \(result)")
                }
                ids.append(id)
            }
        }
        return ids
    }

    // MARK: - Requests

    /// Sends `method` `path` with the superuser's token and `body` as JSON; returns the answer's body,
    /// or throws the status and body of an answer other than 2xx.
    @discardableResult
    private func call(_ method: String, _ path: String, body: [String: Any]?) async throws -> Data {
        try await Self.call(baseURL, method, path, token: superuserToken, body: body)
    }

    /// Sends `method` `baseURL/path` with `token` (none if `nil`) and `body` as JSON; returns the answer's
    /// body, or throws the status and body of an answer other than 2xx.
    @discardableResult
    static func call(
        _ baseURL: URL, _ method: String, _ path: String, token: String?, body: [String: Any]?
    ) async throws -> Data {
        let answer = try await send(baseURL, method, path, token: token, body: body)
        guard (200..<300).contains(answer.status) else {
            throw failure(
                "\(method) \(path) answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
        return answer.body
    }

    /// Sends `method` `baseURL/path` with `token` (none if `nil`) and `body` as JSON; returns the status and
    /// body, whatever the status.
    static func send(
        _ baseURL: URL, _ method: String, _ path: String, token: String?, body: [String: Any]?
    ) async throws -> (status: Int, body: Data) {
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", token)) }
        // Through `URLSessionTransport`, which never blocks the calling thread: URLSession's own
        // `data(for:)` waits for the session's queue on the calling cooperative thread.
        let request = HTTPTransportRequest(
            method: method, url: URL(string: path, relativeTo: baseURL)!.absoluteURL, headers: headers,
            body: try body.map { try JSONSerialization.data(withJSONObject: $0) }, timeout: 60)
        let response = try await URLSessionTransport.shared.send(request)
        var data = Data()
        for try await chunk in response.body { data.append(chunk) }
        return (response.status, data)
    }

    /// An error whose description is `message`.
    static func failure(_ message: String) -> CocoaError {
        CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "PocketBase: \(message)"])
    }
}
