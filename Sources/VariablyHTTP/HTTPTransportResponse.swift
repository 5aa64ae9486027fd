public import Foundation

/// The answer an ``HTTPTransport`` hands back: the status and headers, and the body as it arrives.
///
/// ```swift
/// let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
/// continuation.yield(Data(#"{"records": []}"#.utf8))
/// continuation.finish()
/// let response = HTTPTransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
/// ```
public struct HTTPTransportResponse: Sendable {
    /// The final status (never an interim `1xx`).
    public var status: Int
    /// The headers, names in lower case; for a repeated header, the values joined by `, `.
    public var headers: [String: String]
    /// The body, chunk by chunk. It ends when the answer is complete, and throws when the connection
    /// fails before (``HTTPTransportError/connectionLost(request:reason:)`` for a dropped connection). Dropping it, or
    /// cancelling the task that iterates it, ends the request.
    public var body: AsyncThrowingStream<Data, any Error>

    /// An answer; header names are lower-cased here.
    ///
    /// ```swift
    /// let response = HTTPTransportResponse(status: 204, headers: [:], body: AsyncThrowingStream { $0.finish() })
    /// ```
    ///
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - headers: The headers, in any case.
    ///   - body: The body's chunks.
    public init(status: Int, headers: [String: String], body: AsyncThrowingStream<Data, any Error>) {
        self.status = status
        var lowered: [String: String] = [:]
        for (name, value) in headers {
            let name = name.lowercased()
            lowered[name] = lowered[name].map { "\($0), \(value)" } ?? value
        }
        self.headers = lowered
        self.body = body
    }
}
