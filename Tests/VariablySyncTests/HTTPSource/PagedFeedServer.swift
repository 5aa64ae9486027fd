import Foundation
import Synchronization
import VariablyHTTP

/// An in-process feed at `GET /changes`: entries in order, sliced by `offset`/`limit` or
/// `page`/`limit`, at most `cap` a page whatever is asked; every table of `tableOrder` listed in each
/// answer, an empty `records` where a page has none of it.
final class PagedFeedServer: HTTPTransport {
    struct Entry: Sendable {
        var table: String
        var json: String
    }

    static let baseURL = URL(string: "http://127.0.0.1:9/api/")!
    let entries: [Entry]
    let tableOrder: [String]
    let cap: Int
    private let asked = Mutex<[(offset: Int?, page: Int?)]>([])
    /// Whether the token is refused: the feed then lists nothing, and `POST /auth-refresh` answers `401`.
    private let isRefusing = Mutex(false)

    func refusesToken() { isRefusing.withLock { $0 = true } }

    init(_ entries: [Entry], tableOrder: [String], cap: Int = .max) {
        (self.entries, self.tableOrder, self.cap) = (entries, tableOrder, cap)
    }

    var offsetsAsked: [Int] { asked.withLock { $0.compactMap(\.offset) } }
    var pagesAsked: [Int] { asked.withLock { $0.compactMap(\.page) } }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let refusing = isRefusing.withLock { $0 }
        if request.url.path.hasSuffix("/auth-refresh") {
            return Self.answer(refusing ? 401 : 200, Data("{}".utf8))
        }
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func number(_ name: String) -> Int? { items.first { $0.name == name }?.value.flatMap { Int($0) } }
        let limit = min(number("limit") ?? 100, cap)
        let (offset, page) = (number("offset"), number("page"))
        asked.withLock { $0.append((offset, page)) }
        let start = offset ?? ((page ?? 1) - 1) * limit
        let slice = refusing ? [] : entries.dropFirst(start).prefix(limit)
        let tables = tableOrder.map { table in
            let records = slice.filter { $0.table == table }.map(\.json).joined(separator: ",")
            return "\"\(table)\":{\"records\":[\(records)]}"
        }
        let body = Data("{\"tables\":{\(tables.joined(separator: ","))},\"count\":\(entries.count)}".utf8)
        return Self.answer(request.url.path.hasSuffix("/changes") ? 200 : 404, body)
    }

    private static func answer(_ status: Int, _ body: Data) -> HTTPTransportResponse {
        HTTPTransportResponse(
            status: status, headers: ["content-type": "application/json"],
            body: AsyncThrowingStream { continuation in
                continuation.yield(body)
                continuation.finish()
            })
    }
}
