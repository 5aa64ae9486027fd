import Foundation
import VariablyCodable

/// The creates in doubt of a push found before their changes are sent, by look-ups of many at once
/// (``HTTPLookUp``): by their client reference's text (lowercased: a UUID may come back in another
/// case), or by the text of the id the device chose. A value mapped to `nil` is proven absent; a value
/// not mapped is looked up alone, as ``HTTPRecordPusher`` does without a look-up of many.
struct HTTPCreatesFound: Sendable {
    /// Records found, or proven absent, by the text of their client reference, lowercased.
    var byReference: [String: Data?] = [:]
    /// Records found, or proven absent, by the text of the id the device chose.
    var byID: [String: Data?] = [:]

    /// The creates in doubt among `changes` looked up many at a time through `pusher`, where
    /// `endpoints` declare a look-up that takes many values; none otherwise.
    ///
    /// - Throws: The look-up's error (a transport failure, a `5xx` after its retries), as a single
    ///   look-up's would stop the push.
    static func finding<Model>(
        _ changes: [RemoteChange<Model.ID>], endpoints: HTTPRecordEndpoints, through pusher: HTTPRecordPusher<Model>
    ) async throws -> HTTPCreatesFound {
        var found = HTTPCreatesFound()
        let inDoubt = changes.filter { $0.isNew && $0.mayHaveBeenApplied }
        guard !inDoubt.isEmpty else { return found }
        let collection = try HTTPRecordRequests<Model>.collectionURL(pusher.baseURL, endpoints)
        if let reference = endpoints.clientReference, reference.lookUp.takesMany {
            let field = DataPath(dotted: reference.field)
            let values = inDoubt.compactMap { change -> String? in
                let record: Data? =
                    switch change.operation {
                    case .upsert(let record): record
                    case .delete: change.createdRecord
                    }
                return record.flatMap { text(at: field, in: $0) }
            }
            found.byReference = try await listed(
                values, field: field, lookUp: reference.lookUp, ignoringCase: true, in: collection,
                endpoints: endpoints, through: pusher)
        }
        // A list answer carries no entity tag: with `If-Match` and no version field, each goes alone.
        if let lookUp = endpoints.chosenIDLookUp, lookUp.takesMany,
            endpoints.concurrency == .none || endpoints.versionField != nil
        {
            let idPath = pusher.api.pull.idPath
            let values = inDoubt.compactMap { change -> String? in
                guard case .upsert(let record) = change.operation else { return nil }
                return text(at: idPath, in: record)
            }
            found.byID = try await listed(
                values, field: idPath, lookUp: lookUp, ignoringCase: false, in: collection, endpoints: endpoints,
                through: pusher)
        }
        return found
    }

    /// The records the collection holds with `field` equal to one of `values`, asked `lookUp.maximum`
    /// values a request: each value found maps to its record, each value an answer proves absent (a
    /// whole answer) to `nil`. Values that cannot go in a list or an expression, and every value once
    /// the server refuses the request (`400`, `404`, `422`), are left out, to be looked up alone.
    private static func listed<Model>(
        _ values: [String], field: DataPath, lookUp: HTTPLookUp, ignoringCase: Bool, in collection: URL,
        endpoints: HTTPRecordEndpoints, through pusher: HTTPRecordPusher<Model>
    ) async throws -> [String: Data?] {
        func key(_ text: String) -> String { ignoringCase ? text.lowercased() : text }
        let plain = Array(Set(values.filter(HTTPLookUp.isPlain))).sorted()
        var found: [String: Data?] = [:]
        var start = 0
        while start < plain.count {
            let chunk = Array(plain[start..<min(start + lookUp.maximum, plain.count)])
            start += chunk.count
            guard var components = URLComponents(url: collection, resolvingAgainstBaseURL: false) else { break }
            let query = lookUp.queryItem(for: chunk)
            components.percentEncodedQuery = components.percentEncodedQuery.map { $0 + "&" + query } ?? query
            guard let url = components.url else { break }
            let response = try await pusher.exchange.send(
                pusher.requests.makeRecordRequest(url: url, method: "GET", endpoints: endpoints))
            // The server does not know the filter: each create is looked up alone.
            if [400, 404, 422].contains(response.head.status) { return found }
            let answer = try HTTPExchange.successBody(response)
            guard let list = try? JSONBody(answer) else {
                throw RemoteSourceError.invalidResponse(
                    "the look-up of creates by \(lookUp.parameterName) did not answer JSON")
            }
            let array = list.bytes.first == UInt8(ascii: "[") ? list.root : try list.range(at: pusher.api.pull.records)
            guard let array, let elements = try list.elements(of: array) else {
                throw RemoteSourceError.invalidResponse(
                    "the look-up of creates by \(lookUp.parameterName) answered no records array at "
                        + "\(pusher.api.pull.records)")
            }
            var records: [String: Data] = [:]
            for element in elements {
                guard let range = try list.range(at: field, in: element),
                    let text = JSONBody.text(of: try list.value(range))
                else { continue }
                records[key(text)] = list.data(element)
            }
            let isWhole = try isWholeAnswer(
                list, shape: pusher.api.pull, count: elements.count, link: response.head.headers["link"])
            for value in chunk {
                if let record = records[key(value)] {
                    found[key(value)] = .some(record)
                } else if isWhole {
                    found[key(value)] = .some(nil)
                }
            }
        }
        return found
    }

    /// Whether a look-up's answer holds every record it matched: it is empty, or the API's pull shape
    /// tells that no page follows (a declared ``HTTPPullShape/HasMore``, a `null` next URL, no next
    /// link). Pages by number, offset or token say nothing of a cap the server applies, so their
    /// answers prove no absence.
    private static func isWholeAnswer(_ body: JSONBody, shape: HTTPPullShape, count: Int, link: String?) throws
        -> Bool
    {
        if count == 0 { return true }
        if body.bytes.first == UInt8(ascii: "[") { return false }
        if let hasMore = shape.hasMore {
            let page: Int? = if case .page(_, let first) = shape.paging { first } else { nil }
            return try !hasMore.more(in: body, page: page, received: count)
        }
        switch shape.paging {
        case .nextURL(let path, _): return try body.text(at: path) == nil
        case .nextLink: return link.flatMap(HTTPLinkHeader.next(in:)) == nil
        case .token, .page, .offset: return false
        }
    }

    /// The text of the value at `path` in a record's JSON (a string's content, a number's digits);
    /// `nil` when absent or `null`.
    static func text(at path: DataPath, in record: Data) -> String? {
        guard let body = try? JSONBody(record), let range = try? body.range(at: path),
            let value = try? body.value(range),
            value != .null
        else { return nil }
        return JSONBody.text(of: value)
    }
}
