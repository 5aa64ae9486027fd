/// The transport each platform uses when none is named: chosen once, here, for every source.
///
/// On Apple platforms it is ``URLSessionTransport/shared``; on Linux, `CurlTransport.shared`, the
/// system's libcurl driven directly (TLS, HTTP/2 where the server offers it, gzip and deflate,
/// proxies from `http_proxy`, `https_proxy` and `no_proxy`). FoundationNetworking's URLSession sits
/// on the same libcurl on Linux, but stops the process on some broken answers (a status line and then a
/// closed connection) where no caller could catch it, and reads neither the proxy variables nor
/// `SSL_CERT_FILE`.
///
/// ```swift
/// let response = try await HTTPTransports.platformDefault.send(
///     HTTPTransportRequest(method: "GET", url: URL(string: "https://api.example.com/v1/users/changes")!))
/// ```
public enum HTTPTransports {
    /// The transport of this platform: ``URLSessionTransport/shared`` on Apple platforms,
    /// `CurlTransport.shared` on Linux. Its connections are shared by every source that uses it.
    ///
    /// ```swift
    /// let transport: any HTTPTransport = HTTPTransports.platformDefault
    /// ```
    public static var platformDefault: any HTTPTransport {
        #if canImport(CCurl)
            CurlTransport.shared
        #else
            URLSessionTransport.shared
        #endif
    }
}

/// A transport that bounds each request by its ``HTTPTransportRequest/timeout`` on a timer of its own,
/// off Swift's cooperative pool, so that its callers need not race it against a deadline: an answer
/// that arrived in time is read whole even when the pool is slow to run its reader.
package protocol SelfTimedHTTPTransport: HTTPTransport {}
