#!/usr/bin/env python3
"""A first sync and a push against a real Django REST Framework server: where the time goes.

Starts the Django REST Framework server the tests use (its script is read from
Tests/VariablySyncTests/HTTPSource/DRF/DRFServer+Script.swift, with two additions: a log line per
request with its start and end, and a bulk `seed` command), seeds N users, then runs the
release `DRFClient` (Benchmarks/Sources/DRFClient) `--runs` times back to back: each run a first sync of
the N users into an empty file (cursor pagination, pages of 1,000) and a sync pushing edits of 100 of
them (PATCH, 4 at a time). For each phase it prints the client's wall time, the server's own time (the
union of its requests' intervals, from its log: the time at least one request was being served) and the
client's share, (wall - server) / wall: the part of the wall time the server was not working on an answer.

    python3 Benchmarks/scripts/drf-first-sync.py                  # 100,000 users, 5 runs
    python3 Benchmarks/scripts/drf-first-sync.py --users 10000 --runs 5
    python3 Benchmarks/scripts/drf-first-sync.py --no-build       # DRFClient already built (release)

Needs Django and djangorestframework for the python3 that runs it:
    python3 -m pip install django djangorestframework
Not run by CI: it takes minutes, and its figures depend on the machine's load.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHMARKS = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCHMARKS)
SERVER_SCRIPT = os.path.join(ROOT, "Tests/VariablySyncTests/HTTPSource/DRF/DRFServer+Script.swift")
PRELUDE = os.path.join(ROOT, "Tests/VariablyTestSupport/PythonScriptProcess.swift")
SERVING = os.path.join(ROOT, "Tests/VariablySyncTests/HTTPSource/DjangoProcess+Script.swift")

# What this script adds to the tests' server, each at an anchor of its text (a missing anchor stops the
# script: the test server changed, and these need a look).
TIMING = '''
import time as request_clock

def timed(application):
    """A WSGI wrapper: one line per request on stderr, `drf-request METHOD PATH START END` (seconds
    since 1970), from the request reaching Django to its response built."""
    def timed_application(environ, start_response):
        started = request_clock.time()
        result = application(environ, start_response)
        ended = request_clock.time()
        sys.stderr.write("drf-request %s %s %.6f %.6f\\n" % (environ.get("REQUEST_METHOD"),
                         environ.get("PATH_INFO"), started, ended))
        sys.stderr.flush()
        return result
    return timed_application

'''
SEED = '''    elif operation == "seed":   # drf-first-sync.py: `count` more users, one bulk insert
        first = User.objects.count()
        with transaction.atomic():
            User.objects.bulk_create([
                User(user_name="user%d" % i, email_address="user%d@example.com" % i, age=20 + i % 60,
                     score=(i % 1000) / 8, is_active=i % 3 != 0, tags=["tag%d" % (i % 7), "group%d" % (i % 3)],
                     nick_name="nickname %d" % i)
                for i in range(first, first + command["count"])])
        return {"requests": [], "token": TOKEN, "users": User.objects.count()}
'''
PATCHES = [
    ('class Server(ThreadingMixIn, WSGIServer):', TIMING + 'class Server(ThreadingMixIn, WSGIServer):'),
    ('serve(get_wsgi_application(), protocol)', 'serve(timed(get_wsgi_application()), protocol)'),
    ('    elif operation == "clear_log":', SEED + '    elif operation == "clear_log":'),
]


def swift_raw_string(path, opening):
    """The text of the Swift multi-line raw string literal that follows `opening` in `path`, its
    indentation (that of the closing delimiter) removed as Swift removes it."""
    text = open(path, encoding="utf-8").read()
    start = text.index(opening) + len(opening)
    end = text.index('"""#', start)
    lines = text[start:end].split("\n")[1:]
    indent = lines[-1]
    if indent.strip():
        sys.exit("%s: unexpected literal layout" % path)
    return "\n".join(line[len(indent):] for line in lines[:-1]) + "\n"


def server_script():
    # As the tests run it: the prelude, what every Django test server shares, then the DRF server's own.
    script = (swift_raw_string(PRELUDE, 'package static let prelude = #"""')
              + swift_raw_string(SERVING, 'static let serving = #"""')
              + swift_raw_string(SERVER_SCRIPT, 'static let script = #"""'))
    for anchor, replacement in PATCHES:
        if script.count(anchor) != 1:
            sys.exit("the DRF test server's script changed: %r is not found once; update PATCHES" % anchor)
        script = script.replace(anchor, replacement)
    return script


