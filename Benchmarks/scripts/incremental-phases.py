#!/usr/bin/env python3
"""Where an incremental sync's time goes, statement by statement, on a table of 100,000 rows and one
of 1,000,000, through the system's SQLite (Python's sqlite3 module links the same libsqlite3).

Mirrors what a pull of 1,000 changed records runs: the page's existence query, then per record the
upsert of the columns no index covers and the conditional UPDATE of the indexed column, the commit,
and the checkpoint. Rows like the benchmark user's; WAL, synchronous=NORMAL; 12 rounds, the two sizes
interleaved; prints the medians.

    python3 Benchmarks/scripts/incremental-phases.py              # checkpoint timed on its own
    SYNC=OFF python3 Benchmarks/scripts/incremental-phases.py     # the same without fsync
    python3 Benchmarks/scripts/incremental-phases.py on-commit    # checkpoint inside the commit (SQLite's default)

Writes two scratch files (about 20 MB and 200 MB) into $TMPDIR and removes them.
"""
import json
import os
import random
import sqlite3
import sys
import tempfile
import time

SIZES = (100_000, 1_000_000)
CHANGES = 1_000


def make(i):
    return (i + 1, f"user{i}", f"user{i}@example.com", 18 + i % 60, int(i % 3 != 0), (i % 1000) / 8,
            1_700_000_000 + i, json.dumps([f"tag{i % 7}", f"group{i % 3}"]))


def set_up(n, path):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=" + os.environ.get("SYNC", "NORMAL"))
    db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, user_name TEXT NOT NULL, email TEXT NOT NULL, "
               "age INTEGER, is_active INTEGER, score REAL, created_at REAL, tags TEXT)")
    db.execute("CREATE INDEX users_name ON users(user_name)")
    for start in range(0, n, 1000):
        db.execute("BEGIN")
        db.executemany("INSERT INTO users VALUES (?,?,?,?,?,?,?,?)", [make(i) for i in range(start, min(n, start + 1000))])
        db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db


def incremental(db, n, rng, phases, on_commit):
    rows = [make(rng.randrange(n)) for _ in range(CHANGES)]
    rows = [r[:5] + (r[5] + 1,) + r[6:] for r in rows]
    upsert = ("INSERT INTO users VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET email=excluded.email, "
              "age=excluded.age, is_active=excluded.is_active, score=excluded.score, "
              "created_at=excluded.created_at, tags=excluded.tags")
    update = "UPDATE users SET user_name=?1 WHERE id=?2 AND (user_name IS NOT ?1)"
    db.execute("PRAGMA wal_autocheckpoint=" + ("1000" if on_commit else "0"))
    t0 = time.perf_counter()
    db.execute("BEGIN IMMEDIATE")
    list(db.execute("SELECT id FROM users WHERE id IN (%s)" % ",".join("?" * CHANGES), [r[0] for r in rows]))
    t1 = time.perf_counter()
    upserts = updates = 0.0
    for row in rows:
        a = time.perf_counter()
        db.execute(upsert, row)
        b = time.perf_counter()
        db.execute(update, (row[1], row[0]))
        updates += time.perf_counter() - b
        upserts += b - a
    t2 = time.perf_counter()
    db.execute("COMMIT")
    t3 = time.perf_counter()
    frames = 0
    if not on_commit:
        frames = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
    t4 = time.perf_counter()
    for name, value in (("existence query", t1 - t0), ("upserts", upserts), ("conditional updates", updates),
                        ("commit", t3 - t2), ("checkpoint", t4 - t3), ("total", t4 - t0)):
        phases.setdefault(name, []).append(value * 1e3)
    if not on_commit:
        phases.setdefault("WAL frames checkpointed", []).append(frames)


def main():
    on_commit = len(sys.argv) > 1 and sys.argv[1] == "on-commit"
    with tempfile.TemporaryDirectory() as directory:
        databases = {n: set_up(n, os.path.join(directory, f"users-{n}.sqlite")) for n in SIZES}
        rng = random.Random(5)
        results = {n: {} for n in SIZES}
        for round in range(12):
            for n in (SIZES if round % 2 == 0 else SIZES[::-1]):
                incremental(databases[n], n, rng, results[n], on_commit)
        for db in databases.values():
            db.close()
    median = lambda values: sorted(values)[len(values) // 2]
    print(f"SQLite {sqlite3.sqlite_version}, synchronous={os.environ.get('SYNC', 'NORMAL')}, "
          f"checkpoint {'on commit' if on_commit else 'timed on its own'}")
    print("| phase (ms, median of 12) | 100k | 1M | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for name in results[SIZES[0]]:
        small, large = median(results[SIZES[0]][name]), median(results[SIZES[1]][name])
        print(f"| {name} | {small:.2f} | {large:.2f} | {large / small if small else 0:.2f} |")


if __name__ == "__main__":
    main()
