#if canImport(Glibc)
    import Foundation
    import VariablyHTTP

    // MARK: - HTTPTransport

    extension HTTPSocketClient: HTTPTransport {
        /// Sends `request` and hands back the whole answer, already decoded: the parser reads the
        /// body within the limit and decodes it, so `Content-Encoding` is removed.
        func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
            let (head, body) = try await send(
                HTTPRequestHead(method: request.method, url: request.url, headers: request.headers, body: request.body))
            var response = HTTPTransportResponse(
                status: head.status, headers: head.headers,
                body: AsyncThrowingStream { continuation in
                    continuation.yield(body)
                    continuation.finish()
                })
            response.headers["content-encoding"] = nil
            return response
        }
    }
#endif
