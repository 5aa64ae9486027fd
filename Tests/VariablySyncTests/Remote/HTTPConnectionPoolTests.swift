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
