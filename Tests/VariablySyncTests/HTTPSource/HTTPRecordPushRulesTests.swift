import Foundation
import UserSyncModels
import Testing

@testable import VariablySync

/// The rules of per-record pushes that hold on every transport: which redirects a request follows, and
/// that a failure in one record's request never sends an answered record again.
@Suite(.timeLimit(.minutes(3)))
struct HTTPRecordPushRulesTests {
    private typealias Exchange = HTTPExchange

    private func request(_ method: String, _ url: String = "http://127.0.0.1:8000/api/users/2") -> HTTPRequestHead {
        HTTPRequestHead(
            method: method, url: URL(string: url)!, headers: [], body: method == "GET" ? nil : Data("{}".utf8))
    }

    private func answer(_ status: Int, location: String?) -> Exchange.Response {
        (HTTPResponseHead(status: status, headers: location.map { ["location": $0] } ?? [:]), Data())
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func readsFollowEveryRedirectOnTheirOrigin(status: Int) throws {
        let next = try #require(Exchange.redirect(of: request("GET"), by: answer(status, location: "/api/users/2/")))
        #expect(next.url.absoluteString == "http://127.0.0.1:8000/api/users/2/")
        #expect(next.method == "GET")
    }

    /// A write redirected by `301`, `302` or `303` would become a `GET` that reads as success: not
    /// followed (the change is then held with the answer); `307` and `308` keep method and body.
    @Test(arguments: ["POST", "PUT", "PATCH", "DELETE"])
    func writesFollowOnlyRedirectsThatKeepTheirMethod(method: String) throws {
        for status in [301, 302, 303] {
            #expect(Exchange.redirect(of: request(method), by: answer(status, location: "/api/users/2/")) == nil)
        }
        for status in [307, 308] {
            let next = try #require(
                Exchange.redirect(of: request(method), by: answer(status, location: "/api/users/2/")))
            #expect(next.method == method)
            #expect(next.body == Data("{}".utf8))
        }
    }

    @Test func noRedirectLeavesTheOriginOrFollowsWithoutALocation() {
        #expect(
            Exchange.redirect(of: request("GET"), by: answer(301, location: "http://elsewhere.example/users/2/")) == nil
        )
        #expect(
            Exchange.redirect(of: request("GET"), by: answer(301, location: "https://127.0.0.1:8000/api/users/2/"))
                == nil
        )
        #expect(Exchange.redirect(of: request("GET"), by: answer(301, location: nil)) == nil)
        #expect(Exchange.redirect(of: request("GET"), by: answer(304, location: "/api/users/2/")) == nil)
    }

    /// Three creates pushed at once, two of them answered 500 at first: the answered one is settled
    /// and never sent again while the others are retried.
    @Test func aFailedRequestDoesNotSendAnAnsweredRecordAgain() async throws {
        let server = try await ShapedAPIServer()
        defer { server.stop() }
        try server.fault("500", method: "POST", path: "/users", skip: 1, times: 4)
        let repository = try server.makeRepository(ShapedAPIServer.pageAPI)
        for id in Int64(1)...3 { try await repository.save(User(id: id, userName: "created \(id)")) }
        let report = try await repository.sync()
        #expect(report.pushed == 3)

        let state = try server.state()
        #expect(state.users.map(\.id) == [1, 2, 3])
        let creates = state.requests.filter { $0.method == "POST" }
        for key in Set(creates.compactMap(\.idempotencyKey)) {
            let sent = creates.filter { $0.idempotencyKey == key }
            let firstSuccess = try #require(sent.firstIndex { (200...299).contains($0.status) })
            #expect(firstSuccess == sent.count - 1, "\(key) was sent again after it was answered")
        }
        #expect(Set(creates.compactMap(\.idempotencyKey)).count == 3)
        #expect(try await repository.pendingChangeCount() == 0)
    }
}
