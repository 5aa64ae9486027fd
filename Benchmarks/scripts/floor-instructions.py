#!/usr/bin/env python3
"""Counts, with callgrind, the instructions per row of VariablySQLite's variants and of the C floor
doing the same job, and sorts them by who runs them: SQLite, the Swift runtime, libc (malloc, memcpy),
Foundation, the library's modules, the benchmark itself. Each variant runs once, alone (`--variant`,
whose run alone callgrind counts, on every thread); the commit's WAL writes are system calls, not
counted. Takes minutes: valgrind runs about 50x slower.

    swift build -c release --package-path Benchmarks --product VariablyBenchmarks
    python3 Benchmarks/scripts/floor-instructions.py [--records 20000] [--top 12] [PAIR ...]

PAIR is one of insert, upsert, fetch, query, sync (all by default). See docs/benchmarks.md (The C floor).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

PAIRS = {
    "insert": ("SQLite insert", "C floor, checkpoints on commit", "VariablySQLite batch insert, checkpoints on commit"),
    "upsert": ("SQLite upsert", "C floor, checkpoints on commit", "VariablySQLite batch upsert, checkpoints on commit"),
    "fetch": ("SQLite fetch all", "C floor, columns by index into C structs, text copied into an arena", "VariablySQLite fetchAll"),
    "query": ("SQLite query", "C floor, hand-written SQL, rows into C structs", "VariablySQLite #Predicate"),
    "sync": ("empty file", "C floor, checkpoints on commit", "the same sync, checkpoints on commit (SQLite's default)"),
}

CATEGORIES = [
    ("SQLite", lambda symbol, obj: "libsqlite3" in obj),
    ("C floor", lambda symbol, obj: symbol.startswith("sqlite_floor") or symbol in ("write_rows", "prepare_and_write", "step_rows", "copy_text")),
    ("libc (malloc, free, memcpy)", lambda symbol, obj: "libc.so" in obj or "ld-linux" in obj),
    ("Swift runtime (retain/release, metadata, generics)", lambda symbol, obj: "libswiftCore" in obj or "libswift_" in obj),
    ("Foundation", lambda symbol, obj: "Foundation" in obj),
    ("dispatch", lambda symbol, obj: "libdispatch" in obj),
    ("VariablySQLite", lambda symbol, obj: "14VariablySQLite" in symbol),
    ("VariablySync", lambda symbol, obj: "12VariablySync" in symbol and "Testing" not in symbol),
    ("VariablyCodable", lambda symbol, obj: "15VariablyCodable" in symbol),
    ("VariablySyncTesting", lambda symbol, obj: "19VariablySyncTesting" in symbol),
    ("benchmark harness", lambda symbol, obj: "18VariablyBenchmarks" in symbol),
]
OTHER = "other (kernel entry, unattributed)"
LINE = re.compile(r"^\s*([\d,]+)\s+\([\s\d.]+%\)\s+(\S.*?)(?:\s+\[(.*)\])?$")


def category(symbol, obj):
    for name, test in CATEGORIES:
        if test(symbol, obj):
            return name
    return OTHER


def functions(path, inclusive):
    """(cost, symbol, object) for every function of a callgrind file."""
    flags = ["--inclusive=yes"] if inclusive else []
    output = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--auto=no", *flags, path], capture_output=True, text=True, check=True
    ).stdout
    for line in output.splitlines():
        match = LINE.match(line)
        if not match or "PROGRAM TOTALS" in line:
            continue
        cost = int(match.group(1).replace(",", ""))
        location = match.group(2)
        symbol = location.split(":", 1)[1] if ":" in location else location
        yield cost, symbol, match.group(3) or ""


def run(binary, records, group, variant, directory):
    out = os.path.join(directory, re.sub(r"\W+", "-", f"{records}-{group}-{variant}")[:90] + ".out")
    if os.path.exists(out + ".1"):
        return out + ".1"
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}", binary,
         "--filter", group, "--records", str(records), "--variant", variant],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out + ".1"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--binary", default=None)
    parser.add_argument("--directory", default=None, help="keeps callgrind's files there, and reuses them")
    parser.add_argument("pairs", nargs="*", default=list(PAIRS))
    arguments = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    binary = arguments.binary or os.path.join(
        subprocess.run(["swift", "build", "-c", "release", "--package-path", os.path.dirname(here), "--show-bin-path"],
                       capture_output=True, text=True, check=True).stdout.strip(), "VariablyBenchmarks")
    directory = arguments.directory or tempfile.mkdtemp(prefix="floor-instructions-")
    os.makedirs(directory, exist_ok=True)
    for pair in arguments.pairs:
        group, floor, ours = PAIRS[pair]
        # A query run reads 100 rows per query, max(records / 100, 10) queries.
        rows = max(arguments.records // 100, 10) * 100 if pair == "query" else arguments.records
        columns = {}
        for name, variant in (("C floor", floor), ("ours", ours)):
            path = run(binary, arguments.records, group, variant, directory)
            totals = collections.Counter()
            for cost, symbol, obj in functions(path, inclusive=False):
                totals[category(symbol, obj)] += cost
            inclusive = collections.Counter()
            for cost, symbol, obj in functions(path, inclusive=True):
                if symbol in ("sqlite3_step", "sqlite3_reset", "sqlite3_exec", "sqlite3_close", "sqlite3_prepare_v3",
                              "sqlite3_prepare_v2", "sqlite3_wal_checkpoint_v2") or symbol.startswith(("sqlite3_bind_", "sqlite3_column_")):
                    key = "sqlite3_bind_*" if symbol.startswith("sqlite3_bind_") else "sqlite3_column_*" if symbol.startswith("sqlite3_column_") else symbol
                    inclusive[key] = max(inclusive[key], cost) if key == symbol else inclusive[key] + cost
            columns[name] = (totals, inclusive, path)
        print(f"\n## {pair}: {rows} rows, instructions per row (`{ours}` against `{floor}`)\n")
        print("| who runs them | C floor | ours | difference |")
        print("| --- | ---: | ---: | ---: |")
        names = [name for name, _ in CATEGORIES] + [OTHER]
        for name in names:
            a, b = columns["C floor"][0][name] / rows, columns["ours"][0][name] / rows
            if a or b:
                print(f"| {name} | {a:,.0f} | {b:,.0f} | {b - a:+,.0f} |")
        a, b = sum(columns["C floor"][0].values()) / rows, sum(columns["ours"][0].values()) / rows
        print(f"| **total** | **{a:,.0f}** | **{b:,.0f}** | **{b - a:+,.0f}** ({b / a:.2f}x) |")
        print("\n| SQLite entry point, inclusive | C floor | ours |")
        print("| --- | ---: | ---: |")
        for key in sorted(set(columns["C floor"][1]) | set(columns["ours"][1])):
            print(f"| `{key}` | {columns['C floor'][1][key] / rows:,.0f} | {columns['ours'][1][key] / rows:,.0f} |")
        print(f"\nOurs, the {arguments.top} costliest functions outside SQLite (self, per row):\n")
        own = [(cost, symbol, obj) for cost, symbol, obj in functions(columns["ours"][2], inclusive=False)
               if "libsqlite3" not in obj]
        for cost, symbol, obj in sorted(own, reverse=True)[: arguments.top]:
            demangled = subprocess.run(["swift", "demangle", "--simplified", "--compact", symbol], capture_output=True,
                                       text=True).stdout.strip() or symbol
            print(f"- {cost / rows:,.0f} {demangled[:150]} [{os.path.basename(obj)}]")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
