import Foundation

/// An endpoint that takes several record writes in one request, all applied or none (PocketBase's
/// `POST /api/batch`): per-record changes go through it up to ``maximumRequests`` at a time instead of
/// one request each.
///
/// The writes are the requests ``HTTPRecordEndpoints`` declares (their method, URL, body and
/// headers), carried in the batch's body; each answer is read as the write's own answer would be. A
/// batch the server refuses as a whole (one write failed, so none was applied; or batches are turned
/// off) is sent again one request per change, so that each change gets its own outcome. A change that
/// needs a look-up first (a create whose answer was lost, a write with no version kept) goes on its
/// own.
///
/// ```swift
/// HTTPRecordEndpoints(path: "api/collections/users/records", update: .patch, newIDs: .pocketBase)
///     .inBatches(.pocketBase(maximumRequests: 50))
/// ```
public struct HTTPBatchEndpoint: Sendable, Equatable {
    /// How a batch is written and answered.
    public enum Format: Sendable, Equatable {
        /// `{"requests": [{"method", "url", "body", "headers"}]}`, answered `200` with
        /// `[{"status", "body"}]` in the same order, or `400` with the failed request's index under
        /// `data.requests` when the whole batch was rolled back.
        case pocketBase
    }

    /// The batch endpoint's path under the base URL.
    public var path: String
    /// The most writes one batch carries, as the server's settings allow (at least 1).
    public var maximumRequests: Int
    /// How batches are written and answered.
    public var format: Format

    /// A batch endpoint at `path`.
    ///
    /// ```swift
    /// HTTPBatchEndpoint(path: "api/batch", maximumRequests: 50, format: .pocketBase)
    /// ```
    ///
    /// - Parameters:
    ///   - path: The endpoint's path under the base URL.
    ///   - maximumRequests: The most writes one batch carries (PocketBase's `batch.maxRequests` setting).
    ///   - format: How batches are written and answered.
    public init(path: String, maximumRequests: Int, format: Format) {
        self.path = path
        self.maximumRequests = maximumRequests
        self.format = format
    }

    /// PocketBase's batch API, `POST /api/batch`, which its settings turn on (`batch.enabled`) with a
    /// limit of requests per batch (`batch.maxRequests`, 50 by default).
    ///
    /// ```swift
    /// HTTPRecordEndpoints(path: "api/collections/users/records").inBatches(.pocketBase(maximumRequests: 50))
    /// ```
    ///
    /// - Parameter maximumRequests: The server's `batch.maxRequests`.
    public static func pocketBase(maximumRequests: Int = 50) -> HTTPBatchEndpoint {
        HTTPBatchEndpoint(path: "api/batch", maximumRequests: maximumRequests, format: .pocketBase)
    }
}

extension HTTPRecordEndpoints {
    /// These endpoints, with their writes sent through `batch` several at a time.
    ///
    /// ```swift
    /// HTTPRecordEndpoints(path: "api/collections/users/records", update: .patch)
    ///     .inBatches(.pocketBase(maximumRequests: 50))
    /// ```
    ///
    /// - Parameter batch: The batch endpoint and its limit.
    /// - Returns: The same endpoints, sending in batches.
    public func inBatches(_ batch: HTTPBatchEndpoint) -> HTTPRecordEndpoints {
        var copy = self
        copy.batch = batch
        return copy
    }
}

// MARK: - The batch's body and answer

extension HTTPBatchEndpoint {
    /// What the server answered to a batch.
    enum Answer {
        /// Every write applied: each one's status and body, in the order sent.
        case applied([(status: Int, body: Data)])
        /// None applied: the server rolled the batch back (one write failed, at `failedIndex` when the
        /// answer says which) or refused batches.
        case rolledBack(failedIndex: Int?, status: Int, body: Data)
    }

    /// The body of a batch of `writes`, each the request it would be sent as on its own: its method,
    /// its URL's path and query from the server's root (`/api/collections/users/records/abc`), its
    /// headers and its body.
    func body(of writes: [HTTPRequestHead]) throws -> Data {
        var requests: [[String: Any]] = []
        for write in writes {
            let url = write.url.path + (write.url.query.map { "?" + $0 } ?? "")
            var request: [String: Any] = ["method": write.method, "url": url]
            if let body = write.body {
                request["body"] = try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
            }
            // The batch carries its own `Content-Type`; the others (`If-Match`, ...) go per write.
            let headers = write.headers.filter { $0.name.lowercased() != "content-type" }
            if !headers.isEmpty {
                request["headers"] = Dictionary(headers.map { ($0.name, $0.value) }) { _, last in last }
            }
            requests.append(request)
        }
        return try JSONSerialization.data(withJSONObject: ["requests": requests], options: [.sortedKeys])
    }

    /// The server's answer to a batch of `count` writes.
    ///
    /// - Throws: ``RemoteSourceError/invalidResponse(_:)`` for a `2xx` that is not one answer per write.
    func answer(status: Int, body: Data, count: Int) throws -> Answer {
        guard (200...299).contains(status) else {
            return .rolledBack(failedIndex: Self.failedIndex(in: body), status: status, body: body)
        }
        guard let list = try? JSONSerialization.jsonObject(with: body) as? [[String: Any]], list.count == count
        else {
            throw RemoteSourceError.invalidResponse(
                "a batch of \(count) write(s) was answered with no list of \(count) answers: "
                    + String(decoding: body.prefix(200), as: UTF8.self))
        }
        return .applied(
            try list.map { entry in
                guard let status = entry["status"] as? Int else {
                    throw RemoteSourceError.invalidResponse("a batch answer without a status")
                }
                let body = entry["body"].flatMap { $0 is NSNull ? nil : $0 }
                let data =
                    try body.map { try JSONSerialization.data(withJSONObject: $0, options: [.fragmentsAllowed]) }
                    ?? Data()
                return (status, data)
            })
    }

    /// The index PocketBase names under `data.requests` of a rolled-back batch.
    private static func failedIndex(in body: Data) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let requests = (object["data"] as? [String: Any])?["requests"] as? [String: Any]
        else { return nil }
        return requests.keys.compactMap(Int.init).min()
    }
}
