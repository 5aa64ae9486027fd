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
    /// or delete answered `404`, a create answered `400`, a pull that brought nothing), sends the API's declared
    /// check request (see ``HTTPCredentialsCheck``); nothing without one.
    ///
    /// A check that passes only once the request hook has refreshed the credentials (its first attempt
    /// refused) says the answer was given to credentials the server no longer accepts: that answer is
    /// not believed, and the request is made again with the fresh ones (a transient error, which the
    /// sync retries at once).
    ///
    /// - Parameter answer: What is about to be believed, for the error (`PATCH … answered 404`).
    /// - Throws: ``RemoteSourceError/httpStatus(_:body:)`` with the check's status when it fails, and
    ///   ``RemoteSourceError/transient(_:)`` when it passed on fresh credentials only: nothing of the
    ///   answer is settled either way.
    func verifyCredentials(before answer: String) async throws {
        guard let check = credentials, let path = check.path else { return }
        let url = path.isEmpty ? baseURL : baseURL.appendingPathComponent(path)
        let first = try await prepared(request(url: url, method: check.method), retrying: nil)
        let response = try await transmit(first)
        if (200...299).contains(response.head.status) { return }
        if refusesCredentials(response.head.status), prepare != nil {
            let refreshed = try await transmit(prepared(request(url: url, method: check.method), retrying: first))
            if (200...299).contains(refreshed.head.status) {
                throw RemoteSourceError.transient(
                    "\(answer) came with credentials the server no longer accepts (the credentials check "
                        + "\(check.method) \(url.path) answered \(response.head.status), then passed once the request hook "
                        + "refreshed them): asked again")
            }
        }
        throw RemoteSourceError.httpStatus(
            refusesCredentials(response.head.status) ? response.head.status : 401,
            body: "the credentials check \(check.method) \(url.path) answered \(response.head.status), so \(answer) "
                + "may be a refusal of the credentials: nothing was settled, the changes stay queued; "
                + "refresh the credentials (the request hook) and sync again")
    }
}
