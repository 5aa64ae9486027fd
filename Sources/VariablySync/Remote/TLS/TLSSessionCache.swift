#if canImport(Glibc)
    import Foundation

    /// The last resumable TLS session of each server (`host:port`), handed to the next connection to it:
    /// a resumed handshake skips the certificate exchange and its checks, which were made when the
    /// session was set up.
    ///
    /// `@unchecked Sendable`: `sessions` is only touched while `lock` is held; each `SSL_SESSION` it
    /// holds is reference-counted by OpenSSL, one reference owned here, freed when replaced.
    final class TLSSessionCache: @unchecked Sendable {
        private let lock = NSLock()
        private var sessions: [String: OpaquePointer] = [:]
        private let free: @convention(c) (OpaquePointer?) -> Void

        init(free: @escaping @convention(c) (OpaquePointer?) -> Void) {
            self.free = free
        }

        deinit {
            for session in sessions.values { free(session) }
        }

        /// Calls `body` with the session kept for `server`, while no other thread can replace it
        /// (`SSL_set_session` takes a reference of its own).
        func withSession(for server: String, _ body: (OpaquePointer) -> Void) {
            lock.withLock {
                if let session = sessions[server] { body(session) }
            }
        }

        /// Keeps `session` (one reference, now owned here) for `server`, in place of the one before,
        /// whose reference is given up: also when it is the same session (a resumed connection hands
        /// back the session it was given, with a reference of its own).
        func keep(_ session: OpaquePointer, for server: String) {
            let replaced = lock.withLock { sessions.updateValue(session, forKey: server) }
            if let replaced { free(replaced) }
        }
    }
#endif
