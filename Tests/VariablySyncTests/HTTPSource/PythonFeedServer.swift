import Foundation
import VariablyHTTP
import VariablySync
import VariablyTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real HTTP server on 127.0.0.1 serving several tables as one feed (``HTTPAPI/changeFeed``) and each
/// table's pushes (``HTTPAPI/changesEnvelope`` at `/{table}/changes`): Python's `http.server` over
/// in-memory tables on one clock, as one database orders their writes. `/admin/write` writes as
/// another client would; `/admin/rows` lists a table. A pushed record named `"refused"` is rejected, as a
/// validation error. With `failureRate`, that share of feed requests
/// answers `503`, chosen by a seeded generator.
final class PythonFeedServer {
    let baseURL: URL
    private let server: PythonScriptProcess

    init(failureRate: Double = 0, seed: Int = 1, lifetime: Int = 600) async throws {
        server = try await PythonScriptProcess.start(
            script: Self.script, arguments: [String(failureRate), String(seed), String(lifetime)], name: "feed-http")
        baseURL = URL(string: "http://127.0.0.1:\(server.port)")!
    }

    func stop() {
        server.stop()
    }

    /// Writes `record` into `table` (or deletes `id` when `record` is `nil`), as another client would.
    func write(_ table: String, id: Int64, record: [String: Any]?) async throws {
        var body: [String: Any] = ["table": table, "id": id]
        if let record { body["record"] = record }
        _ = try await send("POST", "admin/write", body: body)
    }

    /// The rows of `table` the server holds, by id.
    func rows(_ table: String) async throws -> [Int64: [String: Any]] {
        let data = try await send("GET", "admin/rows?table=\(table)", body: nil)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]] ?? [:]
        return Dictionary(uniqueKeysWithValues: object.compactMap { key, value in Int64(key).map { ($0, value) } })
    }

    private func send(_ method: String, _ path: String, body: [String: Any]?) async throws -> Data {
        // Through `URLSessionTransport`, which never blocks the calling thread: URLSession's own
        // `data(for:)` waits for the session's queue on the calling cooperative thread.
        let request = HTTPTransportRequest(
            method: method, url: URL(string: path, relativeTo: baseURL)!.absoluteURL,
            body: try body.map { try JSONSerialization.data(withJSONObject: $0) }, timeout: 30)
        let response = try await URLSessionTransport.shared.send(request)
        var data = Data()
        for try await chunk in response.body { data.append(chunk) }
        return data
    }

    private static let script = #"""
        import json, random, signal, sys, threading
        from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
        from urllib.parse import urlparse, parse_qs

        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
        failure_rate = float(sys.argv[1])
        chance = random.Random(int(sys.argv[2]))
        exit_after(float(sys.argv[3]), "feed-http")
        lock = threading.Lock()
        rows = {}        # (table, id) -> [version, record or None]
        log = []         # (version, table, id), oldest first
        clock = [0]
        applied = {}     # idempotency key -> result

        def write(table, record_id, record):
            clock[0] += 1
            rows[(table, record_id)] = [clock[0], record]
            log.append((clock[0], table, record_id))

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def body(self):
                return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

            def do_GET(self):
                url = urlparse(self.path)
                query = parse_qs(url.query)
                if url.path == "/admin/rows":
                    table = query["table"][0]
                    with lock:
                        found = {str(i): r[1] for (t, i), r in rows.items() if t == table and r[1] is not None}
                    return self.reply(200, found)
                if url.path != "/changes":
                    return self.reply(404, {"error": "no such endpoint"})
                with lock:
                    if failure_rate > 0 and chance.random() < failure_rate:
                        return self.reply(503, {"error": "try again"})
                    after = int(query.get("after", ["0"])[0])
                    if after > clock[0]:
                        return self.reply(410, {"error": "invalid_cursor"})
                    limit = int(query["limit"][0])
                    tables, count, last, index = {}, 0, after, 0
                    pending = [entry for entry in log if entry[0] > after]
                    for version, table, record_id in pending:
                        if count >= limit:
                            break
                        index += 1
                        last = version
                        current = rows[(table, record_id)]
                        if current[0] != version:
                            continue
                        part = tables.setdefault(table, {"records": [], "deleted": []})
                        if current[1] is None:
                            part["deleted"].append(record_id)
                        else:
                            part["records"].append(current[1])
                        count += 1
                    has_more = index < len(pending)
                self.reply(200, {"tables": tables, "next_cursor": str(last), "has_more": has_more})

            def do_POST(self):
                path = urlparse(self.path).path
                if path == "/admin/write":
                    body = self.body()
                    with lock:
                        write(body["table"], body["id"], body.get("record"))
                    return self.reply(200, {"version": clock[0]})
                parts = path.strip("/").split("/")
                if len(parts) != 2 or parts[1] != "changes":
                    return self.reply(404, {"error": "no such endpoint"})
                table = parts[0]
                results = []
                with lock:
                    for change in self.body()["changes"]:
                        key = change["idempotency_key"]
                        if key not in applied:
                            record = change.get("record") if change["operation"] == "upsert" else None
                            if record is not None and record.get("user_name") == "refused":
                                applied[key] = {"idempotency_key": key, "status": "rejected", "reason": "this name is refused"}
                            else:
                                write(table, change["id"], record)
                                applied[key] = {"idempotency_key": key, "status": "accepted", "version": str(clock[0])}
                        results.append(applied[key])
                self.reply(200, {"results": results})

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#
}
