import Foundation

// MARK: - Reading answers, and the credentials check

extension HTTPExchange {
    /// The body of a 2xx answer; any other status as a ``RemoteSourceError``.
    static func successBody(_ response: Response) throws -> Data {
        let status = response.head.status
        guard (200...299).contains(status) else {
            let body = String(decoding: response.body.prefix(4096), as: UTF8.self)
            if status == 429 || status == 503,
                let delay = response.head.headers["retry-after"].flatMap({ HTTPRetryAfter.delay($0) })
            {
                throw RemoteSourceError.rateLimited(status: status, retryAfter: delay, body: body)
            }
            throw RemoteSourceError.httpStatus(status, body: body)
        }
        return response.body
    }

    /// Whether a pull's answer says the server does not know the cursor: 410 Gone, or 400, 404 or 422
    /// with a body that mentions the cursor (`{"error": "invalid_cursor"}`, `unknown cursor`, ...).
    static func isUnknownCursor(status: Int, body: Data) -> Bool {
        if status == 410 { return true }
        guard [400, 404, 422].contains(status) else { return false }
        return String(decoding: body.prefix(4096), as: UTF8.self).lowercased().contains("cursor")
    }

    /// Whether `status` refuses the credentials: `401`, or a status the API declares so.
    func refusesCredentials(_ status: Int) -> Bool {
        status == 401 || credentials?.refusedStatuses.contains(status) == true
    }

    /// Before an answer that could be a refusal of the credentials in disguise is settled (an update
    /// or delete answered `404`, a create answered `400`, an empty first page), sends the API's declared
    /// check request (see ``HTTPCredentialsCheck``); nothing without one.
    ///
    /// - Parameter answer: What is about to be believed, for the error (`PATCH … answered 404`).
    /// - Throws: ``RemoteSourceError/httpStatus(_:body:)`` with the check's status when it fails:
    ///   nothing of the answer is settled.
    func verifyCredentials(before answer: String) async throws {
        guard let check = credentials, let path = check.path else { return }
        let url = path.isEmpty ? baseURL : baseURL.appendingPathComponent(path)
        let response = try await send(request(url: url, method: check.method))
        guard !(200...299).contains(response.head.status) else { return }
        throw RemoteSourceError.httpStatus(
            refusesCredentials(response.head.status) ? response.head.status : 401,
            body: "the credentials check \(check.method) \(url.path) answered \(response.head.status), so \(answer) "
                + "may be a refusal of the credentials: nothing was settled, the changes stay queued; "
                + "refresh the credentials (the request hook) and sync again")
    }
}
