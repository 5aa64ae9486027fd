import Foundation
import VariablyCodable

/// A push through the package's changes envelope (``HTTPPushShape/changesEnvelope(path:)``, see
/// ``HTTPRemoteSource``): every change in one `POST`, answered with one result per change, matched back
/// by idempotency key.
struct HTTPChangesEnvelope<ID: Encodable & Hashable & Sendable>: Sendable {
    /// Where the envelope is posted: `{baseURL}/{path}`.
    let url: URL
    /// What sends the request.
    let exchange: HTTPExchange

    /// Sends `changes` in one request; each change's outcome is the result with its idempotency key.
    ///
    /// - Throws: ``RemoteSourceError`` for a failure, a bad status, or an answer missing a change.
    func push(_ changes: [RemoteChange<ID>]) async throws -> [PushResult<ID>] {
        var request = exchange.request(url: url, method: "POST")
        request.body = try Self.body(changes)
        request.headers.append(("Content-Type", "application/json"))
        let outcomes = try Self.outcomes(from: try HTTPExchange.successBody(await exchange.send(request)))
        return try changes.map { change in
            guard let outcome = outcomes[change.idempotencyKey] else {
                throw RemoteSourceError.invalidResponse("no result for change \(change.idempotencyKey)")
            }
            return PushResult(idempotencyKey: change.idempotencyKey, id: change.id, outcome: outcome)
        }
    }

    private struct PushEnvelope: Decodable {
        var results: [Result]

        struct Result: Decodable {
            var idempotencyKey: String
            var status: String
            var version: RecordVersion?
            var reason: String?

            enum CodingKeys: String, CodingKey {
                case idempotencyKey = "idempotency_key"
                case status, version, reason
            }
        }
    }

    /// One change of a push, without its record.
    private struct ChangeFields: Encodable {
        var change: RemoteChange<ID>

        enum CodingKeys: String, CodingKey {
            case idempotencyKey = "idempotency_key"
            case id, operation
            case baseVersion = "base_cursor"
            case supersedes
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(change.idempotencyKey, forKey: .idempotencyKey)
            try container.encode(change.id, forKey: .id)
            switch change.operation {
            case .upsert: try container.encode("upsert", forKey: .operation)
            case .delete: try container.encode("delete", forKey: .operation)
            }
            try container.encode(change.baseVersion, forKey: .baseVersion)
            try container.encode(change.supersedes, forKey: .supersedes)
        }
    }

    /// The body of `changes`: `{"changes": [...]}`, each upserted record spliced in as the bytes the repository
    /// encoded, never re-serialized (numbers and strings reach the server exactly as written).
    static func body(_ changes: [RemoteChange<ID>]) throws -> Data {
        let encoder = JSONEncoder()
        var body = Data(#"{"changes":["#.utf8)
        for (index, change) in changes.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            var item = try encoder.encode(ChangeFields(change: change))
            if case .upsert(let record) = change.operation {
                guard let body = try? JSONBody(record), body.bytes[body.root.lowerBound] == UInt8(ascii: "{") else {
                    throw EncodingError.invalidValue(
                        record,
                        EncodingError.Context(
                            codingPath: [],
                            debugDescription: "the record of change \(change.idempotencyKey) is not a JSON object"))
                }
                item.removeLast()  // the closing brace
                item.append(contentsOf: #","record":"#.utf8)
                item.append(body.data(body.root))
                item.append(UInt8(ascii: "}"))
            }
            body.append(item)
        }
        body.append(contentsOf: "]}".utf8)
        return body
    }

    /// A push's outcomes by idempotency key; a conflict's record stays the server's bytes.
    static func outcomes(from body: Data) throws -> [String: PushOutcome] {
        let envelope: PushEnvelope
        do {
            envelope = try KeySetJSONDecoder().decode(PushEnvelope.self, from: body)
        } catch {
            throw RemoteSourceError.invalidResponse("the push response has no valid \"results\" array: \(error)")
        }
        guard let reader = try? JSONBody(body), let list = try? reader.range(at: "results"),
            let elements = try? reader.elements(of: list), elements.count == envelope.results.count
        else {
            throw RemoteSourceError.invalidResponse("the push response has no \"results\" array")
        }
        var outcomes: [String: PushOutcome] = [:]
        for (result, range) in zip(envelope.results, elements) {
            switch result.status {
            case "accepted":
                guard let version = result.version else {
                    throw RemoteSourceError.invalidResponse("accepted without a version")
                }
                outcomes[result.idempotencyKey] = .accepted(version: version)
            case "rejected":
                outcomes[result.idempotencyKey] = .rejected(reason: result.reason ?? "rejected")
            case "conflict":
                guard let version = result.version else {
                    throw RemoteSourceError.invalidResponse("conflict without a version")
                }
                let record = (try? reader.member("record", of: range))?.map(reader.data)
                let isNull = record.map { $0 == Data("null".utf8) } ?? true
                outcomes[result.idempotencyKey] = .conflict(serverRecord: isNull ? nil : record, version: version)
            default:
                throw RemoteSourceError.invalidResponse("unknown status \(result.status.prefix(40))")
            }
        }
        return outcomes
    }
}
