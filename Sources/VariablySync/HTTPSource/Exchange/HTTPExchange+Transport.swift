import Foundation
import VariablyHTTP

// MARK: - Transport

extension HTTPExchange {
    /// Sends `request` through `transport` within one deadline for the whole request (`timeout`,
    /// however slowly the server trickles: the package's transports time it themselves, an app's
    /// transport is raced against it), and reads the body within `maximumResponseSize` as it arrives.
    func transmit(_ request: HTTPRequestHead) async throws -> Response {
        let outgoing = HTTPTransportRequest(
            method: request.method, url: request.url, headers: request.headers, body: request.body, timeout: timeout,
            maximumResponseSize: maximumResponseSize)
        let transport = self.transport
        let exchange: @Sendable () async throws -> Response = {
            do {
                return try await Self.receive(transport.send(outgoing), for: outgoing)
            } catch let error as RemoteSourceError {
                throw error
            } catch let error as HTTPTransportError {
                throw RemoteSourceError(error)
            } catch let error as CancellationError {
                throw error
            } catch {
                throw RemoteSourceError.unavailable("\(request.summary): \(error)")
            }
        }
        // The package's transports time the whole request on timers of their own (a dispatch timer,
        // libcurl's): an answer that arrived in time is read whole even when Swift's cooperative pool is
        // slow to run this task. An app's transport gets the exchange's deadline.
        if transport is any SelfTimedHTTPTransport { return try await exchange() }
        return try await Self.withDeadline(timeout, summary: request.summary, exchange)
    }

    /// The whole body of `response`, at most `request.maximumResponseSize` bytes.
    ///
    /// The transport decodes the content codings it asks for; a body it hands over still encoded is
    /// refused, since the source has no decoder of its own.
    private static func receive(_ response: HTTPTransportResponse, for request: HTTPTransportRequest) async throws
        -> Response
    {
        let limit = request.maximumResponseSize
        if let length = response.headers["content-length"].flatMap({ Int($0) }), length > limit {
            throw RemoteSourceError.responseTooLarge(limit: limit)
        }
        var body = Data()
        for try await chunk in response.body {
            body.append(chunk)
            // Leaving the loop drops the stream, which ends the transfer at once.
            guard body.count <= limit else { throw RemoteSourceError.responseTooLarge(limit: limit) }
        }
        // A stream ends early, without an error, when the task iterating it is cancelled.
        try Task.checkCancellation()
        let coding = (response.headers["content-encoding"] ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        if !coding.isEmpty, coding != "identity", !body.isEmpty {
            throw RemoteSourceError.invalidResponse(
                "\(request.summary): the transport handed over a body still in Content-Encoding \"\(coding.prefix(40))\" "
                    + "(a transport decodes the codings it asks for)")
        }
        return (HTTPResponseHead(status: response.status, headers: response.headers), body)
    }

    /// `operation`, or ``RemoteSourceError/transient(_:)`` once `seconds` have passed, whichever
    /// comes first; the other is cancelled.
    private static func withDeadline<T: Sendable>(
        _ seconds: TimeInterval, summary: String, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask(operation: operation)
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int64((min(seconds, 1e9) * 1000).rounded(.up))))
                throw RemoteSourceError.transient("\(summary): no complete answer within \(seconds) s")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }
}
