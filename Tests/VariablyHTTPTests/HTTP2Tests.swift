#if canImport(Glibc)
    import Foundation
    import Testing
    import VariablyHTTP
    import VariablyTestSupport

    /// HTTP/2 where the server offers it: `CurlTransport` negotiates it over TLS, and concurrent
    /// requests to one server share one connection (`HTTP2Server` answers with the client's port).
    @Suite(
        .timeLimit(.minutes(3)),
        .enabled("python3 with hypercorn is not installed (Debian: apt-get install python3-hypercorn)") {
            await HTTP2Server.isAvailable()
        },
        .enabled(if: TestCertificateAuthority.openssl != nil, "the openssl command is not installed"))
    struct HTTP2Tests {
        private struct Answer: Decodable {
            var httpVersion: String
            var clientPort: Int
            var method: String
            var length: Int

            enum CodingKeys: String, CodingKey {
                case httpVersion = "http_version", clientPort = "client_port", method, length
            }
        }

        @Test func concurrentWritesShareOneConnectionOverHTTP2() async throws {
            let authority = try await TestCertificateAuthority.make()
            defer { authority.remove() }
            let server = try await HTTP2Server(tls: authority)
            defer { server.stop() }
            let transport = CurlTransport(
                configuration: .init(proxy: "", noProxy: "*", certificateAuthorityFile: authority.certificate))
            let url = server.baseURL
            // The first request sets up the connection (as a pull does before a sync pushes); the
            // concurrent ones after it are multiplexed on it.
            let first = try await TransportExchange.send(url, through: transport)
            let firstPort = try JSONDecoder().decode(Answer.self, from: first.body).clientPort
            let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let exchange = try await TransportExchange.send(
                            url.appendingPathComponent(String(index)), method: "PATCH", through: transport,
                            body: Data(#"{"title": "note \#(index)"}"#.utf8))
                        return try JSONDecoder().decode(Answer.self, from: exchange.body)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 8)
            #expect(answers.allSatisfy { $0.httpVersion == "2" && $0.method == "PATCH" && $0.length > 0 }, "\(answers)")
            #expect(Set(answers.map(\.clientPort)) == [firstPort], "\(answers.map(\.clientPort))")
        }

        @Test func http1IsKeptWhenHTTP2IsNotPreferred() async throws {
            let authority = try await TestCertificateAuthority.make()
            defer { authority.remove() }
            let server = try await HTTP2Server(tls: authority)
            defer { server.stop() }
            let transport = CurlTransport(
                configuration: .init(
                    proxy: "", noProxy: "*", certificateAuthorityFile: authority.certificate, prefersHTTP2: false))
            let exchange = try await TransportExchange.send(server.baseURL, through: transport)
            #expect(try JSONDecoder().decode(Answer.self, from: exchange.body).httpVersion == "1.1")
        }
    }
#endif
