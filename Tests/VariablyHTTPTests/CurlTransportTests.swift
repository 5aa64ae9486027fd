#if canImport(Glibc)
    import Foundation
    import Testing
    import VariablyHTTP
    import VariablyTestSupport

    /// The Linux transport on its own, against `HostileHTTPServer`: what libcurl does for the package
    /// and what the transport adds (the size limit while the body streams, the deadline of the whole
    /// request, cancellation, redirects handed back, errors that say what failed).
    @Suite(.timeLimit(.minutes(3)), .enabled(if: PythonScriptProcess.python != nil, "python3 is not installed"))
    struct CurlTransportTests {
        private let transport = CurlTransport(configuration: .init(proxy: "", noProxy: "*"))

        @Test func platformDefaultOnLinuxIsLibcurl() {
            #expect(HTTPTransports.platformDefault is CurlTransport)
        }

        @Test func gzipBombStopsAtTheLimitWhileTheBodyStreams() async throws {
            let server = try await HostileHTTPServer(["gzip-bomb"])
            defer { server.stop() }
            let response = try await transport.send(
                HTTPTransportRequest(
                    method: "GET", url: server.baseURL.appendingPathComponent("changes"), maximumResponseSize: 1 << 20))
            var received = 0
            let error = await transportError {
                for try await chunk in response.body { received += chunk.count }
            }
            #expect(error == .tooLarge(limit: 1 << 20))
            #expect(received <= 1 << 20, "the decoded bytes handed over stay within the limit")
        }

        /// The body of a request still streams after the app dropped its transport: the transfer, not
        /// the transport, keeps libcurl's multi handle and its thread.
        @Test func requestOfADroppedTransportRunsToItsEnd() async throws {
            let server = try await HostileHTTPServer(["gzip-bomb"])
            defer { server.stop() }
            var transport: CurlTransport? = CurlTransport(configuration: .init(proxy: "", noProxy: "*"))
            let response = try await #require(transport).send(
                HTTPTransportRequest(
                    method: "GET", url: server.baseURL.appendingPathComponent("changes"), maximumResponseSize: 4 << 20))
            transport = nil
            let error = await transportError {
                for try await _ in response.body {}
            }
            #expect(error == .tooLarge(limit: 4 << 20), "the body streamed on until the limit, not cancelled")
        }

        @Test(arguments: ["gzip", "gzip-chunked", "deflate", "deflate-raw"])
        func compressedBodyIsHandedOverDecoded(mode: String) async throws {
            let server = try await HostileHTTPServer([mode])
            defer { server.stop() }
            let exchange = try await TransportExchange.send(
                server.baseURL.appendingPathComponent("changes"), through: transport)
            #expect(exchange.headers["content-encoding"] == nil)
            let page = try JSONSerialization.jsonObject(with: exchange.body) as? [String: Any]
            #expect(page?["next_cursor"] as? String == "ab+c/d==")
        }

        @Test func trickleFailsAtTheWholeRequestDeadline() async throws {
            let server = try await HostileHTTPServer(["trickle"])
            defer { server.stop() }
            let started = ContinuousClock.now
            let error = await transportError {
                try await TransportExchange.send(
                    server.baseURL.appendingPathComponent("changes"), through: transport, timeout: 1)
            }
            #expect(error == .timedOut(request: "GET /users/changes", seconds: 1))
            #expect(error?.isTransient == true)
            #expect(started.duration(to: .now) < .seconds(60), "the server would need 20,000 s")
        }

        @Test func cancellingTheTaskEndsTheRequestAtOnce() async throws {
            let server = try await HostileHTTPServer(["silent"])
            defer { server.stop() }
            let (transport, url) = (self.transport, server.baseURL.appendingPathComponent("changes"))
            let task = Task { try await TransportExchange.send(url, through: transport, timeout: 600) }
            try await Task.sleep(for: .milliseconds(100))
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }

        @Test func redirectIsHandedBackNotFollowed() async throws {
            let server = try await HostileHTTPServer(["redirect-307", "echo"])
            defer { server.stop() }
            let exchange = try await TransportExchange.send(
                server.baseURL.appendingPathComponent("changes"), method: "POST", through: transport,
                body: Data("{}".utf8))
            #expect(exchange.status == 307)
            #expect(exchange.headers["location"]?.contains("/users/moved/") == true)
        }

        @Test func chunkedAnswerAfterAnInterimResponseIsRead() async throws {
            let server = try await HostileHTTPServer(["chunked"])
            defer { server.stop() }
            let exchange = try await TransportExchange.send(
                server.baseURL.appendingPathComponent("changes"), through: transport)
            #expect(exchange.status == 200)
            let page = try JSONSerialization.jsonObject(with: exchange.body) as? [String: Any]
            #expect(page?["next_cursor"] as? String == "ab+c/d==")
        }

        @Test func endlessHeadIsAnInvalidResponse() async throws {
            let server = try await HostileHTTPServer(["header-flood"])
            defer { server.stop() }
            let error = await transportError {
                try await TransportExchange.send(server.baseURL.appendingPathComponent("changes"), through: transport)
            }
            #expect(
                error
                    == .invalidResponse(request: "GET /users/changes", reason: "the response head exceeds 65536 bytes"))
        }

        @Test func refusedConnectionIsCannotConnectAndTransient() async throws {
            let port = try TinyProxy.freePort()
            let error = await transportError {
                try await TransportExchange.send(URL(string: "http://127.0.0.1:\(port)/users")!, through: transport)
            }
            guard case .cannotConnect(let request, _) = error else {
                Issue.record("expected cannotConnect, got \(String(describing: error))")
                return
            }
            #expect(request == "GET /users")
            #expect(error?.isTransient == true)
        }

        /// Concurrent requests to one plain-HTTP server go out at once, each on a connection of its own
        /// (HTTP/1.1 has one request at a time per connection): none waits behind another. The server
        /// closes each connection after its answer, holds each answer 300 ms and says how many requests
        /// it held at once. (With `CURLOPT_PIPEWAIT` on plain HTTP, each request waited for the
        /// connection of the one before: a push at concurrency 4 ran one request at a time.)
        @Test func concurrentPlainHTTPRequestsOverlap() async throws {
            let server = try await PythonScriptProcess.start(script: Self.overlapServer, arguments: [], name: "overlap")
            defer { server.stop() }
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/notes"))
            let transport = self.transport
            let peaks = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        // One after another, each while the ones before are held, as a push sends them.
                        try await Task.sleep(for: .milliseconds(50 * index))
                        let exchange = try await TransportExchange.send(
                            url, method: "PATCH", through: transport, body: Data("{}".utf8))
                        return Int(String(decoding: exchange.body, as: UTF8.self)) ?? 0
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect((peaks.max() ?? 0) >= 2, "the server never held two requests at once: \(peaks)")
        }

        private static let overlapServer = #"""
            import http.server, time
            exit_after(600, "overlap")
            lock, state = threading.Lock(), {"now": 0, "peak": 0}

            class Handler(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                def log_message(self, *arguments):
                    pass
                def do_PATCH(self):
                    self.rfile.read(int(self.headers.get("Content-Length", "0")))
                    with lock:
                        state["now"] += 1
                        state["peak"] = max(state["peak"], state["now"])
                    time.sleep(0.3)
                    with lock:
                        peak = state["peak"]
                        state["now"] -= 1
                    body = str(peak).encode()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.send_header("Connection", "close")
                    self.close_connection = True
                    self.end_headers()
                    self.wfile.write(body)

            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """#

        @Test func requestsToOneServerShareConnections() async throws {
            let server = try await HostileHTTPServer(["keep-alive"])
            defer { server.stop() }
            var cursors: [String] = []
            for _ in 0..<3 {
                let exchange = try await TransportExchange.send(
                    server.baseURL.appendingPathComponent("changes"), through: transport)
                let page = try JSONSerialization.jsonObject(with: exchange.body) as? [String: Any]
                cursors.append(page?["next_cursor"] as? String ?? "")
            }
            // `connection-N`: the connection the server answered on.
            #expect(Set(cursors).count == 1, "\(cursors)")
        }
    }
#endif
