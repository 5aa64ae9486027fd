#if canImport(Glibc)
    import Foundation
    import Testing
    import VariablyHTTP
    import VariablyTestSupport

    /// libcurl's TLS, as the Linux transport sets it up: the server's certificate is checked by the
    /// authorities trusted (the system's bundle, `SSL_CERT_FILE` and `SSL_CERT_DIR`, or the
    /// configuration's), by its dates and by the URL's host, name or address.
    ///
    /// A test authority is trusted through the configuration here, so every case runs in this process;
    /// the environment variables are tested in a re-launched test binary that has them set.
    @Suite(
        .timeLimit(.minutes(3)),
        .enabled(if: TestCertificateAuthority.unavailability == nil, "\(TestCertificateAuthority.unavailability ?? "")")
    )
    struct TransportTLSTests {
        /// The environment variable that makes ``trustProbe()`` pull from a TLS server of the authority
        /// in that folder, with a transport configured by the environment alone.
        static let probeKey = "VARIABLY_TLS_PROBE_AUTHORITY"

        private func transport(trusting authority: TestCertificateAuthority?) -> CurlTransport {
            CurlTransport(
                configuration: .init(
                    proxy: "", noProxy: "*", certificateAuthorityFile: authority?.certificate,
                    certificateAuthorityDirectory: nil))
        }

        private func page(_ url: URL, through transport: CurlTransport) async throws -> Int {
            try await TransportExchange.send(url.appendingPathComponent("changes"), through: transport).status
        }

        /// Pulls from a server presenting `certificate` of a fresh authority, trusted or not.
        private func refusal(of certificate: String, trusted: Bool) async throws -> HTTPTransportError? {
            let authority = try await TestCertificateAuthority.make()
            defer { authority.remove() }
            let server = try await HostileHTTPServer(["page"], tls: authority.serving(certificate))
            defer { server.stop() }
            let transport = transport(trusting: trusted ? authority : nil)
            return await transportError { try await page(server.baseURL, through: transport) }
        }

        @Test func aCertificateFromAnUntrustedAuthorityIsRefused() async throws {
            let error = try await refusal(of: "server", trusted: false)
            guard case .tlsFailure(_, let reason) = error else {
                Issue.record("expected tlsFailure, got \(String(describing: error))")
                return
            }
            #expect(error?.isTransient == false)
            #expect(reason.contains("the server's certificate was refused"), "\(reason)")
        }

        @Test func anExpiredCertificateIsRefused() async throws {
            let error = try await refusal(of: "expired", trusted: true)
            guard case .tlsFailure(_, let reason) = error else {
                Issue.record("expected tlsFailure, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("expired"), "\(reason)")
        }

        @Test func aCertificateForAnotherHostIsRefused() async throws {
            let error = try await refusal(of: "wrong-host", trusted: true)
            guard case .tlsFailure(_, let reason) = error else {
                Issue.record("expected tlsFailure, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("127.0.0.1"), "\(reason)")
        }

        /// By a name it lists (`localhost`) and by the address it lists (`127.0.0.1`), each twice (the
        /// second time on a kept connection).
        @Test func aTrustedCertificateIsAcceptedByNameAndByAddress() async throws {
            let authority = try await TestCertificateAuthority.make()
            defer { authority.remove() }
            let server = try await HostileHTTPServer(["page"], tls: authority)
            defer { server.stop() }
            var components = try #require(URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false))
            components.host = "localhost"
            let byName = try #require(components.url)
            let transport = transport(trusting: authority)
            for url in [server.baseURL, byName, server.baseURL, byName] {
                #expect(try await page(url, through: transport) == 200)
            }
        }

        /// `SSL_CERT_FILE` and `SSL_CERT_DIR`, each alone, make libcurl trust the authority they name:
        /// the test binary runs again with one of them set, filtered to ``trustProbe()``.
        @Test(arguments: ["SSL_CERT_FILE", "SSL_CERT_DIR"])
        func sslCertEnvironmentIsHonoured(variable: String) async throws {
            let authority = try await TestCertificateAuthority.make()
            defer { authority.remove() }
            var environment = ProcessInfo.processInfo.environment
            environment["SSL_CERT_FILE"] = nil
            environment["SSL_CERT_DIR"] = nil
            environment[TestCertificateAuthority.environmentKey] = nil
            environment[Self.probeKey] = authority.folder.path
            if variable == "SSL_CERT_FILE" {
                environment[variable] = authority.certificate
            } else {
                // A folder of certificates named by their subject hash, as `openssl rehash` leaves it.
                let folder = authority.folder.appendingPathComponent("certs")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try FileManager.default.copyItem(
                    atPath: authority.certificate, toPath: folder.appendingPathComponent("ca.pem").path)
                let rehash = try ChildProcess(
                    executable: try #require(TestCertificateAuthority.openssl), arguments: ["rehash", folder.path])
                #expect(await rehash.exit(within: .seconds(60)) == .exited(0))
                environment[variable] = folder.path
            }
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let log = authority.folder.appendingPathComponent("probe.log").path
            let output = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            defer { close(output) }
            let child = try ChildProcess(
                executable: executable, arguments: ["--testing-library", "swift-testing", "--filter", "trustProbe"],
                environment: environment, standardOutput: output, standardError: output)
            let termination = await child.exit(within: .seconds(120))
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(termination == .exited(0), "\(text.suffix(2000))")
            #expect(text.contains("trust probe: 200"), "\(text.suffix(2000))")
        }

        /// In the re-launched binary: pulls from a TLS server of the authority ``probeKey`` names through
        /// a transport that the environment alone configures. Does nothing elsewhere.
        @Test func trustProbe() async throws {
            guard let folder = ProcessInfo.processInfo.environment[Self.probeKey] else { return }
            let server = try await HostileHTTPServer(
                ["page"], tls: TestCertificateAuthority(folder: URL(fileURLWithPath: folder)))
            defer { server.stop() }
            let status = try await page(
                server.baseURL, through: CurlTransport(configuration: .init(proxy: "", noProxy: "*")))
            print("trust probe: \(status)")
        }
    }
#endif
