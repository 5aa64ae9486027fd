import Foundation
import VariablyHTTP

/// What a test reads of one exchange: the status, the headers and the whole body.
struct TransportExchange {
    var status: Int
    var headers: [String: String]
    var body: Data

    /// Sends a `method` request to `url` through `transport` and reads the whole answer.
    static func send(
        _ url: URL, method: String = "GET", through transport: any HTTPTransport, body: Data? = nil,
        timeout: Double = 20, maximumResponseSize: Int = 64 << 20
    ) async throws -> TransportExchange {
        let response = try await transport.send(
            HTTPTransportRequest(
                method: method, url: url, headers: [("Accept", "application/json")], body: body, timeout: timeout,
                maximumResponseSize: maximumResponseSize))
        var received = Data()
        for try await chunk in response.body { received.append(chunk) }
        return TransportExchange(status: response.status, headers: response.headers, body: received)
    }

    /// The request head a `HostileHTTPServer` in `echo` mode saw (its page's `next_cursor`).
    var echoedHead: String {
        guard let page = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let cursor = page["next_cursor"] as? String,
            let echoed = try? JSONSerialization.jsonObject(with: Data(cursor.utf8)) as? [String: Any]
        else { return "" }
        return echoed["head"] as? String ?? ""
    }
}

/// The error `operation` throws, if it is an `HTTPTransportError`.
func transportError(_ operation: () async throws -> some Any) async -> HTTPTransportError? {
    do {
        _ = try await operation()
        return nil
    } catch {
        return error as? HTTPTransportError
    }
}
