#if canImport(Glibc)
    import Foundation
    import Glibc

    /// A connected socket, with its TLS session for `https://`, that the socket client keeps open
    /// between two `GET` requests to the same server. Closed when released by nobody.
    ///
    /// `@unchecked Sendable`: a connection is used by one exchange thread at a time: the pool hands it
    /// out under its lock, and an exchange gives it back, or closes it, when its request is done.
    final class HTTPConnection: @unchecked Sendable {
        private(set) var socket: Int32
        private(set) var tls: TLSConnection?

        init(socket: Int32, tls: TLSConnection?) {
            self.socket = socket
            self.tls = tls
        }

        deinit {
            tls = nil
            if socket >= 0 { close(socket) }
        }

        /// The socket and TLS session, now the caller's to close.
        func release() -> (socket: Int32, tls: TLSConnection?) {
            defer {
                socket = -1
                tls = nil
            }
            return (socket, tls)
        }

        /// Whether the server has said nothing since the last answer: no bytes, no close. A kept
        /// connection the server closed (or wrote to unasked) is not used again.
        var isQuiet: Bool {
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) == 0
        }
    }

    /// The connections kept open between requests, per server (`scheme://host:port`): a sync's pulls
    /// reuse one connection, and over `https://` one TLS handshake, instead of one per page.
    ///
    /// Only `GET` requests are sent on a kept connection: should the server have closed it just as it
    /// is reused, a `GET` is sent again on a new one, which no write could be without the risk of
    /// applying it twice.
    ///
    /// `@unchecked Sendable`: `idle` is only touched while `lock` is held.
    final class HTTPConnectionPool: @unchecked Sendable {
        static let shared = HTTPConnectionPool()

        /// How long a connection may wait unused: servers close idle ones after a few seconds to a minute.
        static let idleLimit: Duration = .seconds(10)
        /// The most connections kept per server.
        static let perServer = 4

        private let lock = NSLock()
        private var idle: [String: [(connection: HTTPConnection, since: ContinuousClock.Instant)]] = [:]

        /// A kept connection to `server` that is still quiet, newest first; `nil` when there is none.
        func take(_ server: String) -> HTTPConnection? {
            let now = ContinuousClock.now
            // The connections found stale are closed when this returns, once the lock is released.
            var stale: [HTTPConnection] = []
            return lock.withLock {
                while let last = idle[server]?.popLast() {
                    if last.since.duration(to: now) < Self.idleLimit, last.connection.isQuiet { return last.connection }
                    stale.append(last.connection)
                }
                return nil
            }
        }

        /// Keeps `connection` to `server` for the next request; the oldest goes past ``perServer``, and
        /// connections to any server that waited past ``idleLimit`` go too (a server never asked again
        /// keeps none open).
        ///
        /// - Complexity: O(k) in the connections kept.
        func keep(_ connection: HTTPConnection, for server: String) {
            let now = ContinuousClock.now
            // The connections dropped are closed here, once the lock is released.
            let dropped: [HTTPConnection] = lock.withLock {
                var dropped: [HTTPConnection] = []
                for (key, entries) in idle {
                    let expired = entries.filter { $0.since.duration(to: now) >= Self.idleLimit }
                    guard !expired.isEmpty else { continue }
                    dropped += expired.map(\.connection)
                    let fresh = entries.filter { $0.since.duration(to: now) < Self.idleLimit }
                    idle[key] = fresh.isEmpty ? nil : fresh
                }
                idle[server, default: []].append((connection, now))
                if idle[server]!.count > Self.perServer { dropped.append(idle[server]!.removeFirst().connection) }
                return dropped
            }
            withExtendedLifetime(dropped) {}
        }
    }
#endif
