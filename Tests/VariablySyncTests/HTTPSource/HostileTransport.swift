import Foundation
import Testing
import UserSyncModels
import VariablyHTTP
import VariablySync
import VariablyTestSupport

/// The ways ``HTTPRemoteSource`` reaches a ``HostileHTTPServer``, for the tests that run each hostile
/// scenario on every transport: `http://` through the platform's default transport (libcurl on Linux)
/// and through ``URLSessionTransport``, and `https://` over real TLS through both.
///
/// The TLS cases run only in a test binary re-launched to trust the test authority (see
/// ``TestCertificateAuthority``, and `HTTPSTransportTests`, which launches it); that binary runs only
/// the TLS cases, the others already ran in the parent.
enum HostileTransport: String, Sendable, CustomTestStringConvertible {
    /// `HTTPTransports.platformDefault`: the system's libcurl on Linux.
    case curl
    case urlSession
    case urlSessionOverTLS
    case curlOverTLS

    var testDescription: String { rawValue }

    /// The transports this process tests: TLS only in a re-launched binary, all four where the system
    /// bundle itself trusts the test authority (see `TestCertificateAuthority.isInSystemBundle`).
    static var all: [HostileTransport] {
        guard TestCertificateAuthority.trusted != nil else { return [.curl, .urlSession] }
        guard TestCertificateAuthority.isInSystemBundle else { return [.urlSessionOverTLS, .curlOverTLS] }
        return [.curl, .urlSession, .urlSessionOverTLS, .curlOverTLS]
    }

    var isURLSession: Bool { self == .urlSession || self == .urlSessionOverTLS }

    var isTLS: Bool { self == .urlSessionOverTLS || self == .curlOverTLS }

    /// A server answering in `modes`, over TLS for the TLS cases.
    func server(_ modes: [String], records: String = "[]") async throws -> HostileHTTPServer {
        try await HostileHTTPServer(modes, records: records, tls: isTLS ? TestCertificateAuthority.trusted : nil)
    }

    /// A source for `server` through this transport.
    func source(
        _ server: HostileHTTPServer, timeout: TimeInterval = 20, maximumResponseSize: Int = 64 << 20,
        prepare: HTTPRemoteSource<User>.RequestHook? = nil
    ) -> HTTPRemoteSource<User> {
        // A session per source: a server that floods one keeps its queue busy (see `URLSessionTransfer`),
        // and must not slow the other tests' requests.
        HTTPRemoteSource<User>(
            baseURL: server.baseURL, timeout: timeout,
            transport: isURLSession ? URLSessionTransport(configuration: .ephemeral) : HTTPTransports.platformDefault,
            maximumResponseSize: maximumResponseSize, prepare: prepare)
    }
}
