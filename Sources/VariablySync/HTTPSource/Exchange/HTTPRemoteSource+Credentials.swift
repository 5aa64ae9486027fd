import Foundation

// MARK: - The credentials check

extension HTTPRemoteSource {
    /// Whether `status` refuses the credentials: `401`, or a status the API declares so.
    func refusesCredentials(_ status: Int) -> Bool {
        status == 401 || api.credentials?.refusedStatuses.contains(status) == true
    }

    /// Before an answer that could be a refusal of the credentials in disguise is settled (an update
    /// or delete answered `404`, a create answered `400`, an empty first page), sends the API's declared
    /// check request (see ``HTTPCredentialsCheck``); nothing without one.
    ///
    /// - Parameter answer: What is about to be believed, for the error (`PATCH … answered 404`).
    /// - Throws: ``RemoteSourceError/httpStatus(_:body:)`` with the check's status when it fails:
    ///   nothing of the answer is settled.
    func verifyCredentials(before answer: String) async throws {
        guard let check = api.credentials, let path = check.path else { return }
        let url = path.isEmpty ? baseURL : baseURL.appendingPathComponent(path)
        let response = try await exchange(makeRequest(url: url, method: check.method))
        guard !(200...299).contains(response.head.status) else { return }
        throw RemoteSourceError.httpStatus(
            refusesCredentials(response.head.status) ? response.head.status : 401,
            body: "the credentials check \(check.method) \(url.path) answered \(response.head.status), so \(answer) "
                + "may be a refusal of the credentials: nothing was settled, the changes stay queued; "
                + "refresh the credentials (the request hook) and sync again")
    }
}
