import Foundation
import Testing

/// What ``PocketBaseServer`` sets up, and the answers of PocketBase that the sync tests rely on or that
/// the current API cannot declare, checked with plain requests: status codes, bodies, caps, the
/// relations' rules.
@Suite(
    .serialized, .timeLimit(.minutes(10)),
    .enabled(if: PocketBaseServer.isAvailable, PocketBaseServer.unavailableReason))
struct PocketBaseServerTests {
    /// An answer's status and its body as JSON (`nil` for none).
    private struct Answer {
        var status: Int
        var json: Any?

        var object: [String: Any] { json as? [String: Any] ?? [:] }
        var items: [[String: Any]] { object["items"] as? [[String: Any]] ?? [] }
        var message: String? { object["message"] as? String }
    }

    private func request(
        _ server: PocketBaseServer, _ method: String, _ path: String, token: String?, body: [String: Any]? = nil
    ) async throws -> Answer {
        let answer = try await PocketBaseServer.send(server.baseURL, method, path, token: token, body: body)
        return Answer(
            status: answer.status,
            json: answer.body.isEmpty ? nil : try JSONSerialization.jsonObject(with: answer.body))
    }

    /// `perPage` is capped at 1,000 without an error, the cap written in the page; a page after the last
    /// answers 200 with no items; the stamps are written with a space, milliseconds and `Z`.
    @Test func listsCapThePageSizeAndEndWithAnEmptyPage() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        try await server.seedUsers(1_001)
        let users = "api/collections/users/records"

        let capped = try await request(server, "GET", "\(users)?perPage=2000&sort=updated,id", token: server.token)
        #expect(capped.status == 200)
        #expect(capped.items.count == 1_000)
        #expect(capped.object["perPage"] as? Int == 1_000)
        #expect(capped.object["totalItems"] as? Int == 1_001)
        #expect(capped.object["totalPages"] as? Int == 2)

        let after = try await request(server, "GET", "\(users)?perPage=1000&page=3", token: server.token)
        #expect(after.status == 200)
        #expect(after.items.isEmpty)
        #expect(after.object["page"] as? Int == 3)

        let stamp = try #require(capped.items.first?["updated"] as? String)
        #expect(stamp.wholeMatch(of: /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(stamp)")
    }

    /// A token PocketBase cannot verify, or none, is a guest: lists answer 200 with no items, a write
    /// to a record answers 404 as for a record that does not exist, a create answers 400.
    @Test(arguments: ["none", "invalid"])
    func aGuestIsAnsweredAsIfThereWereNoRecords(token kind: String) async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let id = try await server.create("users", fields: ["user_name": "ada"])
        let token = kind == "none" ? nil : server.invalidToken
        let users = "api/collections/users/records"

        let list = try await request(server, "GET", users, token: token)
        #expect(list.status == 200)
        #expect(list.items.isEmpty)
        #expect(list.object["totalItems"] as? Int == 0)
        let update = try await request(server, "PATCH", "\(users)/\(id)", token: token, body: ["age": 3])
        #expect(update.status == 404)
        #expect(update.message == "The requested resource wasn't found.")
        #expect(try await request(server, "DELETE", "\(users)/\(id)", token: token).status == 404)
        let create = try await request(server, "POST", users, token: token, body: ["user_name": "bob"])
        #expect(create.status == 400)
        #expect(create.message == "Failed to create record.")
        #expect(try await server.users().map(\.user_name) == ["ada"])

        // The member's token passes the rules.
        #expect(try await request(server, "GET", users, token: server.token).items.count == 1)
    }

    /// A create answers 200 with the stored record; a client-chosen id of 15 characters is kept, and a
    /// second create with it answers 400 `validation_not_unique` on `id`.
    @Test func createsAnswer200AndKeepAClientChosenID() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let users = "api/collections/users/records"
        let body: [String: Any] = ["id": "chosen000000001", "user_name": "ada", "updated": "2020-01-01 00:00:00.000Z"]

        let created = try await request(server, "POST", users, token: server.token, body: body)
        #expect(created.status == 200)
        #expect(created.object["id"] as? String == "chosen000000001")
        #expect(created.object["collectionName"] as? String == "users")
        // `updated` is PocketBase's to write.
        #expect((created.object["updated"] as? String)?.hasPrefix("2020") == false)

        let twice = try await request(server, "POST", users, token: server.token, body: body)
        #expect(twice.status == 400)
        let idError = (twice.object["data"] as? [String: Any])?["id"] as? [String: Any]
        #expect(idError?["code"] as? String == "validation_not_unique")
        let deleted = try await request(server, "DELETE", "\(users)/chosen000000001", token: server.token)
        #expect(deleted.status == 204)
        #expect(deleted.json == nil)
    }

    /// The relations as declared: an empty one is `""` (not `null`); deleting a comment empties its
    /// replies' `reply_to` and stamps them again; deleting a user deletes its posts and their comments.
    /// A query parameter that is not PocketBase's is ignored: `?client_id=` lists every comment, a
    /// filter expression finds one.
    @Test func relationsFollowTheirRules() async throws {
        let server = try await PocketBaseServer.start()
        defer { server.stop() }
        let author = try await server.create("users", fields: ["user_name": "ada"])
        let post = try await server.create("posts", fields: ["author": author, "title": "Hello"])
        let first = try await server.create("comments", fields: ["post": post, "body": "first", "client_id": "c-1"])
        let reply = try await server.create(
            "comments", fields: ["post": post, "body": "reply", "reply_to": first, "client_id": "c-2"])
        let comments = "api/collections/comments/records"

        let before = try await request(server, "GET", "\(comments)/\(reply)", token: server.token).object
        #expect(
            try await request(server, "GET", "\(comments)/\(first)", token: server.token).object["reply_to"] as? String
                == "")
        #expect(try await request(server, "GET", "\(comments)?client_id=c-2", token: server.token).items.count == 2)
        let filtered = try await request(server, "GET", "\(comments)?filter=(client_id%3D'c-2')", token: server.token)
        #expect(filtered.items.map { $0["id"] as? String } == [reply])
        let duplicate = try await request(
            server, "POST", comments, token: server.token, body: ["post": post, "body": "again", "client_id": "c-1"])
        #expect(duplicate.status == 400)

        // Stamps have milliseconds: a later one must be another millisecond.
        try await Task.sleep(for: .milliseconds(5))
        try await server.delete("comments", id: first)
        let after = try await request(server, "GET", "\(comments)/\(reply)", token: server.token).object
        #expect(after["reply_to"] as? String == "")
        #expect((after["updated"] as? String ?? "") > (before["updated"] as? String ?? "~"))

        try await server.delete("users", id: author)
        #expect(try await server.records("posts", as: Record.self).isEmpty)
        #expect(try await server.records("comments", as: Record.self).isEmpty)
    }

    /// Any record, by its id alone.
    private struct Record: Decodable {
        var id: String
    }
}
