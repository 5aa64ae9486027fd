#if canImport(Glibc)
    import Foundation
    import Glibc

    /// A minimal HTTP/1.1 client over POSIX sockets, for `http://` URLs on Linux, and `https://` ones
    /// over the system's OpenSSL (``OpenSSLLibrary``).
    ///
    /// FoundationNetworking traps (`Fatal error: Transfer completed, but there's no response`) when a
    /// server sends a status line and closes, which no caller can catch; this client reads the same
    /// answer as a typed error. `GET` requests keep their connection for the next one to the same server
    /// (``HTTPConnectionPool``), other requests close it (`Connection: close`); non-blocking I/O with
    /// `poll(2)`, and one deadline for the whole request, TLS handshake included (name lookup excepted:
    /// `getaddrinfo` has no timeout). The blocking work runs on a thread of its own, never on Swift's
    /// cooperative pool.
    struct HTTPSocketClient: Sendable {
        /// The longest the whole request may take, connection and body included.
        let timeout: TimeInterval
        /// The most body bytes accepted.
        let maximumResponseSize: Int

        /// Sends `request` and returns the status, the headers and the body.
        ///
        /// - Throws: ``RemoteSourceError``: `transient` for a refused, dropped or timed-out connection,
        ///   `invalidResponse` for a broken answer, `responseTooLarge` past the limit;
        ///   `CancellationError` when the task is cancelled.
        func send(_ request: HTTPRequestHead) async throws -> (head: HTTPResponseParser.Head, body: Data) {
            let cancellation = CancellationFlag()
            let (timeout, maximumResponseSize) = (self.timeout, self.maximumResponseSize)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let thread = Thread {
                        // OpenSSL writes with write(2): a peer that closed would raise SIGPIPE, which ends
                        // the process. Blocked on this thread, it stays pending here (and goes with the
                        // thread) while the write fails with EPIPE, read as a failed connection.
                        var pipe = sigset_t()
                        sigemptyset(&pipe)
                        sigaddset(&pipe, SIGPIPE)
                        pthread_sigmask(SIG_BLOCK, &pipe, nil)
                        continuation.resume(
                            with: Result {
                                try Exchange(
                                    request: request,
                                    deadline: .now + .milliseconds(Int64((min(timeout, 1e9) * 1000).rounded(.up))),
                                    maximumResponseSize: maximumResponseSize, cancellation: cancellation
                                ).run()
                            })
                    }
                    thread.name = "VariablySync.HTTPSocketClient"
                    thread.start()
                }
            } onCancel: {
                cancellation.cancel()
            }
        }
    }

    /// One request on one connection, run synchronously on the client's thread. The socket belongs to
    /// this object: opened (or taken from ``HTTPConnectionPool``) in `run`, closed in `deinit` unless
    /// handed back to the pool.
    private final class Exchange {
        let request: HTTPRequestHead
        /// On the monotonic clock: a change of the wall clock neither shortens nor stretches a request.
        let deadline: ContinuousClock.Instant
        let cancellation: CancellationFlag
        let maximumResponseSize: Int
        var parser: HTTPResponseParser
        var socket: Int32 = -1
        /// The TLS session of an `https://` request, once connected.
        var tls: TLSConnection?
        /// Whether the kept connection this request was sent on proved closed before any answer.
        var foundClosed = false

        init(
            request: HTTPRequestHead, deadline: ContinuousClock.Instant, maximumResponseSize: Int,
            cancellation: CancellationFlag
        ) {
            self.request = request
            self.deadline = deadline
            self.cancellation = cancellation
            self.maximumResponseSize = maximumResponseSize
            parser = HTTPResponseParser(maximumBodySize: maximumResponseSize)
        }

        deinit {
            tls = nil
            if socket >= 0 { close(socket) }
        }

        var isSecure: Bool { request.url.scheme?.lowercased() == "https" }

        /// The URL's host, without the brackets of an IPv6 address.
        var host: String { (request.url.host ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }

        /// The URL's port, or the scheme's.
        var port: Int { request.url.port ?? (isSecure ? 443 : 80) }

        /// The pool's key for the request's server.
        var server: String { "\(isSecure ? "https" : "http")://\(host):\(port)" }

        func run() throws -> (head: HTTPResponseParser.Head, body: Data) {
            // A `GET` goes on a kept connection when there is one, and asks to keep it; should the server
            // have closed it meanwhile (nothing came back), the request goes again on a new connection.
            let keepsConnection = request.method == "GET"
            if keepsConnection, let kept = HTTPConnectionPool.shared.take(server) {
                (socket, tls) = kept.release()
                do {
                    return try exchange(keepAlive: true, isReused: true)
                } catch where foundClosed && ContinuousClock.now < deadline && !cancellation.isCancelled {
                    tls = nil
                    close(socket)
                    socket = -1
                    parser = HTTPResponseParser(maximumBodySize: maximumResponseSize)
                }
            }
            try connect()
            if isSecure { try startTLS() }
            return try exchange(keepAlive: keepsConnection, isReused: false)
        }

        /// Sends the request on the connected socket and reads the whole answer; keeps the connection
        /// in the pool afterwards when `keepAlive` and the answer allow it.
        private func exchange(keepAlive: Bool, isReused: Bool) throws -> (head: HTTPResponseParser.Head, body: Data) {
            var received = 0
            do {
                try write(request.serialized(keepAlive: keepAlive))
            } catch let error as RemoteSourceError {
                foundClosed = isReused
                throw error
            }
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            // TLS may hold decrypted bytes the socket no longer signals: read first, wait when told to.
            var events: Int16? = tls == nil ? Int16(POLLIN) : nil
            while !parser.isComplete {
                if let events {
                    try wait(for: events, doing: "waiting for the answer")
                } else {
                    try checkTime(doing: "waiting for the answer")
                }
                let count: Int
                if let tls {
                    let progress: TLSConnection.Progress
                    do {
                        progress = try chunk.withUnsafeMutableBytes { try tls.read(into: $0.baseAddress!, count: $0.count) }
                    } catch {
                        if received == 0, isReused { foundClosed = true }
                        throw error
                    }
                    switch progress {
                    case .bytes(let read):
                        count = read
                        events = nil
                    case .closed:
                        count = 0
                    case .wait(let wanted):
                        events = wanted
                        continue
                    }
                } else {
                    count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                    if count < 0 {
                        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                        if received == 0, isReused { foundClosed = true }
                        throw RemoteSourceError.transient(
                            "\(request.summary): the connection failed: \(Self.describe(errno))")
                    }
                }
                if count == 0, received == 0, isReused { foundClosed = true }
                received += max(count, 0)
                do {
                    if count == 0 {
                        try parser.finish()
                    } else {
                        try parser.consume(Data(chunk[0..<count]))
                    }
                } catch {
                    throw error.remoteError(summary: request.summary)
                }
            }
            guard let head = parser.head else { throw RemoteSourceError.invalidResponse("\(request.summary): no head") }
            tls?.keepSession()
            let serverCloses = head.headers["connection"]?.lowercased().contains("close") ?? false
            if keepAlive, parser.endsWithoutClose, !serverCloses {
                HTTPConnectionPool.shared.keep(HTTPConnection(socket: socket, tls: tls), for: server)
                (socket, tls) = (-1, nil)
            }
            return (head, parser.body)
        }

        // MARK: - Connection

        private func connect() throws {
            guard !host.isEmpty else {
                throw RemoteSourceError.unavailable("\(request.summary): the URL has no host")
            }
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &list)
            guard status == 0, let first = list else {
                throw RemoteSourceError.transient(
                    "\(request.summary): cannot resolve \(host): \(String(cString: gai_strerror(status)))")
            }
            defer { freeaddrinfo(list) }
            var lastError = "no address"
            var address: UnsafeMutablePointer<addrinfo>? = first
            while let entry = address {
                address = entry.pointee.ai_next
                if try attempt(entry.pointee, error: &lastError) { return }
            }
            throw RemoteSourceError.transient("\(request.summary): cannot connect to \(host):\(port): \(lastError)")
        }

        /// Connects to one address without blocking past the deadline; `false` to try the next one.
        private func attempt(_ address: addrinfo, error: inout String) throws -> Bool {
            if socket >= 0 { close(socket) }
            socket = Glibc.socket(
                address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                address.ai_protocol)
            guard socket >= 0 else {
                error = Self.describe(errno)
                return false
            }
            var on: Int32 = 1
            setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(socket, address.ai_addr, address.ai_addrlen) == 0 { return true }
            guard errno == EINPROGRESS else {
                error = Self.describe(errno)
                return false
            }
            try wait(for: Int16(POLLOUT), doing: "connecting")
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &length)
            if failure != 0 {
                error = Self.describe(failure)
                return false
            }
            return true
        }

        /// Runs the TLS handshake within the request's deadline.
        private func startTLS() throws {
            guard let library = OpenSSLLibrary.shared else {
                throw RemoteSourceError.unavailable("\(request.summary): no TLS library (libssl) could be opened")
            }
            let connection = try TLSConnection(
                library: library, socket: socket, host: host, port: port, summary: request.summary)
            tls = connection
            while let events = try connection.handshake() {
                try wait(for: events, doing: "the TLS handshake")
            }
        }

        private func write(_ data: Data) throws {
            var offset = 0
            var events = Int16(POLLOUT)
            while offset < data.count {
                try wait(for: events, doing: "sending the request")
                events = Int16(POLLOUT)
                if let tls {
                    switch try data.withUnsafeBytes({ try tls.write($0.baseAddress! + offset, count: $0.count - offset) }) {
                    case .bytes(let written): offset += written
                    case .wait(let wanted): events = wanted
                    case .closed: throw RemoteSourceError.transient("\(request.summary): the connection closed")
                    }
                    continue
                }
                let count = data.withUnsafeBytes { bytes in
                    Glibc.send(socket, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                }
                if count < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                    throw RemoteSourceError.transient("\(request.summary): sending failed: \(Self.describe(errno))")
                }
                offset += count
            }
        }

        /// Waits until the socket is ready for `events`, in slices of at most 50 ms so that a
        /// cancellation is seen quickly; throws at the deadline.
        private func wait(for events: Int16, doing activity: String) throws {
            while true {
                let remaining = try checkTime(doing: activity)
                var entry = pollfd(fd: socket, events: events, revents: 0)
                let milliseconds =
                    remaining >= .milliseconds(50) ? 50 : Int32(max(remaining / .milliseconds(1), 1).rounded(.up))
                let ready = poll(&entry, 1, milliseconds)
                if ready < 0, errno != EINTR {
                    throw RemoteSourceError.transient("\(request.summary): poll failed: \(Self.describe(errno))")
                }
                // POLLHUP and POLLERR count as ready: the next recv or send reports what happened.
                if ready > 0 { return }
            }
        }

        /// The time left before the deadline; throws once it has passed, or when the task is cancelled.
        @discardableResult
        private func checkTime(doing activity: String) throws -> Duration {
            if cancellation.isCancelled { throw CancellationError() }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw RemoteSourceError.transient("\(request.summary): timed out \(activity)")
            }
            return remaining
        }

        private static func describe(_ code: Int32) -> String {
            String(cString: strerror(code))
        }
    }
#endif
