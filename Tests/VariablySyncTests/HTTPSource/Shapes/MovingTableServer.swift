import Foundation
import VariablyCodable

@testable import VariablySync

/// An in-memory server of one table, answering an ``HTTPPullShape``'s requests as PocketBase does:
/// `?page=&perPage=&filter=(updated>='…')`, `{"page", "perPage", "totalItems", "totalPages", "items"}`,
/// `updated` written `2026-11-27 12:55:36.000Z` and compared **as text**, at most `cap` records a page
/// whatever is asked, soft-deleted records served as tombstones (`"deleted": true`) to a filtered
/// request. Between requests, `churn` lets other clients edit, create and delete, so that the table
/// moves under the pull's pages.
struct MovingTableServer {
    struct Record: Equatable {
        var id: Int
        var updated: Int64
        var name: String
        var deleted = false
    }

    private(set) var records: [Int: Record] = [:]
    /// The server's clock, in milliseconds; it does not always move between writes (a coarse clock).
    private var clock: Int64 = 1_795_000_000_000
    private var nextID = 1
    var cap: Int
    var random: SplitMix64

    init(records count: Int, cap: Int, seed: UInt64) {
        self.cap = cap
        random = SplitMix64(seed: seed)
        for _ in 0..<count { write(nil) }
    }

    /// The live records, as a client should cache them.
    var live: [Int: String] {
        records.values.filter { !$0.deleted }.reduce(into: [:]) { $0[$1.id] = $1.name }
    }

    /// One write by another client: a create, an edit or a deletion.
    mutating func churn() {
        let choice = random.next() % 10
        let ids = records.keys.sorted()
        if choice < 3 || ids.isEmpty {
            write(nil)
        } else if choice < 8 {
            write(ids[Int(random.next() % UInt64(ids.count))])
        } else {
            let id = ids[Int(random.next() % UInt64(ids.count))]
            tick()
            records[id]?.deleted = true
            records[id]?.updated = clock
        }
    }

    private mutating func tick() {
        if random.next() % 3 != 0 { clock += Int64(random.next() % 700) }
    }

    private mutating func write(_ id: Int?) {
        tick()
        let id =
            id
            ?? {
                defer { nextID += 1 }
                return nextID
            }()
        records[id] = Record(id: id, updated: clock, name: "name \(id) at \(clock)")
    }

    /// `milliseconds` as PocketBase writes it.
    static func text(_ milliseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        return FlexibleDateParser.iso8601String(from: date, fractionalSeconds: true)
            .replacingOccurrences(of: "T", with: " ")
    }

    /// The answer to `url`.
    func answer(_ url: URL) -> Data {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        let asked = Int(value("perPage") ?? "30") ?? 30
        let perPage = min(asked, cap)
        var since: String?
        if let filter = value("filter") {
            since = String(filter.dropFirst("(updated>='".count).dropLast("')".count))
                .replacingOccurrences(of: "\\'", with: "'")
        }
        let matching = records.values
            .filter { since == nil ? !$0.deleted : Self.text($0.updated) >= since! }
            .sorted { ($0.updated, $0.id) < ($1.updated, $1.id) }
        let page: Int
        if let offset = value("offset").flatMap(Int.init) {
            page = offset / max(perPage, 1) + 1
        } else {
            page = Int(value("page") ?? "1") ?? 1
        }
        let start = value("offset").flatMap(Int.init) ?? (page - 1) * perPage
        let chosen = start < matching.count ? Array(matching[start..<min(start + perPage, matching.count)]) : []
        let json = chosen.map {
            #"{"id": \#($0.id), "name": "\#($0.name)", "updated": "\#(Self.text($0.updated))", "deleted": \#($0.deleted)}"#
        }
        let totalPages = (matching.count + perPage - 1) / perPage
        return Data(
            (#"{"page": \#(page), "perPage": \#(perPage), "totalItems": \#(matching.count), "#
                + #""totalPages": \#(totalPages), "items": [\#(json.joined(separator: ", "))]}"#).utf8)
    }
}

/// A client of a ``MovingTableServer``: pulls through an ``HTTPPullShape`` and keeps a cache.
struct MovingTableClient {
    let shape: HTTPPullShape
    let pageSize: Int
    var cache: [Int: String] = [:]
    var cursor: SyncCursor?
    /// Requests made by the last pull, and how many of them were checks.
    var requests = 0
    var checks = 0

    /// Pulls until caught up, letting `server` move `writesBetweenPages` times between requests.
    mutating func pull(from server: inout MovingTableServer, writesBetweenPages: Int) throws {
        let base = URL(string: "http://127.0.0.1:1/api/")!
        var state = try HTTPPullState(cursor: cursor, shape: shape)
        (requests, checks) = (0, 0)
        while true {
            requests += 1
            guard requests < 10_000 else { throw RemoteSourceError.invalidResponse("the pull does not end") }
            let url = try shape.url(base: base, state: state, limit: pageSize)
            let page = try shape.page(
                body: server.answer(url), link: nil, from: url, state: state, limit: pageSize, idType: Int.self)
            if page.isCheck { checks += 1 }
            for element in try JSONSerialization.jsonObject(with: page.records) as? [[String: Any]] ?? [] {
                cache[element["id"] as! Int] = element["name"] as? String
            }
            for id in page.deletedIDs { cache[id] = nil }
            cursor = page.nextCursor
            guard page.hasMore else { return }
            state = try HTTPPullState(cursor: page.nextCursor, shape: shape)
            for _ in 0..<writesBetweenPages { server.churn() }
        }
    }
}
