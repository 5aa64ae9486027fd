import Foundation
import VariablyCodable

@testable import VariablySync

/// An in-memory server of one table, answering an ``HTTPPullShape``'s requests as PocketBase does:
/// `?page=&perPage=&filter=(updated>='…')`, `{"page", "perPage", "totalItems", "totalPages", "items"}`,
/// `updated` written `2026-11-27 12:55:36.000Z` and compared **as text**, at most `cap` records a page
/// whatever is asked, soft-deleted records served as tombstones (`"deleted": true`) to a filtered
/// request. Between requests, `churn` lets other clients edit, create and delete, so that the table
/// moves under the pull's pages. With ``links`` set, each page also names the next one, in the body
/// (`"next"`) and in a `Link: <…>; rel="next"` header, as page numbers, offsets or a keyset cursor.
struct MovingTableServer {
    /// What the next links count.
    enum Links: CaseIterable {
        /// `page=<n + 1>`, as kaminari, api-pagination and DRF's PageNumberPagination write them.
        case pageNumbers
        /// `offset=<records so far>`.
        case offsets
        /// `cursor=<updated>_<id>` of the last record served: the next page is what sorts after it.
        case keyset
    }

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
    /// The next links each page carries; `nil` for none.
    var links: Links?
    /// Whether the clock may stay still between writes. A keyset cursor over `(updated, id)` is sound
    /// only over a clock that moves with every write: a record written with the cursor's timestamp and
    /// a smaller id would sort before it.
    var isClockCoarse = true

    init(records count: Int, cap: Int, seed: UInt64, links: Links? = nil, isClockCoarse: Bool = true) {
        self.cap = cap
        self.links = links
        self.isClockCoarse = isClockCoarse
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
            delete(ids[Int(random.next() % UInt64(ids.count))])
        }
    }

    /// Another client's deletion of record `id`: it becomes a tombstone, served to filtered requests.
    mutating func delete(_ id: Int) {
        tick()
        records[id]?.deleted = true
        records[id]?.updated = clock
    }

    /// Another client's edit of record `id`: it moves to the end of the order.
    mutating func edit(_ id: Int) {
        write(id)
    }

    private mutating func tick() {
        if random.next() % 3 != 0 || !isClockCoarse { clock += Int64(random.next() % 700) + (isClockCoarse ? 0 : 1) }
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

    /// The answer to `url`: its body, and its `Link` header when the server writes next links.
    func answer(_ url: URL) -> (body: Data, link: String?) {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        let asked = Int(value("perPage") ?? "30") ?? 30
        let perPage = min(asked, cap)
        var since: String?
        if let filter = value("filter") {
            since = String(filter.dropFirst("(updated>='".count).dropLast("')".count))
                .replacingOccurrences(of: "\\'", with: "'")
        }
        var matching = records.values
            .filter { since == nil ? !$0.deleted : Self.text($0.updated) >= since! }
            .sorted { ($0.updated, $0.id) < ($1.updated, $1.id) }
        let total = matching.count
        if let cursor = value("cursor")?.split(separator: "_").compactMap({ Int64($0) }), cursor.count == 2 {
            matching.removeAll { ($0.updated, Int64($0.id)) <= (cursor[0], cursor[1]) }
        }
        let page: Int
        if let offset = value("offset").flatMap(Int.init) {
            page = offset / max(perPage, 1) + 1
        } else {
            page = Int(value("page") ?? "1") ?? 1
        }
        let start = value("offset").flatMap(Int.init) ?? (value("cursor") != nil ? 0 : (page - 1) * perPage)
        let chosen = start < matching.count ? Array(matching[start..<min(start + perPage, matching.count)]) : []
        let json = chosen.map {
            #"{"id": \#($0.id), "name": "\#($0.name)", "updated": "\#(Self.text($0.updated))", "deleted": \#($0.deleted)}"#
        }
        let totalPages = (total + perPage - 1) / perPage
        let next = start + chosen.count < matching.count ? nextLink(url, after: chosen, start: start, page: page) : nil
        let body =
            #"{"page": \#(page), "perPage": \#(perPage), "totalItems": \#(total), "totalPages": \#(totalPages), "#
            + #""next": \#(next.map { "\"\($0)\"" } ?? "null"), "items": [\#(json.joined(separator: ", "))]}"#
        return (Data(body.utf8), next.map { "<\($0)>; rel=\"next\"" })
    }

    /// The URL of the page after `chosen`, served at `start` of the request `url` as page `page`.
    private func nextLink(_ url: URL, after chosen: [Record], start: Int, page: Int) -> String? {
        guard let links, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        var items = (components.percentEncodedQueryItems ?? []).filter {
            !["page", "offset", "cursor"].contains($0.name)
        }
        switch links {
        case .pageNumbers: items.append(URLQueryItem(name: "page", value: String(page + 1)))
        case .offsets: items.append(URLQueryItem(name: "offset", value: String(start + chosen.count)))
        case .keyset:
            guard let last = chosen.last else { return nil }
            items.append(URLQueryItem(name: "cursor", value: "\(last.updated)_\(last.id)"))
        }
        components.percentEncodedQueryItems = items
        return components.url?.absoluteString
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
    /// The URLs the last pull asked for.
    var asked: [URL] = []

    /// Pulls until caught up, letting `server` move `writesBetweenPages` times between requests, then
    /// `between` write.
    mutating func pull(
        from server: inout MovingTableServer, writesBetweenPages: Int,
        between: (inout MovingTableServer) -> Void = { _ in }
    ) throws {
        let base = URL(string: "http://127.0.0.1:1/api/")!
        var state = try HTTPPullState(cursor: cursor, shape: shape)
        (requests, checks, asked) = (0, 0, [])
        while true {
            requests += 1
            guard requests < 10_000 else { throw RemoteSourceError.invalidResponse("the pull does not end") }
            let url = try shape.url(base: base, state: state, limit: pageSize)
            asked.append(url)
            let answer = server.answer(url)
            let page = try HTTPPullReader(shape: shape).page(
                body: answer.body, link: answer.link, from: url, state: state, limit: pageSize, idType: Int.self)
            if page.isCheck { checks += 1 }
            for element in try JSONSerialization.jsonObject(with: page.records) as? [[String: Any]] ?? [] {
                cache[element["id"] as! Int] = element["name"] as? String
            }
            for id in page.deletedIDs { cache[id] = nil }
            cursor = page.nextCursor
            guard page.hasMore else { return }
            state = try HTTPPullState(cursor: page.nextCursor, shape: shape)
            for _ in 0..<writesBetweenPages { server.churn() }
            between(&server)
        }
    }
}
