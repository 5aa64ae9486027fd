// MARK: - The server's script

extension ShapedAPIServer {
    /// The Python script: `server.py LIFETIME`; prints its port, then answers one line per command.
    static let script = #"""
        import datetime, json, os, signal, socket, sys, threading, time
        from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
        from urllib.parse import urlparse, parse_qs, urlencode

        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
        exit_after(float(sys.argv[1]), "shaped-http")
        lock = threading.Lock()
        EPOCH = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
        clock = [100000]     # seconds after EPOCH of the last stamped write
        sequence = [0]       # the items' change sequence
        items = {}           # id -> [sequence of its last change, record or None for a tombstone]
        users = {}           # id -> record of the page API
        faults = []          # faults for coming requests
        options = {"token": None, "conflict_body": "record", "link_prefix": None, "frozen_clock": False}
        requests = []        # every request, oldest first
        answers = {}         # idempotency key -> answer (users) or result (items)
        writers = {}         # item id -> idempotency key of its last write
        last_page = {}       # collection path -> the last page answered

        def stamp(seconds):
            # ISO 8601 in UTC with milliseconds and `Z`, as Rails writes it: fixed width, so that the
            # texts sort as the instants do.
            return (EPOCH + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.000Z")

        def stamped(old, record, updated_at=None):
            record = dict(record)
            record["version"] = (old["version"] if old else 0) + 1
            if updated_at is None:
                if not options["frozen_clock"]:
                    clock[0] += 1
                updated_at = stamp(clock[0])
            record["updated_at"] = updated_at
            return record

        def write_item(item_id, record, updated_at=None):
            sequence[0] += 1
            old = items.get(item_id, [0, None])[1]
            items[item_id] = [sequence[0], None if record is None else stamped(old, record, updated_at)]

        def write_user(record, updated_at=None):
            record = stamped(users.get(record["id"]), record, updated_at)
            users[record["id"]] = record
            return record

        def etag(record):
            return '"%d"' % record["version"]

        def reply(status, body, headers=()):
            data = b"" if body is None else json.dumps(body).encode()
            return (status, [("Content-Type", "application/json")] + list(headers), data)

        def take_fault(method, path):
            for fault in faults:
                if fault["method"] != method or not path.startswith(fault["path"]):
                    continue
                if fault["skip"] > 0:
                    fault["skip"] -= 1
                    return None
                if fault["times"] > 0:
                    fault["times"] -= 1
                    if fault["times"] == 0:
                        faults.remove(fault)
                return fault["mode"]
            return None

        def items_page(query, cursor_override=None):
            after = int(query.get("cursor", ["0"])[0])
            limit = int(query["limit"][0])
            changed = sorted((changed_at, item_id) for item_id, (changed_at, _) in items.items() if changed_at > after)
            chosen = changed[:limit]
            data = [dict(items[i][1], deleted=False) if items[i][1] is not None else {"id": i, "deleted": True}
                    for _, i in chosen]
            last = str(chosen[-1][0]) if chosen else str(after)
            more = len(changed) > limit
            if cursor_override is not None:
                last, more = cursor_override, True
            return reply(200, {"data": data, "meta": {"next_cursor": last, "has_more": more}})

        def items_push(body):
            results = []
            for change in body["changes"]:
                key = change["idempotency_key"]
                if key in answers:
                    results.append(answers[key])
                    continue
                current = items.get(change["id"])
                base = change.get("base_cursor")
                own = writers.get(change["id"]) in change.get("supersedes", [])
                if base is not None and current is not None and current[0] > int(base) and not own:
                    result = {"idempotency_key": key, "status": "conflict", "version": str(current[0]), "record": current[1]}
                else:
                    write_item(change["id"], change.get("record") if change["operation"] == "upsert" else None)
                    writers[change["id"]] = key
                    result = {"idempotency_key": key, "status": "accepted", "version": str(sequence[0])}
                answers[key] = result
                results.append(result)
            return reply(200, {"results": results})

        def users_page(path, query, stuck=False):
            since = query.get("updated_since", [None])[0]
            per_page = int(query.get("per_page", ["30"])[0])
            page = int(query.get("page", ["1"])[0])
            matching = sorted((n for n in users.values() if since is None or n["updated_at"] >= since),
                              key=lambda n: (n["updated_at"], n["id"]))
            chosen = matching[(page - 1) * per_page:page * per_page]

            def link(number, relation):
                parameters = {"per_page": per_page, "page": number}
                if since is not None:
                    parameters["updated_since"] = since
                prefix = options["link_prefix"] or "http://127.0.0.1:%d/users?" % port
                return '<%s%s>; rel="%s"' % (prefix, urlencode(parameters), relation)

            links = [link(1, "first")]
            if page > 1:
                links.append(link(page - 1, "prev"))
            if stuck:
                links.append('<http://127.0.0.1:%d%s>; rel="next"' % (port, path))
            elif page * per_page < len(matching):
                links.append(link(page + 1, "next"))
            return reply(200, chosen, [("Link", ", ".join(links))])

        def user_answer(method, user_id, body, headers):
            current = users.get(user_id)
            if method == "GET":
                return reply(200, current, [("ETag", etag(current))]) if current else reply(404, {"error": "no such user"})
            key = headers.get("Idempotency-Key")
            if key in answers:
                return answers[key]
            if method == "POST":
                if current is not None:
                    answer = reply(409, current, [("ETag", etag(current))])
                else:
                    record = write_user(body)
                    answer = reply(201, record, [("ETag", etag(record))])
            elif current is None:
                answer = reply(404, {"error": "no such user"})
            elif method == "PUT" and headers.get("If-Match") is None:
                answer = reply(428, {"error": "If-Match is required"})
            elif headers.get("If-Match") not in (None, etag(current)):
                body = {"record": current, "empty": None, "error": {"error": "precondition_failed"}}[options["conflict_body"]]
                answer = reply(412, body, [("ETag", etag(current))])
            elif method == "DELETE":
                del users[user_id]
                answer = (204, [], b"")
            elif method == "PUT":
                body["id"] = user_id
                record = write_user(body)
                answer = reply(200, record, [("ETag", etag(record))])
            else:
                answer = reply(405, {"error": "method not allowed"})
            if key is not None:
                answers[key] = answer
            return answer

        def route(method, url, body, headers):
            parts = url.path.strip("/").split("/")
            query = parse_qs(url.query)
            if parts == ["items"] and method == "GET":
                answer = items_page(query)
                last_page["/items"] = answer
                return answer
            if parts == ["items", "changes"] and method == "POST":
                return items_push(body)
            if parts == ["users"] and method == "GET":
                answer = users_page(url.path, query)
                last_page["/users"] = answer
                return answer
            if parts == ["users"] and method == "POST":
                return user_answer("POST", body.get("id"), body, headers)
            if len(parts) == 2 and parts[0] == "users":
                return user_answer(method, int(parts[1]), body, headers)
            return reply(404, {"error": "no such endpoint"})

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.serve("GET")

            def do_POST(self):
                self.serve("POST")

            def do_PUT(self):
                self.serve("PUT")

            def do_DELETE(self):
                self.serve("DELETE")

            def serve(self, method):
                url = urlparse(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                entry = {"method": method, "path": url.path, "query": url.query,
                         "ifMatch": self.headers.get("If-Match"), "idempotencyKey": self.headers.get("Idempotency-Key"),
                         "authorization": self.headers.get("Authorization"), "status": 0, "fault": None}
                mode = None
                with lock:
                    requests.append(entry)
                    if options["token"] is not None and self.headers.get("Authorization") != "Bearer " + options["token"]:
                        answer = reply(401, {"error": "unauthorized"})
                    else:
                        mode = take_fault(method, url.path)
                        if mode == "500":
                            answer = reply(500, {"error": "boom"})
                        elif mode == "429":
                            answer = reply(429, {"error": "slow down"}, [("Retry-After", "1")])
                        elif mode == "repeat" and url.path in last_page:
                            answer = last_page[url.path]
                        elif mode == "stuck" and url.path == "/items":
                            answer = items_page({"limit": parse_qs(url.query)["limit"]}, cursor_override="stuck")
                        elif mode == "stuck" and url.path == "/users":
                            answer = users_page(self.path, {"per_page": parse_qs(url.query).get("per_page", ["30"])}, stuck=True)
                        else:
                            answer = route(method, url, body, self.headers)
                    entry["status"] = answer[0]
                    entry["fault"] = mode
                self.deliver(answer, mode)

            def deliver(self, answer, mode):
                status, headers, data = answer
                try:
                    self.send_response(status)
                    for name, value in headers:
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if mode == "truncate":
                        self.wfile.write(data[:len(data) // 2])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    if mode == "slow":
                        self.wfile.flush()
                        time.sleep(3)
                    self.wfile.write(data)
                except OSError:
                    self.close_connection = True

        def control(command):
            with lock:
                operation = command["op"]
                if operation == "put":
                    if command.get("one_timestamp"):
                        clock[0] += 1
                        command["updated_at"] = stamp(clock[0])
                    for record in command["records"]:
                        if command["collection"] == "items":
                            write_item(record["id"], record, command.get("updated_at"))
                        else:
                            write_user(record, command.get("updated_at"))
                elif operation == "delete":
                    for record_id in command["ids"]:
                        if command["collection"] == "items":
                            write_item(record_id, None)
                        else:
                            users.pop(record_id, None)
                elif operation == "faults":
                    faults.extend(command["faults"])
                elif operation == "token":
                    options["token"] = command["token"]
                elif operation == "option":
                    options[command["name"]] = command["value"]
                return {"items": sorted((r for _, r in items.values() if r is not None), key=lambda r: r["id"]),
                        "users": sorted(users.values(), key=lambda r: r["id"]),
                        "requests": list(requests), "faults": len(faults)}

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        port = server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print(port, flush=True)
        for line in sys.stdin:
            print(json.dumps(control(json.loads(line))), flush=True)
        os._exit(0)
        """#
}
