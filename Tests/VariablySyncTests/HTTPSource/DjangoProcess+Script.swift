// MARK: - What every Django test server's script shares

extension DjangoProcess {
    /// The Python that ``start(script:name:lifetime:python:_:)`` puts before a server's script, with the
    /// standard library only (it runs before the script re-executes itself with a python3 that has
    /// Django): `RequestLog`, the middleware that logs every request (`"__main__.RequestLog"`, outermost,
    /// in the settings' `MIDDLEWARE`) into `request_log` under `log_lock`; `serve(application, protocol)`,
    /// which serves a WSGI application with `wsgiref` on an ephemeral port of 127.0.0.1 and writes the
    /// port to `protocol`; and `answer_commands(control, protocol)`, which answers each JSON line of
    /// stdin with `control`'s JSON (or an `error`) until stdin closes, then exits.
    static let serving = #"""
        import json
        from socketserver import ThreadingMixIn
        from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

        # The request log.

        log_lock = threading.Lock()
        request_log = []

        class RequestLog:
            """Middleware, outermost: every request and the status it was answered with (redirects included)."""
            def __init__(self, get_response):
                self.get_response = get_response

            def __call__(self, request):
                # Read before the view: Django keeps the bytes and hands the view a copy of them.
                body = request.body.decode("utf-8", "replace") if request.method != "GET" else None
                response = self.get_response(request)
                entry = {"method": request.method, "path": request.get_full_path(), "status": response.status_code,
                         "ifMatch": request.headers.get("If-Match"), "contentType": request.headers.get("Content-Type"),
                         "idempotencyKey": request.headers.get("Idempotency-Key"),
                         "authorization": request.headers.get("Authorization"), "body": body}
                with log_lock:
                    request_log.append(entry)
                return response

        # The server, and the commands until stdin closes.

        class Server(ThreadingMixIn, WSGIServer):
            daemon_threads = True

        class QuietHandler(WSGIRequestHandler):
            def log_message(self, *args):
                pass

            def get_environ(self):
                environ = super().get_environ()
                if self.headers.get("Content-Type") is None:
                    environ.pop("CONTENT_TYPE", None)   # wsgiref would say text/plain
                return environ

        def serve(application, protocol):
            server = make_server("127.0.0.1", 0, application, server_class=Server, handler_class=QuietHandler)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            protocol.write("%d\n" % server.server_address[1])
            protocol.flush()

        def answer_commands(control, protocol):
            for line in sys.stdin:
                if not line.strip():
                    continue
                try:
                    answer = control(json.loads(line))
                except Exception as error:
                    answer = {"error": "%s: %s" % (type(error).__name__, error), "requests": [], "token": ""}
                protocol.write(json.dumps(answer) + "\n")
                protocol.flush()
            os._exit(0)


        """#
}
