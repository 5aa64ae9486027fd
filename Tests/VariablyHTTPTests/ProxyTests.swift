#if canImport(Glibc)
    import Foundation
    import Testing
    import VariablyHTTP
    import VariablyTestSupport

    /// Proxies for real: a local `tinyproxy` (see ``TinyProxy``) carries `http://` requests and
    /// `https://` ones through a `CONNECT` tunnel; `no_proxy` hosts bypass it; a proxy that refuses the
    /// tunnel, or that is not there, gives an error that says so. The proxy comes from the transport's
    /// configuration here, and from `http_proxy` and `no_proxy` in a re-launched test binary.
    @Suite(
        .timeLimit(.minutes(3)), .enabled(if: TinyProxy.unavailability == nil, "\(TinyProxy.unavailability ?? "")"),
        .enabled(if: PythonScriptProcess.python != nil, "python3 is not installed"))
    struct ProxyTests {
        /// The environment variable that makes ``environmentProxyProbe()`` send a request through a
        /// transport configured by the environment alone, to the echo server at that URL.
        static let probeKey = "VARIABLY_PROXY_PROBE_URL"

        @Test func httpRequestsGoThroughTheConfiguredProxy() async throws {
            let proxy = try await TinyProxy()
            defer { proxy.stop() }
            let server = try await HostileHTTPServer(["echo"])
            defer { server.stop() }
            let transport = CurlTransport(configuration: .init(proxy: proxy.url, noProxy: ""))
            let read = try await TransportExchange.send(
                server.baseURL.appendingPathComponent("changes"), through: transport)
            #expect(read.echoedHead.contains("(tinyproxy/"), "\(read.echoedHead)")
            let write = try await TransportExchange.send(
                server.baseURL.appendingPathComponent("changes"), method: "POST", through: transport,
                body: Data("{}".utf8))
            #expect(write.echoedHead.hasPrefix("POST /users/changes HTTP/1.1\r\n"), "\(write.echoedHead)")
            #expect(write.echoedHead.contains("(tinyproxy/"), "\(write.echoedHead)")
            #expect(proxy.log.contains("GET http://127.0.0.1:"), "\(proxy.log)")
        }

        @Test func httpsRequestsGoThroughAConnectTunnel() async throws {
            let proxy = try await TinyProxy()
            defer { proxy.stop() }
            let authority = try await TestCertificateAuthority.make()
            defer { authority.remove() }
            let server = try await HostileHTTPServer(["echo"], tls: authority)
            defer { server.stop() }
            let transport = CurlTransport(
                configuration: .init(proxy: proxy.url, noProxy: "", certificateAuthorityFile: authority.certificate))
            let exchange = try await TransportExchange.send(
                server.baseURL.appendingPathComponent("changes"), through: transport)
            #expect(exchange.status == 200)
            // Inside the tunnel the proxy sees nothing: the request reached the server as the client wrote it.
            #expect(exchange.echoedHead.hasPrefix("GET /users/changes HTTP/1.1\r\n"), "\(exchange.echoedHead)")
            #expect(!exchange.echoedHead.contains("Via:"))
            let port = try #require(server.baseURL.port)
            #expect(proxy.log.contains("CONNECT 127.0.0.1:\(port)"), "\(proxy.log)")
        }

        @Test func noProxyHostsBypassTheProxy() async throws {
            let proxy = try await TinyProxy()
            defer { proxy.stop() }
            let server = try await HostileHTTPServer(["echo"])
            defer { server.stop() }
            let transport = CurlTransport(configuration: .init(proxy: proxy.url, noProxy: "localhost,127.0.0.1"))
            let exchange = try await TransportExchange.send(
                server.baseURL.appendingPathComponent("changes"), through: transport)
            #expect(exchange.status == 200)
            #expect(!exchange.echoedHead.contains("Via:"), "\(exchange.echoedHead)")
            #expect(!proxy.log.contains("Request"), "\(proxy.log)")
        }

        @Test func proxyThatRefusesTheTunnelIsProxyRefused() async throws {
            let proxy = try await TinyProxy(refusesTunnels: true)
            defer { proxy.stop() }
            let transport = CurlTransport(configuration: .init(proxy: proxy.url, noProxy: ""))
            let port = try TinyProxy.freePort()
            let error = await transportError {
                try await TransportExchange.send(URL(string: "https://127.0.0.1:\(port)/users")!, through: transport)
            }
            guard case .proxyRefused(let request, let reason) = error else {
                Issue.record("expected proxyRefused, got \(String(describing: error))")
                return
            }
            #expect(request == "GET /users")
            #expect(reason.contains("CONNECT answered 403"), "\(reason)")
            #expect(error?.isTransient == false)
        }

        @Test func proxyThatIsNotThereIsCannotConnect() async throws {
            let transport = CurlTransport(
                configuration: .init(proxy: "http://127.0.0.1:\(try TinyProxy.freePort())", noProxy: ""))
            let error = await transportError {
                try await TransportExchange.send(URL(string: "http://127.0.0.1:9/users")!, through: transport)
            }
            guard case .cannotConnect = error else {
                Issue.record("expected cannotConnect, got \(String(describing: error))")
                return
            }
        }

        /// `http_proxy` and `no_proxy`, read by libcurl itself: the test binary runs again with them set,
        /// filtered to ``environmentProxyProbe()``.
        @Test(arguments: [false, true])
        func environmentProxyIsUsedUnlessNoProxyNamesTheHost(bypassed: Bool) async throws {
            let proxy = try await TinyProxy()
            defer { proxy.stop() }
            let server = try await HostileHTTPServer(["echo"])
            defer { server.stop() }
            var environment = ProcessInfo.processInfo.environment
            for name in [
                "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
                "NO_PROXY",
            ] {
                environment[name] = nil
            }
            environment["http_proxy"] = proxy.url
            if bypassed { environment["no_proxy"] = "127.0.0.1" }
            environment[Self.probeKey] = server.baseURL.appendingPathComponent("changes").absoluteString
            let log = FileManager.default.temporaryDirectory.appendingPathComponent(
                "proxy-probe-\(UUID().uuidString).log"
            ).path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let output = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            defer { close(output) }
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let child = try ChildProcess(
                executable: executable,
                arguments: ["--testing-library", "swift-testing", "--filter", "environmentProxyProbe"],
                environment: environment, standardOutput: output, standardError: output)
            let termination = await child.exit(within: .seconds(120))
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(termination == .exited(0), "\(text.suffix(2000))")
            #expect(text.contains("proxy probe: \(bypassed ? "direct" : "proxied")"), "\(text.suffix(2000))")
        }

        /// In the re-launched binary: one request to the echo server ``probeKey`` names, through a
        /// transport configured by the environment alone. Does nothing elsewhere.
        @Test func environmentProxyProbe() async throws {
            guard let target = ProcessInfo.processInfo.environment[Self.probeKey] else { return }
            let exchange = try await TransportExchange.send(try #require(URL(string: target)), through: CurlTransport())
            print("proxy probe: \(exchange.echoedHead.contains("(tinyproxy/") ? "proxied" : "direct")")
        }
    }
#endif
