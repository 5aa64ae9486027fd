#if canImport(Glibc)
    import Foundation
    import Glibc

    /// TLS over one connected, non-blocking socket, for the socket client's `https://` requests: the
    /// server's certificate checked against the system's authorities and the URL's host (name or IP
    /// address), the host sent as SNI. The socket stays the caller's; the `SSL` object is freed with
    /// this one.
    final class TLSConnection {
        /// What one read or write did.
        enum Progress {
            /// That many bytes moved.
            case bytes(Int)
            /// The socket must become readable (or writable) before trying again.
            case wait(events: Int16)
            /// The server closed the connection.
            case closed
        }

        private let library: OpenSSLLibrary
        private let ssl: OpenSSLLibrary.SSLPointer
        private let summary: String
        /// `host:port`, the key of the server's kept session.
        private let server: String

        /// - Throws: ``RemoteSourceError/unavailable(_:)`` when the session cannot be set up.
        init(library: OpenSSLLibrary, socket: Int32, host: String, port: Int, summary: String) throws {
            self.library = library
            self.summary = summary
            self.server = "\(host):\(port)"
            library.clearErrors()
            guard let ssl = library.newSSL(library.clientContext) else {
                throw RemoteSourceError.unavailable("\(summary): TLS: \(library.takeErrors() ?? "no session")")
            }
            self.ssl = ssl
            let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
            let checked: Int32 =
                isAddress
                ? library.setIPAddress(library.verificationParameters(ssl), host)
                : library.setHost(ssl, host)
            if !isAddress {
                // SSL_set_tlsext_host_name, a macro over SSL_ctrl.
                _ = host.withCString {
                    library.control(
                        ssl, OpenSSLLibrary.controlSetServerName, OpenSSLLibrary.serverNameTypeHost,
                        UnsafeMutableRawPointer(mutating: $0))
                }
            }
            guard checked == 1, library.setFD(ssl, socket) == 1 else {
                throw RemoteSourceError.unavailable("\(summary): TLS: \(library.takeErrors() ?? "cannot check \(host)")")
            }
            // A session this server gave before: resumed, the handshake skips the certificate exchange
            // (the name and address checks above still apply to a full one, should the server refuse it).
            library.sessions.withSession(for: server) { _ = library.setSession(ssl, $0) }
        }

        /// Keeps this connection's session for the next connection to the server, once a whole answer
        /// has been read over it (TLS 1.3 servers send their tickets after the handshake).
        func keepSession() {
            guard let session = library.getSession(ssl) else { return }
            guard library.isResumable(session) == 1 else {
                library.freeSession(session)
                return
            }
            library.sessions.keep(session, for: server)
        }

        deinit {
            library.freeSSL(ssl)
        }

        /// One step of the handshake: `nil` once it is done, or what the socket must become first.
        ///
        /// - Throws: ``RemoteSourceError/unavailable(_:)`` for a certificate that is not trusted or not
        ///   the host's, ``RemoteSourceError/transient(_:)`` for a handshake the connection broke.
        func handshake() throws -> Int16? {
            library.clearErrors()
            let result = library.connect(ssl)
            let failedErrno = errno
            if result == 1 { return nil }
            let code = library.error(ssl, result)
            if let events = Self.events(for: code) { return events }
            let verification = library.verifyResult(ssl)
            if verification != 0 {
                let reason = library.verifyErrorString(verification).map { String(cString: $0) } ?? "code \(verification)"
                throw RemoteSourceError.unavailable("\(summary): TLS: the server's certificate was refused: \(reason)")
            }
            throw RemoteSourceError.transient("\(summary): TLS handshake failed: \(failure(code, errno: failedErrno))")
        }

        /// Reads at most `count` bytes into `buffer`.
        ///
        /// - Throws: ``RemoteSourceError/transient(_:)`` when the connection fails.
        func read(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Progress {
            library.clearErrors()
            let result = library.read(ssl, buffer, Int32(clamping: count))
            let failedErrno = errno
            if result > 0 { return .bytes(Int(result)) }
            let code = library.error(ssl, result)
            if let events = Self.events(for: code) { return .wait(events: events) }
            switch code {
            case OpenSSLLibrary.errorZeroReturn:
                return .closed
            case OpenSSLLibrary.errorSyscall where failedErrno == 0:
                // The peer closed without TLS's close_notify (OpenSSL 1.1): as HTTP clients do, an end;
                // a body whose length was announced and not reached still fails in the parser.
                return .closed
            default:
                let reason = failure(code, errno: failedErrno)
                // OpenSSL 3 reports the same close as an error.
                if reason.contains("unexpected eof") { return .closed }
                throw RemoteSourceError.transient("\(summary): the connection failed: \(reason)")
            }
        }

        /// Writes at most `count` bytes of `bytes`.
        ///
        /// - Throws: ``RemoteSourceError/transient(_:)`` when the connection fails.
        func write(_ bytes: UnsafeRawPointer, count: Int) throws -> Progress {
            library.clearErrors()
            let result = library.write(ssl, bytes, Int32(clamping: count))
            let failedErrno = errno
            if result > 0 { return .bytes(Int(result)) }
            let code = library.error(ssl, result)
            if let events = Self.events(for: code) { return .wait(events: events) }
            throw RemoteSourceError.transient("\(summary): sending failed: \(failure(code, errno: failedErrno))")
        }

        /// The `poll` events an OpenSSL "want" error waits for.
        private static func events(for code: Int32) -> Int16? {
            switch code {
            case OpenSSLLibrary.errorWantRead: Int16(POLLIN)
            case OpenSSLLibrary.errorWantWrite: Int16(POLLOUT)
            default: nil
            }
        }

        private func failure(_ code: Int32, errno: Int32) -> String {
            if let queued = library.takeErrors() { return queued }
            if code == OpenSSLLibrary.errorSyscall {
                return errno == 0 ? "the connection closed" : String(cString: strerror(errno))
            }
            return "OpenSSL error \(code)"
        }
    }
#endif
