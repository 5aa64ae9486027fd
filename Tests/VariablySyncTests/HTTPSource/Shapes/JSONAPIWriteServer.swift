import Foundation
import VariablyTestSupport

/// A real HTTP server on 127.0.0.1 that takes JSON:API writes (<https://jsonapi.org/format/#crud>) of
/// one collection, `articles`, each with an `author` relationship to `people`, as strictly as the
/// specification asks, and records every request it was sent:
///
/// - A body must come as `Content-Type: application/vnd.api+json` (else `415`); an `Accept` that
///   names neither that type nor `*/*` is answered `406`.
/// - `GET /articles` answers `{"data": [resource objects]}` (every one on page 1, none after),
///   `GET /articles/{id}` `{"data": {…}}`.
/// - `POST /articles` takes `{"data": {"type": "articles", "attributes": {"title", "body"},
///   "relationships": {"author": {"data": {"type": "people", "id": …} | null}}}}`: `201` with the
///   resource it stored, its id assigned; with a `data.id` of the client's, `204` and no body. A
///   wrong `type` is `409`; a blank title `422` with `{"errors": [{"detail": …, "source": {"pointer":
///   "/data/attributes/title"}}]}`.
/// - `PATCH /articles/{id}` needs `data.id` and `data.type`, applies the members it holds, and
///   answers `200` with the resource; an `If-Match` that is not the current `attributes.version` is
///   `412`.
/// - `DELETE /articles/{id}` answers `204`.
///
/// Every write gives the article the next `attributes.version`. The test reads the server's state
/// (articles and requests) through its standard input.
final class JSONAPIWriteServer {
    /// The server's root, e.g. `http://127.0.0.1:41234`.
    let baseURL: URL
    private let server: PythonScriptProcess

    /// One request the server was sent.
    struct Request: Decodable {
        var method: String
        var path: String
        var contentType: String?
        var accept: String?
        var ifMatch: String?
        /// The body, as JSON text; `nil` for none.
        var body: String?

        enum CodingKeys: String, CodingKey {
            case method, path, body
            case contentType = "content_type"
            case accept
            case ifMatch = "if_match"
        }

