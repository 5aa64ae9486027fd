import VariablyHTTP

// MARK: - From the transport's errors

extension RemoteSourceError {
    /// The sync layer's reading of a transport's failure, classified for retries as before the
    /// transport had errors of its own: a timeout, a refused or a dropped connection is transient; a
    /// refused certificate or proxy, a broken answer or a missing library is not.
    init(_ error: HTTPTransportError) {
        switch error {
        case .timedOut, .cannotConnect, .connectionLost:
            self = .transient(error.description)
        case .tooLarge(let limit):
            self = .responseTooLarge(limit: limit)
        case .invalidResponse(let request, let reason):
            self = .invalidResponse("\(request): \(reason)")
        case .tlsFailure, .proxyRefused, .libraryUnavailable, .failed:
            self = .unavailable(error.description)
        }
    }
}
