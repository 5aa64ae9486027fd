#if canImport(CCurl)
    import CCurl
    import Foundation

    /// The Linux transport: the system's libcurl, driven directly through its multi interface.
    ///
    /// libcurl brings what an HTTP client needs and the package no longer writes itself: TLS with the
    /// system's certificate checks (by the system's CA bundle, or `SSL_CERT_FILE` and `SSL_CERT_DIR`
    /// when they are set), `gzip` and `deflate` decoded as the body arrives, kept-alive connections
    /// shared by every request of the transport, HTTP/2 where a server offers it over TLS (requests to
    /// one server then share one connection), and proxies: `http_proxy`, `https_proxy`, `all_proxy` and
    /// `no_proxy` from the environment, read by libcurl itself, or ``Configuration/proxy`` and
    /// ``Configuration/noProxy``.
    ///
    /// Redirects are never followed here (`CURLOPT_FOLLOWLOCATION` is off): a `3xx` answer goes back to
    /// the caller, and the sync layer follows it by its own rules. The request's ``HTTPTransportRequest/timeout``
    /// bounds the whole request on libcurl's own timer, and its ``HTTPTransportRequest/maximumResponseSize``
    /// stops the transfer the moment the body (decoded) passes it.
    ///
    /// Each transport has one libcurl multi handle, driven by a thread of its own that waits in
    /// `curl_multi_poll`, so that no request ever holds a thread of Swift's cooperative pool while it
    /// waits for the network (the multi interface rather than one blocking easy transfer per thread:
    /// one thread for any number of requests, and connections shared between them).
    ///
    /// ```swift
    /// let transport = CurlTransport(configuration: .init(proxy: "http://proxy.internal:3128", noProxy: "localhost"))
    /// let remote = HTTPRemoteSource<User>(baseURL: URL(string: "https://api.example.com/v1/users")!, transport: transport)
    /// ```
    public final class CurlTransport: SelfTimedHTTPTransport {
        /// How a ``CurlTransport`` reaches servers: proxies, trusted authorities, HTTP versions.
        ///
        /// ```swift
        /// var configuration = CurlTransport.Configuration()
        /// configuration.proxy = "http://proxy.internal:3128"
        /// configuration.noProxy = "localhost,.internal"
        /// ```
        public struct Configuration: Sendable {
            /// The proxy for every request, e.g. `http://proxy.internal:3128`; `nil` leaves it to
            /// libcurl, which reads `http_proxy`, `https_proxy` (or `HTTPS_PROXY`) and `all_proxy`. An
            /// empty string sends every request directly, whatever the environment says.
            public var proxy: String?
            /// Hosts reached without the proxy, comma-separated (`localhost,.internal,10.0.0.0/8`);
            /// `nil` leaves it to libcurl, which reads `no_proxy` (or `NO_PROXY`); `*` for every host.
            public var noProxy: String?
            /// A PEM file of the authorities to trust instead of the system's bundle; by default
            /// `SSL_CERT_FILE` when it is set.
            public var certificateAuthorityFile: String?
            /// A folder of hashed PEM certificates to trust as well; by default `SSL_CERT_DIR` when it
            /// is set.
            public var certificateAuthorityDirectory: String?
            /// Whether to offer HTTP/2 over TLS (the server chooses); `true` by default. Plain `http://`
            /// always speaks HTTP/1.1.
            public var prefersHTTP2: Bool

            /// A configuration; every parameter defaults to what the environment says.
            ///
            /// ```swift
            /// let configuration = CurlTransport.Configuration(proxy: "http://127.0.0.1:3128")
            /// ```
            ///
            /// - Parameters:
            ///   - proxy: The proxy URL; `nil` for the environment's.
            ///   - noProxy: The hosts that bypass the proxy; `nil` for the environment's `no_proxy`.
            ///   - certificateAuthorityFile: A PEM bundle to trust; `SSL_CERT_FILE` by default.
            ///   - certificateAuthorityDirectory: A folder of certificates to trust; `SSL_CERT_DIR` by default.
            ///   - prefersHTTP2: Whether to offer HTTP/2 over TLS.
            public init(
                proxy: String? = nil, noProxy: String? = nil,
                certificateAuthorityFile: String? = Configuration.environment("SSL_CERT_FILE"),
                certificateAuthorityDirectory: String? = Configuration.environment("SSL_CERT_DIR"),
                prefersHTTP2: Bool = true
            ) {
                self.proxy = proxy
                self.noProxy = noProxy
                self.certificateAuthorityFile = certificateAuthorityFile
                self.certificateAuthorityDirectory = certificateAuthorityDirectory
                self.prefersHTTP2 = prefersHTTP2
            }

            /// The value of the environment variable `name`, `nil` when it is unset or empty.
            ///
            /// ```swift
            /// let bundle = CurlTransport.Configuration.environment("SSL_CERT_FILE")
            /// ```
            ///
            /// - Parameter name: The variable's name.
            public static func environment(_ name: String) -> String? {
                guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
                return value
            }
        }

        /// The transport of every source that names none on Linux (see ``HTTPTransports/platformDefault``):
        /// their requests share its connections.
        ///
        /// ```swift
        /// let remote = HTTPRemoteSource<User>(baseURL: base, transport: CurlTransport.shared)
        /// ```
        public static let shared = CurlTransport()

        /// How this transport reaches servers.
        public let configuration: Configuration
        private let multi: CurlMulti?

        /// A transport with a libcurl multi handle (and connections) of its own.
        ///
        /// ```swift
        /// let transport = CurlTransport(configuration: .init(noProxy: "*"))
        /// ```
        ///
        /// - Parameter configuration: Proxies, trusted authorities and HTTP versions; by default what
        ///   the environment says.
        public init(configuration: Configuration = Configuration()) {
            self.configuration = configuration
            multi = CurlMulti()
        }

        deinit {
            // The requests in flight keep the multi handle; its thread ends after the last of them.
            multi?.shutDown()
        }

        /// Starts the request and returns once the answer's head has arrived; the body follows as it
        /// arrives, decoded.
        ///
        /// ```swift
        /// let response = try await CurlTransport.shared.send(
        ///     HTTPTransportRequest(method: "GET", url: URL(string: "https://api.example.com/v1/users/changes")!))
        /// ```
        ///
        /// - Parameter request: The request; its `timeout` bounds the whole request, its
        ///   `maximumResponseSize` the decoded body.
        /// - Throws: ``HTTPTransportError`` (`.libraryUnavailable` naming what to install where libcurl
        ///   cannot be used), `CancellationError` when the task is cancelled.
        public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
            if let failure = CurlLibrary.initializationFailure { throw failure }
            guard let multi else {
                throw HTTPTransportError.libraryUnavailable(
                    reason: "libcurl \(CurlLibrary.version) could not make a multi handle",
                    install: CurlLibrary.installHint)
            }
            if request.url.scheme?.lowercased() == "https", !CurlLibrary.supportsTLS {
                throw HTTPTransportError.libraryUnavailable(
                    reason: "\(request.summary): libcurl \(CurlLibrary.version) was built without TLS",
                    install: CurlLibrary.installHint)
            }
            let transfer = try CurlTransfer(request, configuration: configuration, multi: multi)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    transfer.start(continuation: continuation)
                }
            } onCancel: {
                transfer.cancel()
            }
        }
    }
#endif
