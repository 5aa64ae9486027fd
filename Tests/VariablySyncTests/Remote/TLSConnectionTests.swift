import Foundation
import Testing
import VariablySync

/// The socket client's TLS (the default for `https://` on Linux), beyond the hostile scenarios that
/// `HostileTransport.socketOverTLS` runs: the server's certificate is checked, by the authorities the
/// system trusts and by the URL's host, name or address.
@Suite(.enabled(if: TestCertificateAuthority.unavailability == nil, "\(TestCertificateAuthority.unavailability ?? "")"))
struct TLSConnectionTests {
    /// A certificate from an authority the system does not trust: refused during the handshake, a
    /// typed error that retrying will not change, and no request sent.
    @Test(.enabled(if: TestCertificateAuthority.trusted == nil, "this process trusts the test authority"))
    func aCertificateFromAnUntrustedAuthorityIsRefused() async throws {
        let authority = try await TestCertificateAuthority.make()
        defer { authority.remove() }
        let server = try await HostileHTTPServer(["page"], tls: authority)
        defer { server.stop() }
        let remote = HTTPRemoteSource<Account>(baseURL: server.baseURL, timeout: 20)
        do {
            _ = try await remote.pull(after: nil, limit: 10)
            Issue.record("an untrusted certificate was accepted")
        } catch let error as RemoteSourceError {
            guard case .unavailable(let reason) = error else {
                Issue.record("expected unavailable, got \(error)")
                return
            }
            #expect(!error.isTransient)
            #expect(reason.contains("the server's certificate was refused"), "\(reason)")
        }
    }

    /// A trusted certificate reached by a name it lists (`localhost`) and by the address it lists
    /// (`127.0.0.1`): both accepted, the name sent as SNI; each again, on a session resumed from the
    /// first connection.
    @Test(.enabled(if: TestCertificateAuthority.trusted != nil, "runs where the test authority is trusted"))
    func aTrustedCertificateIsAcceptedByNameAndByAddress() async throws {
        let server = try await HostileHTTPServer(["page"], tls: TestCertificateAuthority.trusted)
        defer { server.stop() }
        var components = try #require(URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false))
        components.host = "localhost"
        let byName = try #require(components.url)
        for url in [server.baseURL, byName, server.baseURL, byName] {
            let page = try await HTTPRemoteSource<Account>(baseURL: url, timeout: 20).pull(after: nil, limit: 10)
            #expect(page.nextCursor == "ab+c/d==")
        }
    }
}
