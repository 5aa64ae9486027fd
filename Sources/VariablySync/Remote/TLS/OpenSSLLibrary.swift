#if canImport(Glibc)
    import Glibc

    /// The system's OpenSSL (libssl and libcrypto), opened at run time: the TLS of the package's socket
    /// client on Linux.
    ///
    /// FoundationNetworking itself runs on libcurl built against libssl, so wherever `URLSession` runs
    /// on Linux the library is there, and usually loaded already; opening it with `dlopen` needs neither
    /// its headers nor a link-time dependency. The functions used have had these signatures since
    /// OpenSSL 1.1.0 (https://www.openssl.org/docs/man3.0/man3/). Where no libssl can be opened,
    /// ``shared`` is `nil` and `https://` goes through `URLSessionTransport`.
    ///
    /// `@unchecked Sendable`: every member is a C function pointer, a pointer to an `SSL_CTX` or the
    /// session cache (`Sendable` itself), set once in `init` and never changed. OpenSSL (1.1.0 and later) locks its own shared state, and a client
    /// context may serve several connections on several threads once set up
    /// (https://www.openssl.org/docs/man3.0/man7/openssl-threads.html); each connection's `SSL` object
    /// is used by one thread only.
    struct OpenSSLLibrary: @unchecked Sendable {
        typealias SSLPointer = OpaquePointer

        let newSSL: @convention(c) (OpaquePointer?) -> SSLPointer?
        let freeSSL: @convention(c) (SSLPointer?) -> Void
        let setFD: @convention(c) (SSLPointer?, Int32) -> Int32
        let control: @convention(c) (SSLPointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int
        let setHost: @convention(c) (SSLPointer?, UnsafePointer<CChar>?) -> Int32
        let verificationParameters: @convention(c) (SSLPointer?) -> OpaquePointer?
        let setIPAddress: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
        let connect: @convention(c) (SSLPointer?) -> Int32
        let read: @convention(c) (SSLPointer?, UnsafeMutableRawPointer?, Int32) -> Int32
        let write: @convention(c) (SSLPointer?, UnsafeRawPointer?, Int32) -> Int32
        let error: @convention(c) (SSLPointer?, Int32) -> Int32
        let verifyResult: @convention(c) (SSLPointer?) -> Int
        let verifyErrorString: @convention(c) (Int) -> UnsafePointer<CChar>?
        let nextError: @convention(c) () -> UInt
        let errorString: @convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int) -> Void
        let clearErrors: @convention(c) () -> Void
        let getSession: @convention(c) (SSLPointer?) -> OpaquePointer?
        let setSession: @convention(c) (SSLPointer?, OpaquePointer?) -> Int32
        let freeSession: @convention(c) (OpaquePointer?) -> Void
        let isResumable: @convention(c) (OpaquePointer?) -> Int32
        /// The one client context: TLS 1.2 or later, the system's trusted authorities, peers verified.
        let clientContext: OpaquePointer
        /// The last resumable session per server, so that the next connection skips the certificate
        /// exchange (https://www.openssl.org/docs/man3.0/man3/SSL_set_session.html).
        let sessions: TLSSessionCache

        // https://github.com/openssl/openssl/blob/openssl-3.0/include/openssl/ssl.h.in
        static let errorSSL: Int32 = 1
        static let errorWantRead: Int32 = 2
        static let errorWantWrite: Int32 = 3
        static let errorSyscall: Int32 = 5
        static let errorZeroReturn: Int32 = 6
        static let controlSetServerName: Int32 = 55
        static let serverNameTypeHost = 0
        static let controlSetMinimumVersion: Int32 = 123
        static let controlMode: Int32 = 33
        /// SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER: `SSL_write` reports what
        /// it wrote, as `send` does, and a write retried after "want write" may come from another address.
        static let partialMovingWrites = 0x1 | 0x2
        static let tls12Version = 0x0303
        static let verifyPeer: Int32 = 1

        /// The library, opened on first use; `nil` where none can be opened or set up.
        static let shared: OpenSSLLibrary? = OpenSSLLibrary()

        private init?() {
            // libssl depends on libcrypto: `dlsym` on libssl's handle finds libcrypto's functions too.
            let names = ["libssl.so.3", "libssl.so.1.1", "libssl.so"]
            guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else { return nil }
            func load<Function>(_ name: String, as type: Function.Type) -> Function? {
                dlsym(handle, name).map { unsafeBitCast($0, to: type) }
            }
            typealias ContextFunction = @convention(c) (OpaquePointer?) -> Int32
            guard let method = load("TLS_client_method", as: (@convention(c) () -> OpaquePointer?).self),
                let newContext = load("SSL_CTX_new", as: (@convention(c) (OpaquePointer?) -> OpaquePointer?).self),
                let freeContext = load("SSL_CTX_free", as: (@convention(c) (OpaquePointer?) -> Void).self),
                let defaultPaths = load("SSL_CTX_set_default_verify_paths", as: ContextFunction.self),
                let contextControl = load(
                    "SSL_CTX_ctrl", as: (@convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int).self),
                let setVerify = load(
                    "SSL_CTX_set_verify", as: (@convention(c) (OpaquePointer?, Int32, OpaquePointer?) -> Void).self),
                let newSSL = load("SSL_new", as: (@convention(c) (OpaquePointer?) -> SSLPointer?).self),
                let freeSSL = load("SSL_free", as: (@convention(c) (SSLPointer?) -> Void).self),
                let setFD = load("SSL_set_fd", as: (@convention(c) (SSLPointer?, Int32) -> Int32).self),
                let control = load(
                    "SSL_ctrl", as: (@convention(c) (SSLPointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int).self),
                let setHost = load("SSL_set1_host", as: (@convention(c) (SSLPointer?, UnsafePointer<CChar>?) -> Int32).self),
                let parameters = load("SSL_get0_param", as: (@convention(c) (SSLPointer?) -> OpaquePointer?).self),
                let setIPAddress = load(
                    "X509_VERIFY_PARAM_set1_ip_asc", as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32).self),
                let connect = load("SSL_connect", as: (@convention(c) (SSLPointer?) -> Int32).self),
                let read = load("SSL_read", as: (@convention(c) (SSLPointer?, UnsafeMutableRawPointer?, Int32) -> Int32).self),
                let write = load("SSL_write", as: (@convention(c) (SSLPointer?, UnsafeRawPointer?, Int32) -> Int32).self),
                let error = load("SSL_get_error", as: (@convention(c) (SSLPointer?, Int32) -> Int32).self),
                let verifyResult = load("SSL_get_verify_result", as: (@convention(c) (SSLPointer?) -> Int).self),
                let verifyErrorString = load(
                    "X509_verify_cert_error_string", as: (@convention(c) (Int) -> UnsafePointer<CChar>?).self),
                let nextError = load("ERR_get_error", as: (@convention(c) () -> UInt).self),
                let errorString = load(
                    "ERR_error_string_n", as: (@convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int) -> Void).self),
                let clearErrors = load("ERR_clear_error", as: (@convention(c) () -> Void).self),
                let getSession = load("SSL_get1_session", as: (@convention(c) (SSLPointer?) -> OpaquePointer?).self),
                let setSession = load("SSL_set_session", as: (@convention(c) (SSLPointer?, OpaquePointer?) -> Int32).self),
                let freeSession = load("SSL_SESSION_free", as: (@convention(c) (OpaquePointer?) -> Void).self),
                let isResumable = load("SSL_SESSION_is_resumable", as: (@convention(c) (OpaquePointer?) -> Int32).self),
                let context = newContext(method())
            else { return nil }
            // The system's authorities (or those `SSL_CERT_FILE` and `SSL_CERT_DIR` name), TLS 1.2 or
            // later, and the peer's certificate checked during the handshake.
            guard defaultPaths(context) == 1,
                contextControl(context, Self.controlSetMinimumVersion, Self.tls12Version, nil) == 1,
                contextControl(context, Self.controlMode, Self.partialMovingWrites, nil) & Self.partialMovingWrites
                    == Self.partialMovingWrites
            else {
                freeContext(context)
                return nil
            }
            setVerify(context, Self.verifyPeer, nil)
            (self.newSSL, self.freeSSL, self.setFD, self.control, self.setHost) = (newSSL, freeSSL, setFD, control, setHost)
            (self.verificationParameters, self.setIPAddress, self.connect, self.read, self.write) =
                (parameters, setIPAddress, connect, read, write)
            (self.error, self.verifyResult, self.verifyErrorString) = (error, verifyResult, verifyErrorString)
            (self.nextError, self.errorString, self.clearErrors) = (nextError, errorString, clearErrors)
            (self.getSession, self.setSession, self.freeSession, self.isResumable) =
                (getSession, setSession, freeSession, isResumable)
            clientContext = context
            sessions = TLSSessionCache(free: freeSession)
        }

        /// The oldest error on this thread's OpenSSL error queue, as text, and the queue emptied.
        func takeErrors() -> String? {
            var first: String?
            while case let code = nextError(), code != 0 {
                if first == nil {
                    var buffer = [CChar](repeating: 0, count: 256)
                    errorString(code, &buffer, buffer.count)
                    first = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                }
            }
            return first
        }
    }
#endif