        /// The body parsed, for comparisons that ignore the order of members.
        var json: NSDictionary? {
            body.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? NSDictionary }
        }
    }

    /// What the server holds and was sent.
    struct State: Decodable {
        /// The resource objects by id, as JSON text.
        var articles: [String: String]
        var requests: [Request]

        /// The resource object with `id`, parsed.
        func article(_ id: String) -> NSDictionary? {
            articles[id].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? NSDictionary }
        }
    }

    init(lifetime: Int = 600) async throws {
        server = try await PythonScriptProcess.start(
            script: Self.script, arguments: [String(lifetime)], name: "jsonapi-writes")
        baseURL = URL(string: "http://127.0.0.1:\(server.port)")!
    }

    deinit { server.stop() }

    /// The server's articles and every request it was sent.
    func state() throws -> State {
        var line = try JSONSerialization.data(withJSONObject: ["op": "state"])
        line.append(UInt8(ascii: "\n"))
        try server.input.write(contentsOf: line)
        return try JSONDecoder().decode(State.self, from: server.readLine())
    }

    /// The parsed JSON object of `text`.
    static func object(_ text: String) -> NSDictionary? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
    }

    private static let script =
        PythonScriptProcess.prelude
            + #"""
            import json, threading
            from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
            from urllib.parse import urlparse, parse_qs

            exit_after(float(sys.argv[1]), "jsonapi-writes")
            lock = threading.Lock()
            MEDIA = "application/vnd.api+json"
            articles = {}
            requests = []
            next_id = [1]

            def error(status, detail, pointer=None):
                entry = {"status": str(status), "detail": detail}
                if pointer:
                    entry["source"] = {"pointer": pointer}
                return status, {"errors": [entry]}

            def author_of(data):
                author = data.get("relationships", {}).get("author")
                if author is None:
                    return "absent", None
                target = author.get("data")
                if target is None:
                    return "ok", None
                if target.get("type") != "people" or not isinstance(target.get("id"), str):
                    return "bad", None
                return "ok", target["id"]

            def store(article_id, attributes, author, version):
                articles[article_id] = {"type": "articles", "id": article_id, "attributes": dict(attributes, version=version),
                    "relationships": {"author": {"data": None if author is None else {"type": "people", "id": author}}}}

            def create(body):
                data = body.get("data") if isinstance(body, dict) else None
                if not isinstance(data, dict):
                    return error(400, "a resource object at data")
                if data.get("type") != "articles":
                    return error(409, "type must be articles", "/data/type")
                attributes = data.get("attributes", {})
                if not str(attributes.get("title", "")).strip():
                    return error(422, "title must not be blank", "/data/attributes/title")
                state, author = author_of(data)
                if state == "bad":
                    return error(400, "a resource identifier of people", "/data/relationships/author/data")
                if "id" in data:
                    store(data["id"], attributes, author, 1)
                    return 204, None
                article_id = str(next_id[0])
                next_id[0] += 1
                store(article_id, attributes, author, 1)
                return 201, {"data": articles[article_id]}

            def update(article_id, body, if_match):
                current = articles.get(article_id)
                if current is None:
                    return error(404, "no such article")
                data = body.get("data") if isinstance(body, dict) else None
                if not isinstance(data, dict) or data.get("type") != "articles" or data.get("id") != article_id:
                    return error(409, "data.type and data.id must name this article", "/data")
                version = current["attributes"]["version"]
                if if_match is not None and if_match.strip('"') != str(version):
                    return error(412, "the article changed")
                attributes = dict(current["attributes"])
                attributes.update(data.get("attributes", {}))
                if not str(attributes.get("title", "")).strip():
                    return error(422, "title must not be blank", "/data/attributes/title")
                state, author = author_of(data)
                if state == "bad":
                    return error(400, "a resource identifier of people", "/data/relationships/author/data")
                if state == "absent":
                    author = (current["relationships"]["author"]["data"] or {}).get("id")
                store(article_id, attributes, author, version + 1)
                return 200, {"data": articles[article_id]}

            class Handler(BaseHTTPRequestHandler):
                def log_message(self, *args):
                    pass

                def handle_any(self):
                    length = int(self.headers.get("Content-Length") or 0)
                    raw = self.rfile.read(length) if length else b""
                    accept = self.headers.get("Accept")
                    content_type = self.headers.get("Content-Type")
                    url = urlparse(self.path)
                    parts = [p for p in url.path.split("/") if p]
                    with lock:
                        requests.append({"method": self.command, "path": self.path, "content_type": content_type,
                            "accept": accept, "if_match": self.headers.get("If-Match"),
                            "body": raw.decode() if raw else None})
                        if accept is not None and MEDIA not in accept and "*/*" not in accept:
                            status, body = error(406, "accepts " + MEDIA)
                        elif raw and content_type != MEDIA:
                            status, body = error(415, "bodies are " + MEDIA)
                        elif parts[:1] != ["articles"] or len(parts) > 2:
                            status, body = error(404, "no such path")
                        else:
                            status, body = self.route(parts, json.loads(raw) if raw else None, parse_qs(url.query))
                    data = b"" if body is None else json.dumps(body).encode()
                    self.send_response(status)
                    if data:
                        self.send_header("Content-Type", MEDIA)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

                def route(self, parts, body, query):
                    if len(parts) == 1:
                        if self.command == "GET":
                            first = query.get("page[number]", ["1"])[0] == "1"
                            return 200, {"data": [articles[k] for k in sorted(articles)] if first else []}
                        if self.command == "POST":
                            return create(body)
                        return error(405, "GET or POST")
                    article_id = parts[1]
                    if self.command == "GET":
                        return (200, {"data": articles[article_id]}) if article_id in articles else error(404, "none")
                    if self.command == "PATCH":
                        return update(article_id, body, self.headers.get("If-Match"))
                    if self.command == "DELETE":
                        return (204, None) if articles.pop(article_id, None) is not None else error(404, "none")
                    return error(405, "GET, PATCH or DELETE")

                do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = handle_any

            server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
            print(server.server_address[1], flush=True)
            for line in sys.stdin:
                with lock:
                    state = {"articles": {k: json.dumps(v) for k, v in articles.items()}, "requests": list(requests)}
                print(json.dumps(state), flush=True)
            os._exit(0)
            """#
}
