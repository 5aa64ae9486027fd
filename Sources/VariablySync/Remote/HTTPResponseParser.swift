import Foundation

/// An HTTP/1.1 response read incrementally from a connection, with limits: the bytes are fed in as
/// they arrive, and the parser says when the response is complete.
///
/// Framing follows RFC 9112 §6.3: no body for 1xx, 204 and 304; `Transfer-Encoding: chunked`
/// (§7.1); else `Content-Length`; else everything until the server closes. Interim 1xx responses are
/// skipped. Anything that could make a reader disagree with the server about where the body ends
/// (two different lengths, a length next to a transfer coding, a transfer coding other than
/// `chunked`) is refused. A `gzip` or `deflate` `Content-Encoding` is decoded once the body is complete
/// (after any chunked framing), within the same limit (see `HTTPContentCoding`); any other coding is
/// refused, since the request advertises only these two.
struct HTTPResponseParser {
    /// The parsed status and headers, once the head is complete.
    struct Head: Equatable {
        var status: Int
        /// Header names in lower case, values trimmed; repeated headers joined with `, `.
        var headers: [String: String]
    }

    enum Framing: Equatable {
        case length(Int)
        case chunked
        case untilClose
    }

    /// Why a response cannot be read; the transport turns it into a ``RemoteSourceError``.
    enum Failure: Error, Equatable {
        /// The server broke the protocol (not worth retrying).
        case malformed(String)
        /// The body is larger than the limit.
        case tooLarge(limit: Int)
        /// The connection ended before the response did (a dropped connection: worth retrying).
        case truncated(String)
    }

    let maximumHeadSize: Int
    let maximumBodySize: Int
    private(set) var head: Head?
    private(set) var body = Data()
    private(set) var isComplete = false
    private var buffer = Data()
    private var framing = Framing.untilClose
    private var chunk = ChunkState.size
    private var coding = HTTPContentCoding.identity

    private enum ChunkState: Equatable {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers
    }

    init(maximumHeadSize: Int = 64 << 10, maximumBodySize: Int) {
        self.maximumHeadSize = maximumHeadSize
        self.maximumBodySize = maximumBodySize
    }

    /// Feeds bytes received from the connection.
    mutating func consume(_ bytes: Data) throws(Failure) {
        guard !isComplete else {
            if !bytes.isEmpty { throw .malformed("bytes after the end of the response (a wrong Content-Length?)") }
            return
        }
        buffer.append(bytes)
        while !isComplete, try step() {}
        if isComplete, !buffer.isEmpty {
            // No request is sent before the answer to the last one is read (no pipelining): anything
            // after the body means the server's framing was wrong, and the body cannot be trusted.
            throw .truncated("the server sent more bytes than it announced (a wrong Content-Length)")
        }
        if isComplete { try decodeContent() }
    }

    /// Whether the response ended by its own framing (a length, or the last chunk), not by the close
    /// of the connection: only then may the connection carry another request.
    var endsWithoutClose: Bool { isComplete && framing != .untilClose }

    /// Tells the parser the server closed the connection.
    mutating func finish() throws(Failure) {
        guard !isComplete else { return }
        guard let head else {
            if buffer.isEmpty { throw .truncated("the server closed the connection without an answer") }
            throw .truncated("the server closed the connection inside the response head")
        }
        switch framing {
        case .untilClose:
            body = buffer
            buffer = Data()
            isComplete = true
            try decodeContent()
        case .length(let length):
            let received = body.count + buffer.count
            throw .truncated(
                "the server closed the connection after \(received) of \(length) body bytes (HTTP \(head.status))")
        case .chunked:
            throw .truncated("the server closed the connection inside a chunked body (HTTP \(head.status))")
        }
    }

    // MARK: - Steps

    /// Makes progress with the buffered bytes; `false` when more bytes are needed.
    private mutating func step() throws(Failure) -> Bool {
        guard head != nil else { return try parseHead() }
        switch framing {
        case .length(let length):
            let missing = length - body.count
            let taken = buffer.prefix(missing)
            body.append(taken)
            buffer.removeFirst(taken.count)
            if body.count == length { isComplete = true }
            return false
        case .untilClose:
            guard body.count + buffer.count <= maximumBodySize else { throw .tooLarge(limit: maximumBodySize) }
            return false
        case .chunked:
            return try parseChunk()
        }
    }

