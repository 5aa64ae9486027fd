import Foundation
import Testing
import UserSyncModels
import VariablyHTTP
import VariablySync

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Django REST Framework server itself, through plain `URLSession` requests (no library code): its
/// pages, its stock 404 past the last page and 301 for a missing trailing slash, and the `If-Match` mixin,
/// on its user endpoints.
// One test at a time, and one server across the suites (DRFServer.start waits its turn, hence the
// time limit): each starts its own Django, which takes a core for a second or more.
@Suite(.serialized, .timeLimit(.minutes(15)), .enabled(if: DRFServer.isAvailable, DRFServer.unavailableReason))
struct DRFServerTests {
    @Test func pagesNeedTheTokenAndEndWithDRFsInvalidPage() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.seed(5)

        let first = try await send(server, "GET", "page/users/?page=1&page_size=2")
        #expect(first.status == 200)
        let page = try #require(first.json as? [String: Any])
        #expect(page["count"] as? Int == 5)
        #expect((page["results"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [1, 2])
        #expect(page["next"] as? String == server.baseURL.absoluteString + "page/users/?page=2&page_size=2")

        let past = try await send(server, "GET", "page/users/?page=4&page_size=2")
        #expect(past.status == 404)
        #expect(past.json as? [String: String] == ["detail": "Invalid page."])

        let anonymous = try await send(server, "GET", "page/users/", authorized: false)
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate") == "Token")

        let log = try server.state().requests
        #expect(log.map(\.status) == [200, 404, 401])
        #expect(log.first?.path == "/api/page/users/?page=1&page_size=2")
        #expect(log.first?.authorization == "Token \(server.token)")
    }

    @Test func aWriteWithoutTheTrailingSlashIsRedirected() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        try server.create([User(id: 1, userName: "a")])

        let patch = try await send(server, "PATCH", "page/users/1", body: ["user_name": "b"])
        #expect(patch.status == 301)
        #expect(patch.header("Location") == "/api/page/users/1/")
        #expect(try server.state().users.first?.user_name == "a")

        let refused = try await send(server, "PATCH", "page/users/1/", body: ["user_name": "forbidden"])
        #expect(refused.status == 400)
        #expect(refused.json as? [String: [String]] == ["user_name": ["This name is not allowed."]])
    }

    @Test func theCheckedEndpointRefusesAStaleIfMatch() async throws {
        let server = try await DRFServer.start()
        defer { server.stop() }
        let created = try #require(try server.create([User(id: 1, userName: "a")]).users.first)

        let read = try await send(server, "GET", "checked/users/1/")
        #expect(read.header("ETag") == "\"\(created.updated_at)\"")
        let edited = try #require(try server.update(id: 1, fields: ["user_name": "edited on the server"]).users.first)

        let stale = try await send(
            server, "PATCH", "checked/users/1/", body: ["profile": ["age": 5, "score": 0]],
            ifMatch: read.header("ETag"))
        #expect(stale.status == 412)
        #expect(stale.header("ETag") == "\"\(edited.updated_at)\"")
        #expect((stale.json as? [String: Any])?["user_name"] as? String == "edited on the server")

        let current = try await send(
            server, "PATCH", "checked/users/1/", body: ["profile": ["age": 5, "score": 0]],
            ifMatch: stale.header("ETag"))
        #expect(current.status == 200)
        let updated = try #require(try server.state().users.first)
        #expect(updated.profile.age == 5)
        #expect(current.header("ETag") == "\"\(updated.updated_at)\"")

        let deleted = try await send(server, "DELETE", "checked/users/1/", ifMatch: current.header("ETag"))
        #expect(deleted.status == 204)
        #expect(try server.state().users.first?.deleted == true)
        #expect(try await send(server, "GET", "checked/users/1/").status == 404)
        let changes = try await send(server, "GET", "checked/users/?updated_since=2000-01-01T00:00:00Z")
        let listed = (changes.json as? [String: Any])?["results"] as? [[String: Any]]
        #expect(listed?.map { $0["deleted"] as? Bool } == [true])
    }

    // MARK: - Requests

    /// An answer: status, headers and the body's JSON, if any.
    private struct Answer {
        var status: Int
        /// The headers, by lower-case name.
        var headers: [String: String]
        var json: Any?

        /// The header `name`, in any case.
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// Sends `method` to `path` under the server's root, with the server's token if `authorized`, without
    /// following redirects: through `URLSessionTransport`, which hands redirects back and never blocks
    /// the calling thread (URLSession's own `data(for:)` waits for the session's queue on the calling
    /// cooperative thread, for minutes while a hostile test floods FoundationNetworking).
    private func send(
        _ server: DRFServer, _ method: String, _ path: String, body: [String: Any]? = nil, ifMatch: String? = nil,
        authorized: Bool = true
    ) async throws -> Answer {
        var headers: [(name: String, value: String)] = []
        if authorized { headers.append(("Authorization", "Token \(server.token)")) }
        if let ifMatch { headers.append(("If-Match", ifMatch)) }
        var data: Data?
        if let body {
            data = try JSONSerialization.data(withJSONObject: body)
            headers.append(("Content-Type", "application/json"))
        }
        let request = HTTPTransportRequest(
            method: method, url: URL(string: path, relativeTo: server.baseURL)!.absoluteURL, headers: headers,
            body: data,
            timeout: 10)
        let response = try await URLSessionTransport.shared.send(request)
        var received = Data()
        for try await chunk in response.body { received.append(chunk) }
        var lowercased: [String: String] = [:]
        for (name, value) in response.headers { lowercased[name.lowercased()] = value }
        return Answer(
            status: response.status, headers: lowercased, json: try? JSONSerialization.jsonObject(with: received))
    }
}
