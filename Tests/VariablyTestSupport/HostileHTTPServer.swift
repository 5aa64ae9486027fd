package import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A misbehaving HTTP server on 127.0.0.1 for ``HTTPRemoteSource`` tests: a python3 script on raw
/// sockets, so that it can break HTTP in ways `http.server` never would. Request *n* (counted from 0)
/// is answered in `modes[n]`, the last mode for every later request:
///
/// | mode | answer |
/// | --- | --- |
/// | `page` | a valid empty page, cursor `ab+c/d==` (records: `records` if given) |
/// | `gone` | 410 `{"error": "invalid_cursor"}` to a pull with a cursor, else `page` |
/// | `unknown-cursor-400` | 400 `{"error": "unknown cursor"}` to a pull with a cursor, else `page` |
/// | `echo` | a page whose `next_cursor` is JSON: the request head and `after` as a standard server reads it |
/// | `status-then-close` | `HTTP/1.1 200 OK\r\n`, then closes |
/// | `close` | closes without an answer |
/// | `silent` | never answers |
/// | `trickle` | a head announcing 100,000 bytes, then one byte every 200 ms |
/// | `truncated` | half the announced body, then closes |
/// | `long-length` | a `Content-Length` 100 bytes longer than the body, then closes |
/// | `short-length` | a `Content-Length` 10 bytes shorter than the body (sent in one write) |
/// | `huge-length` | `Content-Length: 1000000000`, a few bytes, then waits |
/// | `endless-chunked` / `endless-close` | chunks / close-delimited bytes until the client hangs up |
/// | `gzip` / `gzip-chunked` | a page gzipped (`Content-Encoding: gzip`), framed by `Content-Length` / in 50-byte chunks |
/// | `deflate` / `deflate-raw` | a page as zlib / raw DEFLATE data, `Content-Encoding: deflate` |
/// | `br` | a page labelled `Content-Encoding: br` |
/// | `gzip-bomb` | 16 MiB of spaces gzipped (16 KiB), in chunks |
/// | `gzip-corrupt` | a gzipped page whose CRC-32 is wrong |
/// | `gzip-cut-close` | half a gzipped page, close-delimited, then closes |
/// | `chunked` | a valid page in 7-byte chunks with an extension and a trailer, after a `100 Continue` |
/// | `header-flood` | a status line, then header lines until the client hangs up |
/// | `drip-head` | a status line, then a header line every 200 ms, never ending; prints `hung up` when the client leaves |
/// | `redirect-302` / `redirect-307` | a redirect to `/users/moved/...` on the same origin |
/// | `redirect-away` | a `302` to another origin (`localhost`, port 1) |
/// | `push-ok` | accepts every change of an envelope push; each result's `version` is the request target |
/// | `unauthorized-once` | `401` unless the request carries `Bearer fresh`, then a page |
/// | `throttle` | 429 with `Retry-After: 1` |
/// | `throttle-date` | 503 with `Retry-After` as an HTTP-date 60 s ahead |
/// | `keep-alive` | (as the only mode) pages on one connection while the client keeps it, cursor `connection-N` |
/// | `keep-alive-drop` | (as the only mode) as `keep-alive`, but closes a connection as its second request arrives |
///
/// With `tls`, the server speaks HTTPS with the authority's server certificate (the handshake runs
/// on each connection's thread, so a failed one breaks only its own request).
///
/// The script exits by itself after `lifetime` seconds, so a crashed test cannot leave it running. The
/// default outlives the suites' one-minute time limit: on a loaded machine a test may wait half a
/// minute for a thread before its first request, and must still find its server.
package final class HostileHTTPServer {
    package let baseURL: URL
    private let server: PythonScriptProcess

    /// Starts the server; `records` is the JSON text of the `records` array that `page` serves.
    package convenience init(
        _ modes: [String], records: String = "[]", tls: TestCertificateAuthority? = nil, lifetime: Int = 600
    ) async throws {
        try await self.init(modes, recordBytes: Data(records.utf8), tls: tls, lifetime: lifetime)
    }

    /// Starts the server; `recordBytes` are the bytes of the `records` array that `page` serves, sent
    /// as they are (they reach the script in hex, so that bytes no `String` holds, such as invalid
    /// UTF-8, go through).
    package init(_ modes: [String], recordBytes: Data, tls: TestCertificateAuthority? = nil, lifetime: Int = 600)
        async throws
    {
        let hex = recordBytes.map { String(format: "%02x", $0) }.joined()
        let certificate = tls.map { [$0.serverCertificate, $0.serverKey] } ?? []
        server = try await PythonScriptProcess.start(
            script: Self.script, arguments: [modes.joined(separator: ","), String(lifetime), hex] + certificate,
            name: "hostile-http")
        baseURL = URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(server.port)/users")!
    }

    package func stop() {
        server.stop()
    }

    /// Waits (at most `PythonScriptProcess.lineDeadline`) until a `drip-head` client has hung up.
    /// URLSession must be gone before the server is: FoundationNetworking traps on a connection that
    /// closes inside the response head, and cancelling a task waits for the session's queue. The read
    /// blocks, so it runs on a thread of its own, never on Swift's cooperative pool.
    package func waitUntilTheClientHangsUp() async -> Bool {
        // Only that thread touches the process until it resumes the caller, which waits meanwhile.
        nonisolated(unsafe) let server = self.server
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: String(decoding: server.readLine(), as: UTF8.self) == "hung up") }
                .start()
        }
    }

    private static let script = #"""
        import gzip, json, os, signal, socket, ssl, sys, threading, time, zlib
        from email.utils import formatdate
        from urllib.parse import urlparse, parse_qs

        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
        modes = sys.argv[1].split(",")
        lifetime = float(sys.argv[2])
        records = bytes.fromhex(sys.argv[3])
        context = None
        if len(sys.argv) > 5:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[4], sys.argv[5])
        exit_after(lifetime, "hostile-http " + sys.argv[1])
        lock = threading.Lock()
        served = [0]
        connections = [0]

        def read_request(conn):
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return None
                data += chunk
            head, _, rest = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            while len(rest) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                rest += chunk
            return head.decode("latin-1"), rest

        def page(cursor="ab+c/d=="):
            return (b'{"records": ' + records
                    + (', "deleted": [], "next_cursor": %s, "has_more": false}' % json.dumps(cursor)).encode())

        def head(status, length=None, extra=()):
            text = "HTTP/1.1 %s\r\nContent-Type: application/json\r\n" % status
            if length is not None:
                text += "Content-Length: %d\r\n" % length
            for line in extra:
                text += line + "\r\n"
            return (text + "\r\n").encode()

        def reply(conn, status, body, extra=()):
            conn.sendall(head(status, len(body), extra) + body)

        def endless(conn, chunk):
            # Paced (about 8 MB/s): a flood as fast as loopback allows kept FoundationNetworking's queue
            # busy for minutes (the cancellation that ends it waited behind the reads), and other
            # tests' requests stalled meanwhile.
            while True:
                conn.sendall(chunk)
                time.sleep(0.0005)

        def handle(conn):
            try:
                if context is not None:
                    conn = context.wrap_socket(conn, server_side=True)
                if modes[0] in ("keep-alive", "keep-alive-drop"):
                    # Pages on one connection while the client keeps it, each naming the connection;
                    # "keep-alive-drop" closes it as the second request on it arrives, unanswered.
                    with lock:
                        connections[0] += 1
                        number = connections[0]
                    answered = 0
                    while read_request(conn) is not None:
                        if modes[0] == "keep-alive-drop" and answered == 1:
                            return
                        reply(conn, "200 OK", page("connection-%d" % number))
                        answered += 1
                    return
                received = read_request(conn)
                if received is None:
                    return
                request, request_body = received
                with lock:
                    index = served[0]
                    served[0] += 1
                mode = modes[min(index, len(modes) - 1)]
                target = request.split("\r\n")[0].split(" ")[1]
                after = parse_qs(urlparse(target).query).get("after")
                body = page()
                if mode == "page":
                    reply(conn, "200 OK", body)
                elif mode in ("gone", "unknown-cursor-400"):
                    if after is None:
                        reply(conn, "200 OK", body)
                    elif mode == "gone":
                        reply(conn, "410 Gone", b'{"error": "invalid_cursor"}')
                    else:
                        reply(conn, "400 Bad Request", b'{"error": "unknown cursor"}')
                elif mode == "echo":
                    reply(conn, "200 OK", page(json.dumps({"head": request, "after": after})))
                elif mode == "status-then-close":
                    conn.sendall(b"HTTP/1.1 200 OK\r\n")
                elif mode == "close":
                    pass
                elif mode == "silent":
                    time.sleep(lifetime)
                elif mode == "trickle":
                    conn.sendall(head("200 OK", 100000))
                    while True:
                        conn.sendall(b" ")
                        time.sleep(0.2)
                elif mode == "truncated":
                    conn.sendall(head("200 OK", len(body)) + body[: len(body) // 2])
                elif mode == "long-length":
                    conn.sendall(head("200 OK", len(body) + 100) + body)
                elif mode == "short-length":
                    conn.sendall(head("200 OK", len(body) - 10) + body)
                elif mode == "huge-length":
                    conn.sendall(head("200 OK", 1000000000) + b"[" * 100)
                    time.sleep(lifetime)
                elif mode == "endless-chunked":
                    conn.sendall(head("200 OK", None, ["Transfer-Encoding: chunked"]))
                    endless(conn, b"1000\r\n" + b" " * 4096 + b"\r\n")
                elif mode == "endless-close":
                    conn.sendall(head("200 OK"))
                    endless(conn, b" " * 4096)
                elif mode == "gzip":
                    reply(conn, "200 OK", gzip.compress(body), ["Content-Encoding: gzip"])
                elif mode in ("gzip-chunked", "gzip-bomb"):
                    data = gzip.compress(body if mode == "gzip-chunked" else b" " * (16 << 20))
                    conn.sendall(head("200 OK", None, ["Transfer-Encoding: chunked", "Content-Encoding: gzip"]))
                    for start in range(0, len(data), 50):
                        piece = data[start : start + 50]
                        conn.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
                    conn.sendall(b"0\r\n\r\n")
                elif mode == "deflate":
                    reply(conn, "200 OK", zlib.compress(body), ["Content-Encoding: deflate"])
                elif mode == "deflate-raw":
                    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
                    reply(conn, "200 OK", packer.compress(body) + packer.flush(), ["Content-Encoding: deflate"])
                elif mode == "br":
                    reply(conn, "200 OK", body, ["Content-Encoding: br"])
                elif mode == "gzip-corrupt":
                    data = bytearray(gzip.compress(body))
                    data[-8] ^= 1
                    reply(conn, "200 OK", bytes(data), ["Content-Encoding: gzip"])
                elif mode == "gzip-cut-close":
                    data = gzip.compress(body)
                    conn.sendall(head("200 OK", None, ["Content-Encoding: gzip"]) + data[: len(data) // 2])
                elif mode == "chunked":
                    conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                    conn.sendall(head("200 OK", None, ["Transfer-Encoding: chunked"]))
                    for start in range(0, len(body), 7):
                        piece = body[start : start + 7]
                        conn.sendall(b"%x;note=1\r\n%s\r\n" % (len(piece), piece))
                        time.sleep(0.001)
                    conn.sendall(b"0\r\nX-Trailer: done\r\n\r\n")
                elif mode == "drip-head":
                    try:
                        conn.sendall(b"HTTP/1.1 200 OK\r\n")
                        while True:
                            conn.sendall(b"X-Drip: 1\r\n")
                            time.sleep(0.2)
                    except OSError:
                        print("hung up", flush=True)
                elif mode == "header-flood":
                    conn.sendall(b"HTTP/1.1 200 OK\r\n")
                    endless(conn, b"X-Flood: " + b"a" * 1000 + b"\r\n")
                elif mode in ("redirect-302", "redirect-307", "redirect-away"):
                    status = "307 Temporary Redirect" if mode == "redirect-307" else "302 Found"
                    location = "/users/moved" + target[len("/users"):]
                    if mode == "redirect-away":
                        location = "http://localhost:1/users/changes"
                    reply(conn, status, b'{"moved": true}', ["Location: " + location])
                elif mode == "push-ok":
                    changes = json.loads(request_body)["changes"]
                    results = [{"idempotency_key": c["idempotency_key"], "status": "accepted", "version": target}
                               for c in changes]
                    reply(conn, "200 OK", json.dumps({"results": results}).encode())
                elif mode == "unauthorized-once":
                    if "Bearer fresh" in request:
                        reply(conn, "200 OK", body)
                    else:
                        reply(conn, "401 Unauthorized", b'{"error": "expired"}', ['WWW-Authenticate: Bearer'])
                elif mode == "throttle":
                    reply(conn, "429 Too Many Requests", b'{"error": "slow down"}', ["Retry-After: 1"])
                elif mode == "throttle-date":
                    date = formatdate(time.time() + 60, usegmt=True)
                    reply(conn, "503 Service Unavailable", b'{"error": "later"}', ["Retry-After: " + date])
            except OSError:
                pass
            finally:
                conn.close()

        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        print(listener.getsockname()[1], flush=True)
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=handle, args=(conn,), daemon=True).start()
        """#
}
