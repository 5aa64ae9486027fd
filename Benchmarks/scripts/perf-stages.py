#!/usr/bin/env python3
"""Sorts the samples of a `perf record -g` profile of a sync into stages, by what their call stack
holds: observation fetches, the checkpoint's fsync, WAL and database writes, page reads, the simulated server, JSON
decoding, the upsert's own CPU, the rest of SQLite. The system SQLite has no frame pointers, so a
sample inside it without a system call on its stack shows as "SQLite, other" unless the profile was
recorded with `--call-graph dwarf`, which unwinds through it.

    python3 Benchmarks/scripts/perf-stages.py small.data large.data   # one column per profile

See docs/benchmarks.md (Sync scaling) for the perf command that profiles one section of a run.
"""
import collections
import subprocess
import sys

STAGES = [
    ("observation fetches (readers)", ("QueryObservation",)),
    ("fsync (checkpoint)", ("fdatasync", "fsync")),
    ("pwrite (WAL, checkpoint copy)", ("pwrite",)),
    ("pread (pages not in SQLite's cache)", ("pread",)),
    ("simulated server", ("SimulatedServer",)),
    ("JSON decoding", ("KeySetJSONDecoder", "JSONDecodingSession")),
    ("upsert, CPU", ("upsert",)),
    ("page applier, other", ("PageApplier",)),
    ("SQLite, other", ("sqlite3",)),
]


def stacks(path):
    output = subprocess.run(["perf", "script", "-i", path, "-F", "ip,sym"], capture_output=True, text=True).stdout
    stack = []
    for line in output.splitlines():
        if line.strip():
            stack.append(line)
        elif stack:
            yield "\n".join(stack)
            stack = []
    if stack:
        yield "\n".join(stack)


def stage(stack):
    for name, markers in STAGES:
        if any(marker in stack for marker in markers):
            return name
    return "other (runtime, malloc, unattributed)"


def main():
    counts = [collections.Counter(stage(stack) for stack in stacks(path)) for path in sys.argv[1:]]
    names = [name for name, _ in STAGES] + ["other (runtime, malloc, unattributed)"]
    print("| stage (samples) | " + " | ".join(sys.argv[1:]) + " |")
    print("| --- |" + " ---: |" * len(counts))
    for name in names:
        print(f"| {name} | " + " | ".join(str(count[name]) for count in counts) + " |")
    print("| total | " + " | ".join(str(sum(count.values())) for count in counts) + " |")


if __name__ == "__main__":
    main()
