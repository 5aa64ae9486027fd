#if canImport(CCurl)
    import CCurl

    /// The system's libcurl, linked through the `CCurl` system-library target.
    ///
    /// Why linked, not opened with `dlopen`: every option, callback and constant is checked against the
    /// installed `curl/curl.h` when the package builds, so a wrong type is a compile error rather than a
    /// crash at run time, and there are no hand-written prototypes to keep in step with libcurl's
    /// versions. It costs nothing at run time on Linux: FoundationNetworking links the same
    /// `libcurl.so.4`, so any process that can use URLSession has it loaded already. Building needs the
    /// headers, which SwiftPM names when they are missing (`apt-get install libcurl4-openssl-dev`).
    enum CurlLibrary {
        /// What to install for a libcurl that speaks HTTPS.
        static let installHint = "libcurl4-openssl-dev (Debian, Ubuntu) or libcurl-devel (Fedora)"

        /// The outcome of `curl_global_init`, run once before any handle is made: `nil` when it worked.
        static let initializationFailure: HTTPTransportError? = {
            let code = ccurl_global_init()
            guard code != CURLE_OK else { return nil }
            return .libraryUnavailable(
                reason: "libcurl could not be initialized (\(String(cString: curl_easy_strerror(code))))",
                install: installHint)
        }()

        /// The running libcurl's version, e.g. `7.88.1`.
        static var version: String { String(cString: ccurl_version()) }

        /// Whether the running libcurl speaks TLS.
        static let supportsTLS = ccurl_supports_tls() != 0

        /// Whether the running libcurl speaks HTTP/2.
        static let supportsHTTP2 = ccurl_supports_http2() != 0
    }
#endif
