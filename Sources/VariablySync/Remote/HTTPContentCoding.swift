import Foundation

/// The `Content-Encoding` of a response read by the socket client (RFC 9110 §8.4): the request
/// advertises `gzip, deflate`, and the body is decoded once it has arrived, bounded by the same limit
/// as the body itself (the compressed bytes, then the decoded ones).
enum HTTPContentCoding: Equatable {
    case identity
    /// RFC 1952, several members allowed; `x-gzip` is the same (RFC 9110 §8.4.1.3).
    case gzip
    /// The zlib format of RFC 1950, or a raw DEFLATE stream (see `ZlibReader`).
    case deflate

    /// The coding a `Content-Encoding` value names; `nil` (no header) and `identity` are identity.
    ///
    /// - Throws: `HTTPResponseParser.Failure.malformed` for a coding the client did not ask for
    ///   (`br`, `zstd`, ...) or for two codings stacked (`gzip, gzip`).
    init(header: String?) throws(HTTPResponseParser.Failure) {
        let codings = (header ?? "").lowercased().split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard codings.count <= 1 else {
            throw .malformed("stacked Content-Encodings \"\(header?.prefix(40) ?? "")\" (the request asked for gzip or deflate)")
        }
        switch codings.first {
        case nil: self = .identity
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        case let other?:
            throw .malformed("unsupported Content-Encoding \"\(other.prefix(40))\" (the request asked for gzip, deflate or identity)")
        }
    }

    /// `body` decoded, at most `limit` bytes. An empty body stays empty (some servers label an empty
    /// answer `gzip`).
    ///
    /// - Parameters:
    ///   - isCloseDelimited: Whether the body ended with the connection, so that a compressed stream
    ///     cut short is a dropped connection (`truncated`) rather than a broken answer.
    /// - Throws: `HTTPResponseParser.Failure`: `tooLarge` past the limit, `malformed` for corrupt
    ///   data (a bad header, code, distance, checksum or size, or trailing bytes), and for a stream cut
    ///   short unless `isCloseDelimited`, where it is `truncated`.
    /// - Complexity: O(*n* + *m*), *n* the body and *m* the decoded bytes.
    func decode(_ body: Data, limit: Int, isCloseDelimited: Bool) throws(HTTPResponseParser.Failure) -> Data {
        guard self != .identity, !body.isEmpty else { return body }
        let result = body.withUnsafeBytes { raw -> Result<Data, InflateError> in
            do throws(InflateError) {
                return .success(self == .gzip ? try GzipReader.decode(raw, limit: limit) : try ZlibReader.decode(raw, limit: limit))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let data):
            return data
        case .failure(.tooLarge(let limit)):
            throw .tooLarge(limit: limit)
        case .failure(.truncated) where isCloseDelimited:
            throw .truncated("the server closed the connection inside the \(self) body")
        case .failure(.truncated):
            throw .malformed("the \(self) body ends inside its compressed stream")
        case .failure(.malformed(let reason)):
            throw .malformed("the \(self) body is corrupt: \(reason)")
        }
    }
}