class Server:
    """The patched test server, started in a folder of its own, its stderr (the request log) in a file."""

    def __init__(self, python, lifetime):
        self.folder = tempfile.mkdtemp(prefix="drf-first-sync-")
        path = os.path.join(self.folder, "server.py")
        with open(path, "w", encoding="utf-8") as file:
            file.write(server_script())
        self.log_path = os.path.join(self.folder, "server.log")
        self.log = open(self.log_path, "w", encoding="utf-8")
        self.process = subprocess.Popen([python, path, str(lifetime), python], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1)
        port = self.process.stdout.readline().strip()
        if not port.isdigit():
            sys.exit("the DRF server did not start; its log: %s" % self.log_path)
        self.base = "http://127.0.0.1:%s/api/" % port
        self.token = self.command({"op": "state"})["token"]

    def command(self, command):
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if "error" in answer:
            sys.exit("the DRF server: %s" % answer["error"])
        return answer

    def requests(self):
        """Every logged request so far: (method, path, start, end)."""
        self.log.flush()
        entries = []
        with open(self.log_path, encoding="utf-8") as log:
            for line in log:
                words = line.split()
                if len(words) == 5 and words[0] == "drf-request":
                    entries.append((words[1], words[2], float(words[3]), float(words[4])))
        return entries

    def stop(self):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def busy_seconds(requests, start, end):
    """How long at least one request within [start, end] was being served: the union of their intervals."""
    intervals = sorted((max(a, start), min(b, end)) for _, _, a, b in requests if b >= start and a <= end)
    total, current_start, current_end = 0.0, None, None
    for a, b in intervals:
        if current_end is None or a > current_end:
            if current_end is not None:
                total += current_end - current_start
            current_start, current_end = a, b
        else:
            current_end = max(current_end, b)
    if current_end is not None:
        total += current_end - current_start
    return total, len(intervals)


def client_path(build):
    command = ["swift", "build", "-c", "release", "--package-path", BENCHMARKS, "--product", "DRFClient"]
    if build:
        subprocess.run(command, check=True, stdout=sys.stderr)
    bin_path = subprocess.run(command[:6] + ["--show-bin-path"], check=True, capture_output=True, text=True)
    return os.path.join(bin_path.stdout.strip(), "DRFClient")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--no-build", action="store_true", help="use the DRFClient already built in release")
    arguments = parser.parse_args()
    try:
        import django  # noqa: F401
        import rest_framework  # noqa: F401
    except ImportError:
        sys.exit("Django REST Framework is not installed for %s: python3 -m pip install django djangorestframework"
                 % sys.executable)

    client = client_path(not arguments.no_build)
    server = Server(sys.executable, lifetime=4 * 3600)
    try:
        started = time.time()
        server.command({"op": "seed", "count": arguments.users})
        print("DRF server %s, %d users seeded in %.1f s; load average %s" % (
            server.base, arguments.users, time.time() - started, " ".join("%.2f" % x for x in os.getloadavg())))
        rows = {"first sync": [], "push": []}
        peak = 0.0
        for run in range(1, arguments.runs + 1):
            process = subprocess.Popen(
                [client, "--base", server.base, "--token", server.token, "--users", str(arguments.users),
                 "--edits", str(arguments.edits)], stdout=subprocess.PIPE, text=True)
            stdout = process.stdout.read()
            # This client's own resource use: RUSAGE_CHILDREN would include the build's processes.
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            if process.returncode != 0:
                raise subprocess.CalledProcessError(process.returncode, client)
            peak = max(peak, usage.ru_maxrss / 1024)
            phases = json.loads(stdout.strip().splitlines()[-1])
            time.sleep(0.2)   # the last log lines reach the file
            logged = server.requests()
            for name, key in (("first sync", "pull"), ("push", "push")):
                phase = phases[key]
                wall = phase["end"] - phase["start"]
                busy, count = busy_seconds(logged, phase["start"], phase["end"])
                rows[name].append((wall, busy, (wall - busy) / wall))
                print("run %d  %-10s  wall %7.3f s  server %7.3f s (%4d requests)  client share %.2f" % (
                    run, name, wall, busy, count, (wall - busy) / wall))
        print("")
        print("| %d users, median of %d runs | wall (s) | server (s) | client share |" % (arguments.users, arguments.runs))
        print("| --- | ---: | ---: | ---: |")
        for name, values in rows.items():
            print("| %s (%s) | %.3f | %.3f | %.2f |" % (
                name, "%d records" % arguments.users if name == "first sync" else "%d edits" % arguments.edits,
                statistics.median(v[0] for v in values), statistics.median(v[1] for v in values),
                statistics.median(v[2] for v in values)))
        print("client peak memory (resident, the largest of the runs): %.0f MiB" % peak)
        print("load average after: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
