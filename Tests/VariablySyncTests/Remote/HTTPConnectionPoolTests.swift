#if canImport(Glibc)
    import Foundation
    import Glibc
    import Testing
    @testable import VariablySync

    /// The socket client's kept connections: handed out only while the server has said nothing, at
    /// most ``HTTPConnectionPool/perServer`` per server, never another server's.
    @Suite struct HTTPConnectionPoolTests {
        /// A connected pair of sockets: the client's end, kept by the pool, and the server's.
        private func pair() throws -> (client: Int32, server: Int32) {
            var ends: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { throw POSIXError(.EMFILE) }
            return (ends[0], ends[1])
        }

        @Test func aQuietConnectionIsHandedBackForItsServerOnly() throws {
            let pool = HTTPConnectionPool()
            let (client, server) = try pair()
            defer { close(server) }
            pool.keep(HTTPConnection(socket: client, tls: nil), for: "http://a:80")
            #expect(pool.take("http://b:80") == nil)
            let taken = try #require(pool.take("http://a:80"))
            #expect(taken.socket == client)
            #expect(pool.take("http://a:80") == nil)
        }

        /// Closed by the server, or written to unasked: dropped, not reused.
        @Test func aConnectionTheServerClosedOrWroteToIsNotReused() throws {
            let pool = HTTPConnectionPool()
            let (closedClient, closedServer) = try pair()
            close(closedServer)
            let (talkedClient, talkedServer) = try pair()
            defer { close(talkedServer) }
            _ = "HTTP/1.1 408 Request Timeout\r\n\r\n".withCString { send(talkedServer, $0, strlen($0), 0) }
            pool.keep(HTTPConnection(socket: closedClient, tls: nil), for: "http://a:80")
            pool.keep(HTTPConnection(socket: talkedClient, tls: nil), for: "http://a:80")
            #expect(pool.take("http://a:80") == nil)
        }

        /// The socket client's pulls share one connection (one TLS handshake over `https://`) while the
        /// server keeps it. A pull that starts more than the idle limit after the one before (a loaded
        /// machine) may take a new connection: only pulls closer than that must reuse it.
        @Test(arguments: HostileTransport.all.filter { !$0.isURLSession })
        func pullsReuseOneConnection(transport: HostileTransport) async throws {
            let server = try await transport.server(["keep-alive"])
            defer { server.stop() }
            let remote = transport.source(server)
            var previous: (start: ContinuousClock.Instant, connection: String)?
            for _ in 0..<3 {
                let start = ContinuousClock.now
                let connection = try await remote.pull(after: nil, limit: 10).nextCursor.rawValue
                if let previous, previous.start.duration(to: start) < HTTPConnectionPool.idleLimit {
                    #expect(connection == previous.connection)
                }
                previous = (start, connection)
            }
        }

        /// A kept connection that the server closes as the next request arrives: the request goes again
        /// on a new connection, and the pull succeeds.
        @Test(arguments: HostileTransport.all.filter { !$0.isURLSession })
        func aKeptConnectionClosedUnderARequestIsReplaced(transport: HostileTransport) async throws {
            let server = try await transport.server(["keep-alive-drop"])
            defer { server.stop() }
            let remote = transport.source(server)
            #expect(try await remote.pull(after: nil, limit: 10).nextCursor == "connection-1")
            #expect(try await remote.pull(after: nil, limit: 10).nextCursor == "connection-2")
        }

        @Test func atMostFourConnectionsAreKeptPerServer() throws {
            let pool = HTTPConnectionPool()
            var servers: [Int32] = []
            defer { servers.forEach { close($0) } }
            for _ in 0..<5 {
                let (client, server) = try pair()
                servers.append(server)
                pool.keep(HTTPConnection(socket: client, tls: nil), for: "http://a:80")
            }
            var taken: [HTTPConnection] = []
            while let connection = pool.take("http://a:80") { taken.append(connection) }
            #expect(taken.count == HTTPConnectionPool.perServer)
        }
    }
#endif
