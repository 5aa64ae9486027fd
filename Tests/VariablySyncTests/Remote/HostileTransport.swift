import Foundation
import Testing
import VariablySync

/// The ways ``HTTPRemoteSource`` reaches a ``HostileHTTPServer``, for the tests that run each hostile
/// scenario on every transport: `http://` through the package's socket client (the default on Linux)
/// and through ``URLSessionTransport``, and `https://` through ``URLSessionTransport`` over real TLS.
///
/// The TLS case runs only in a test binary re-launched to trust the test authority (see
/// ``TestCertificateAuthority``, and `HTTPSTransportTests`, which launches it); that binary runs only
/// the TLS case, the others already ran in the parent.
enum HostileTransport: String, Sendable, CustomTestStringConvertible {
    case socket
    case urlSession
    case urlSessionOverTLS

    var testDescription: String { rawValue }

    /// The transports this process tests: TLS only in a re-launched binary, all three where the system
    /// bundle itself trusts the test authority (see `TestCertificateAuthority.isInSystemBundle`).
    static var all: [HostileTransport] {
        guard TestCertificateAuthority.trusted != nil else { return [.socket, .urlSession] }
        guard TestCertificateAuthority.isInSystemBundle else { return [.urlSessionOverTLS] }
        return [.socket, .urlSession, .urlSessionOverTLS]
    }

    var isURLSession: Bool { self != .socket }

    /// A server answering in `modes`, over TLS for ``urlSessionOverTLS``.
    func server(_ modes: [String], records: String = "[]") async throws -> HostileHTTPServer {
        try await HostileHTTPServer(
            modes, records: records, tls: self == .urlSessionOverTLS ? TestCertificateAuthority.trusted : nil)
    }

    /// A source for `server` through this transport.
    func source(
        _ server: HostileHTTPServer, timeout: TimeInterval = 20, maximumResponseSize: Int = 64 << 20,
        prepare: HTTPRemoteSource<Account>.RequestHook? = nil
    ) -> HTTPRemoteSource<Account> {
        // A session per source: a server that floods one keeps its queue busy (see `URLSessionTransfer`),
        // and must not slow the other tests' requests.
        HTTPRemoteSource<Account>(
            baseURL: server.baseURL, timeout: timeout,
            transport: isURLSession ? URLSessionTransport(configuration: .ephemeral) : nil,
            maximumResponseSize: maximumResponseSize, prepare: prepare)
    }
}