    private mutating func parseHead() throws(Failure) -> Bool {
        guard let end = buffer.firstRange(of: Self.blankLine) else {
            if buffer.count > maximumHeadSize { throw .malformed("the response head exceeds \(maximumHeadSize) bytes") }
            return false
        }
        let headBytes = buffer[buffer.startIndex..<end.lowerBound]
        guard headBytes.count <= maximumHeadSize else {
            throw .malformed("the response head exceeds \(maximumHeadSize) bytes")
        }
        let text = String(decoding: headBytes, as: UTF8.self)
        buffer = Data(buffer[end.upperBound...])
        var lines = text.components(separatedBy: "\r\n")
        let status = try Self.status(of: lines.removeFirst())
        var headers: [String: String] = [:]
        var lengths: Set<String> = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), line.first != " ", line.first != "\t" else {
                throw .malformed("a header line is not `name: value`: \(line.prefix(80))")
            }
            let name = line[..<colon].lowercased()
            guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else {
                throw .malformed("a header name is empty or has spaces: \(line.prefix(80))")
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" {
                lengths.formUnion(value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            }
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        if (100...199).contains(status) {
            // An interim answer (100 Continue, 103 Early Hints): the real one follows.
            guard status != 101 else { throw .malformed("the server switched protocols (HTTP 101)") }
            return true
        }
        head = Head(status: status, headers: headers)
        framing = try Self.framing(status: status, headers: headers, lengths: lengths)
        if status != 204, status != 304 { coding = try HTTPContentCoding(header: headers["content-encoding"]) }
        if case .length(let length) = framing, length > maximumBodySize { throw .tooLarge(limit: maximumBodySize) }
        if case .length(0) = framing { isComplete = true }
        return true
    }

    private mutating func parseChunk() throws(Failure) -> Bool {
        switch chunk {
        case .size:
            guard let line = try takeLine() else { return false }
            let digits = line.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
            guard !digits.isEmpty, digits.count <= 15, let size = Int(digits, radix: 16), size >= 0 else {
                throw .malformed("a chunk size is not hexadecimal: \(line.prefix(40))")
            }
            guard body.count + size <= maximumBodySize else { throw .tooLarge(limit: maximumBodySize) }
            chunk = size == 0 ? .trailers : .data(remaining: size)
            return true
        case .data(let remaining):
            let taken = buffer.prefix(remaining)
            guard !taken.isEmpty else { return false }
            body.append(taken)
            buffer.removeFirst(taken.count)
            chunk = taken.count == remaining ? .dataEnd : .data(remaining: remaining - taken.count)
            return true
        case .dataEnd:
            guard buffer.count >= 2 else { return false }
            guard buffer.starts(with: Self.lineBreak) else { throw .malformed("a chunk does not end with CRLF") }
            buffer.removeFirst(2)
            chunk = .size
            return true
        case .trailers:
            guard let line = try takeLine() else { return false }
            if line.isEmpty { isComplete = true }
            return true
        }
    }

    /// Replaces a compressed body by its decoded bytes, once.
    private mutating func decodeContent() throws(Failure) {
        guard coding != .identity else { return }
        body = try coding.decode(body, limit: maximumBodySize, isCloseDelimited: framing == .untilClose)
        coding = .identity
    }

    /// The next CRLF-terminated line of the chunked framing, at most 4 KiB.
    private mutating func takeLine() throws(Failure) -> String? {
        guard let end = buffer.firstRange(of: Self.lineBreak) else {
            if buffer.count > 4096 { throw .malformed("a chunk line exceeds 4096 bytes") }
            return nil
        }
        let line = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
        buffer = Data(buffer[end.upperBound...])
        return line
    }

    // MARK: - Head fields

    private static let blankLine = Data("\r\n\r\n".utf8)
    private static let lineBreak = Data("\r\n".utf8)

    /// The status code of `HTTP/1.x SSS reason` (RFC 9112 §4).
    static func status(of line: String) throws(Failure) -> Int {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].count == 3,
            parts[1].allSatisfy(\.isASCII), let status = Int(parts[1]), (100...599).contains(status)
        else {
            throw .malformed("not an HTTP/1.x status line: \(line.prefix(80))")
        }
        return status
    }

    private static func framing(status: Int, headers: [String: String], lengths: Set<String>) throws(Failure)
        -> Framing
    {
        if status == 204 || status == 304 { return .length(0) }
        if let coding = headers["transfer-encoding"] {
            guard coding.lowercased() == "chunked" else {
                throw .malformed("unsupported Transfer-Encoding \"\(coding.prefix(40))\"")
            }
            guard lengths.isEmpty else { throw .malformed("both Transfer-Encoding and Content-Length") }
            return .chunked
        }
        guard !lengths.isEmpty else { return .untilClose }
        guard lengths.count == 1, let text = lengths.first, !text.isEmpty, text.count <= 18,
            text.allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(text)
        else {
            throw .malformed(
                "an invalid or ambiguous Content-Length: \(lengths.sorted().joined(separator: ", ").prefix(80))")
        }
        return .length(length)
    }
}

// MARK: - Errors

extension HTTPResponseParser.Failure {
    /// The failure as the source reports it: a broken answer is `invalidResponse`, a cut one
    /// `transient` (worth retrying).
    func remoteError(summary: String) -> RemoteSourceError {
        switch self {
        case .malformed(let reason): return .invalidResponse("\(summary): \(reason)")
        case .truncated(let reason): return .transient("\(summary): \(reason)")
        case .tooLarge(let limit): return .responseTooLarge(limit: limit)
        }
    }
}
