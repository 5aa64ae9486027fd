import Foundation
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A real HTTP server on 127.0.0.1 for ``HTTPRemoteSource`` tests: Python's standard `http.server`,
/// implementing the endpoints `HTTPRemoteSource` documents over an in-memory table. The script is
/// written to a temporary folder, binds an ephemeral port and exits by itself after `lifetime`
/// seconds, so a crashed test cannot leave it running. With `compression` (`gzip`, `gzip-chunked` or
/// `deflate`), every answer is compressed that way, whatever the request asked.
final class PythonSyncServer {
    let baseURL: URL
    private let server: PythonScriptProcess

    /// Starts the server; the first `failingRequests` requests answer 503.
    init(failingRequests: Int = 0, compression: String = "identity", lifetime: Int = 600) async throws {
        server = try await PythonScriptProcess.start(
            script: Self.script, arguments: [String(failingRequests), String(lifetime), compression], name: "sync-http")
        baseURL = URL(string: "http://127.0.0.1:\(server.port)/users")!
    }

    func stop() {
        server.stop()
    }

    private static let script = #"""
        import gzip, json, os, signal, sys, threading, zlib
        from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
        from urllib.parse import urlparse, parse_qs

        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
        failing = [int(sys.argv[1])]
        compression = sys.argv[3]
        exit_after(float(sys.argv[2]), "sync-http")
        lock = threading.Lock()
        rows = {}        # id -> [version, record or None]
        log = []         # (version, id), oldest first
        clock = [0]
        applied = {}     # idempotency key -> result
        writers = {}     # record id -> idempotency key of the change that last wrote it

        def write(record_id, record):
            clock[0] += 1
            rows[record_id] = [clock[0], record]
            log.append((clock[0], record_id))

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if compression == "deflate":
                    data = zlib.compress(data)
                    self.send_header("Content-Encoding", "deflate")
                elif compression.startswith("gzip"):
                    data = gzip.compress(data)
                    self.send_header("Content-Encoding", "gzip")
                if compression == "gzip-chunked":
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for start in range(0, len(data), 1000):
                        piece = data[start : start + 1000]
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.write(b"0\r\n\r\n")
                    return
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def fail_if_asked(self):
                with lock:
                    if failing[0] > 0:
                        failing[0] -= 1
                        self.reply(503, {"error": "try again"})
                        return True
                return False

            def do_GET(self):
                url = urlparse(self.path)
                if url.path != "/users/changes":
                    return self.reply(404, {"error": "no such endpoint"})
                if self.fail_if_asked():
                    return
                query = parse_qs(url.query)
                after = int(query.get("after", ["0"])[0])
                limit = int(query["limit"][0])
                with lock:
                    records, deleted, last, index = [], [], after, 0
                    pending = [(v, i) for (v, i) in log if v > after]
                    for version, record_id in pending:
                        if len(records) + len(deleted) >= limit:
                            break
                        index += 1
                        last = version
                        current = rows[record_id]
                        if current[0] != version:
                            continue
                        if current[1] is None:
                            deleted.append(record_id)
                        else:
                            records.append(current[1])
                    has_more = index < len(pending)
                self.reply(200, {"records": records, "deleted": deleted, "next_cursor": str(last), "has_more": has_more})

            def do_POST(self):
                if urlparse(self.path).path != "/users/changes":
                    return self.reply(404, {"error": "no such endpoint"})
                if self.fail_if_asked():
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                results = []
                with lock:
                    for change in body["changes"]:
                        key = change["idempotency_key"]
                        if key in applied:
                            results.append(applied[key])
                            continue
                        current = rows.get(change["id"])
                        base = change.get("base_cursor")
                        own = writers.get(change["id"]) in change.get("supersedes", [])
                        if base is not None and current is not None and current[0] > int(base) and not own:
                            result = {"idempotency_key": key, "status": "conflict", "version": str(current[0]), "record": current[1]}
                        elif change["operation"] == "upsert" and "email_address" not in change["record"]:
                            result = {"idempotency_key": key, "status": "rejected", "reason": "email_address is required"}
                        else:
                            write(change["id"], change.get("record") if change["operation"] == "upsert" else None)
                            writers[change["id"]] = key
                            result = {"idempotency_key": key, "status": "accepted", "version": str(clock[0])}
                        applied[key] = result
                        results.append(result)
                self.reply(200, {"results": results})

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#
}
