import Foundation
import VariablyTestSupport

/// A real HTTP server on 127.0.0.1 that filters one table of users by the expression dialects of
/// docs/http.md's changed-since templates, and pages them by offset, as those servers do:
///
/// - **PostgREST, Supabase:** `GET /rest/users?updated_at=gte.<value>&order=updated_at.asc,id.asc&limit=n&offset=k`
///   answers a JSON array.
/// - **JSON:API:** `GET /jsonapi/people?filter[updated_at.gte]=<value>&sort=updated_at,id&page[size]=n&page[number]=k`
///   answers `{"data": [{"type": "people", "id": "7", "attributes": {"name": …, "updated_at": …,
///   "deleted": false}}], "links": {"next": …}}`, the next link counting pages.
/// - **OData:** `GET /odata/users?$filter=updated_at ge '<value>'&$orderby=updated_at,id&$top=n&$skip=k`
///   answers `{"value": [...]}`; the literal is single-quoted, a quote inside doubled.
///
/// The comparison is of text, as a `TEXT` column compares: `updated_at` is written with microseconds
/// and a space for the `T` (`2026-01-02 03:46:40.000001+00:00`), so a boundary re-encoded in
/// another form would match nothing or everything. A filter it cannot parse is answered `400`. Edits
/// come through standard input (`{"op": "put", "records": [...]}`, each stamped with the next
/// microsecond), each answered with the users and the filters the server was asked.
final class FilterDialectServer {
    /// The server's root, e.g. `http://127.0.0.1:41234`.
    let baseURL: URL
    private let server: PythonScriptProcess

    /// What the server holds and was asked, after a command.
    struct State: Decodable {
        /// The users as the server stores them.
        var users: [[String: JSONAny]]
        /// Every filter value received, oldest first (the literal after parsing).
        var filters: [String]
    }

