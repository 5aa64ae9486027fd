import Foundation
import VariablyCodable

// MARK: - Bodies and answers in the declared write shape

extension HTTPRecordRequests {
    /// A request to the per-record endpoints that accepts the media type declared for `method`.
    func makeRecordRequest(url: URL, method: String, endpoints: HTTPRecordEndpoints) -> HTTPRequestHead {
        exchange.request(url: url, method: method, accept: endpoints.writes.mediaType.of(method))
    }

    /// Gives `request` the write body of `record` and its declared `Content-Type`.
    ///
    /// - Parameters:
    ///   - record: The record's JSON in remote keys (its version already the one to send).
    ///   - change: The change an update sends, whose changed fields a `PATCH` of ``HTTPRecordEndpoints/Body/changedFields``
    ///     keeps; `nil` for the whole record.
    ///   - isCreate: Whether the request creates the record.
    func setWriteBody(
        of request: inout HTTPRequestHead, record: Data, change: RemoteChange<Model.ID>?, isCreate: Bool,
        endpoints: HTTPRecordEndpoints
    ) throws {
        request.body = try writeBody(
            record, change: request.method == "PATCH" ? change : nil, isCreate: isCreate, endpoints: endpoints)
        request.headers.append(("Content-Type", endpoints.writes.mediaType.of(request.method)))
    }

    /// The body that writes `record`: its fields less the read-only ones (less the unchanged ones for a
    /// `PATCH` of changed fields), at the declared record path, with the declared constants. A record
    /// that is no JSON object goes as it is.
    func writeBody(
        _ record: Data, change: RemoteChange<Model.ID>?, isCreate: Bool, endpoints: HTTPRecordEndpoints
    ) throws -> Data {
        guard let json = try? JSONBody(record), json.bytes.first == UInt8(ascii: "{") else { return record }
        let shape = endpoints.writes
        let version = endpoints.versionField.map { DataPath(dotted: $0).keys }
        let id = idPath.keys
        var removed = Set(endpoints.readOnlyFields.map { DataPath(dotted: $0).keys })
        if endpoints.concurrency.isInBody, let version { removed.remove(version) }
        if !isCreate, shape.updatesCarryID { removed.remove(id) }
        var only: Set<[String]>?
        if !isCreate, case .changedFields = endpoints.body, let change,
            let changed = change.changedPaths.map({ Set($0.map(\.keys)) })
                ?? change.changedKeys.map({
                    Set($0.map { [$0] })
                })
        {
            only = changed
            if endpoints.concurrency.isInBody, let version { only?.insert(version) }
            if shape.updatesCarryID { only?.insert(id) }
        }
        var record = try HTTPWriteBody(json, json.root).keeping(only: only, removing: removed)
        // A changed property the record leaves out (a `nil` its encoder omits) is cleared on the server.
        for path in (only ?? []).sorted(by: { $0.lexicographicallyPrecedes($1) }) where !removed.contains(path) {
            record = record.nullFilled(at: path[...])
        }
        var body = record.placed(at: shape.recordPath.keys)
        for (path, value) in shape.constants.sorted(by: { $0.key.description > $1.key.description }) {
            // Only an object inside the record collapses to `null`; the record's own object never does.
            let isInsideRecord = path.keys.count - 1 > shape.recordPath.keys.count
            body = body.setting(.raw(Array(value.jsonString().utf8)), at: path.keys[...], collapsing: isInsideRecord)
        }
        return Data(body.bytes)
    }

    /// The record an answer holds at the declared answer path: a JSON object, or `nil` when there is
    /// none there (an empty `204` answer, an error object, another value).
    static func answerRecord(_ data: Data, at path: DataPath) -> Data? {
        guard let body = try? JSONBody(data), let range = try? body.range(at: path, in: body.root),
            body.bytes[range.lowerBound] == UInt8(ascii: "{")
        else { return nil }
        return body.data(range)
    }

    /// The fields a refusal names, as paths of the model's remote key set: each JSON:API error's
    /// `source.pointer` (`/data/attributes/name`, RFC 6901) under the declared record path
    /// (`attributes.name`), or the property's path a pointer leads into. Empty for another answer.
    func refusedFields(in body: Data, endpoints: HTTPRecordEndpoints) -> [DataPath] {
        guard let json = try? JSONBody(body), let errors = try? json.range(at: "errors"),
            let list = try? json.elements(of: errors)
        else { return [] }
        let keys = Model.keySets[.remote]?.entries.flatMap(\.key.alternatives) ?? []
        let record = endpoints.writes.recordPath.keys
        var fields: [DataPath] = []
        for error in list {
            guard let pointer = try? json.text(at: "source.pointer", in: error), pointer.hasPrefix("/") else {
                continue
            }
            let tokens = pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
                $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            }
            guard tokens.starts(with: record) else { continue }
            let path = Array(tokens.dropFirst(record.count))
            // The longest path of the key set that the pointer is at or inside.
            let field = keys.filter { path.starts(with: $0.keys) }.max { $0.keys.count < $1.keys.count }
            if let field, !fields.contains(field) { fields.append(field) }
        }
        return fields
    }
}