    /// A JSON value of any kind, compared as text.
    struct JSONAny: Decodable, Equatable {
        let text: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let string = try? container.decode(String.self) {
                text = string
            } else if let number = try? container.decode(Double.self) {
                text = String(number)
            } else if let flag = try? container.decode(Bool.self) {
                text = String(flag)
            } else {
                text = "null"
            }
        }
    }

    /// Starts the server with `records` (remote JSON objects with an `id`), stamped in order.
    init(records: [[String: Any]], lifetime: Int = 600) async throws {
        let seed = String(decoding: try JSONSerialization.data(withJSONObject: records), as: UTF8.self)
        server = try await PythonScriptProcess.start(
            script: Self.script, arguments: [seed, String(lifetime)], name: "filter-dialects")
        baseURL = URL(string: "http://127.0.0.1:\(server.port)")!
    }

    deinit { server.stop() }

    /// Writes `records` (remote JSON objects with an `id`), stamping each with a new `updated_at`.
    @discardableResult
    func put(_ records: [[String: Any]]) throws -> State {
        try command(["op": "put", "records": records])
    }

    /// Marks the users `ids` deleted (JSON:API's `attributes.deleted`), stamping each.
    @discardableResult
    func softDelete(_ ids: [Int]) throws -> State {
        try command(["op": "soft-delete", "ids": ids])
    }

    /// The server's users and the filters it was asked.
    func state() throws -> State {
        try command(["op": "state"])
    }

    private func command(_ command: [String: Any]) throws -> State {
        var line = try JSONSerialization.data(withJSONObject: command)
        line.append(UInt8(ascii: "\n"))
        try server.input.write(contentsOf: line)
        return try JSONDecoder().decode(State.self, from: server.readLine())
    }

    private static let script =
        PythonScriptProcess.prelude
            + #"""
            import datetime, json, re, threading
            from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
            from urllib.parse import urlparse, parse_qs, urlencode

            exit_after(float(sys.argv[2]), "filter-dialects")
            lock = threading.Lock()
            EPOCH = datetime.datetime(2026, 1, 2, 3, 46, 40, tzinfo=datetime.timezone.utc)
            clock = [0]
            users = {}
            filters = []

            def stamp():
                clock[0] += 1
                return str(EPOCH + datetime.timedelta(microseconds=clock[0]))   # "2026-01-02 03:46:40.000001+00:00"

            def write(record):
                record = dict(record)
                record["updated_at"] = stamp()
                users[record["id"]] = record

            for record in json.loads(sys.argv[1]):
                write(record)

            def ordered(since):
                rows = [r for r in users.values() if since is None or r["updated_at"] >= since]
                return sorted(rows, key=lambda r: (r["updated_at"], r["id"]))

            def postgrest(query):
                since = None
                if "updated_at" in query:
                    operator, _, value = query["updated_at"][0].partition(".")
                    if operator != "gte":
                        return 400, {"message": "unknown operator " + operator}
                    since = value
                    filters.append(value)
                if query.get("order", [""])[0] != "updated_at.asc,id.asc":
                    return 400, {"message": "order by updated_at.asc,id.asc"}
                limit = int(query.get("limit", ["1000"])[0])
                offset = int(query.get("offset", ["0"])[0])
                return 200, ordered(since)[offset:offset + limit]

            def jsonapi(query, base):
                since = None
                if "filter[updated_at.gte]" in query:
                    since = query["filter[updated_at.gte]"][0]
                    filters.append(since)
                if query.get("sort", [""])[0] != "updated_at,id":
                    return 400, {"errors": [{"detail": "sort by updated_at,id"}]}
                size = int(query.get("page[size]", ["10"])[0])
                number = int(query.get("page[number]", ["1"])[0])
                rows = ordered(since)
                page = rows[(number - 1) * size:number * size]
                data = [{"type": "people", "id": str(r["id"]), "attributes": {
                    "name": r["user_name"], "updated_at": r["updated_at"], "deleted": r.get("deleted", False)}}
                    for r in page]
                next_url = None
                if number * size < len(rows):
                    args = dict((k, v[0]) for k, v in query.items())
                    args["page[number]"] = str(number + 1)
                    next_url = base + "/jsonapi/people?" + urlencode(args)
                return 200, {"data": data, "links": {"next": next_url}}

            def odata(query):
                since = None
                if "$filter" in query:
                    match = re.fullmatch(r"updated_at ge '((?:[^']|'')*)'", query["$filter"][0])
                    if match is None:
                        return 400, {"error": {"message": "cannot parse " + query["$filter"][0]}}
                    since = match.group(1).replace("''", "'")
                    filters.append(since)
                top = int(query.get("$top", ["1000"])[0])
                skip = int(query.get("$skip", ["0"])[0])
                return 200, {"value": ordered(since)[skip:skip + top]}

            class Handler(BaseHTTPRequestHandler):
                def log_message(self, *args):
                    pass

                def do_GET(self):
                    url = urlparse(self.path)
                    query = parse_qs(url.query)
                    with lock:
                        if url.path == "/rest/users":
                            status, body = postgrest(query)
                        elif url.path == "/odata/users":
                            status, body = odata(query)
                        elif url.path == "/jsonapi/people":
                            status, body = jsonapi(query, "http://127.0.0.1:%d" % self.server.server_address[1])
                        else:
                            status, body = 404, {"message": "no such path"}
                    data = json.dumps(body).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            def control(command):
                with lock:
                    if command["op"] == "put":
                        for record in command["records"]:
                            write(record)
                    elif command["op"] == "soft-delete":
                        for record_id in command["ids"]:
                            write(dict(users[record_id], deleted=True))
                    return {"users": sorted(users.values(), key=lambda r: r["id"]), "filters": list(filters)}

            server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
            print(server.server_address[1], flush=True)
            for line in sys.stdin:
                print(json.dumps(control(json.loads(line))), flush=True)
            os._exit(0)
            """#
}
