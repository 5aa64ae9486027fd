#!/usr/bin/env python3
"""Runs the release benchmarks several times, one process after another, and prints each row's median
ratio across the runs with their range: the method docs/benchmarks.md states its figures by.

    python3 Benchmarks/scripts/median-of-runs.py --runs 5 -- --filter SQLite --skip-variants GRDB,naive
    python3 Benchmarks/scripts/median-of-runs.py --runs 5 --binary /tmp/vb -- --filter "empty file"

Everything after `--` goes to each run of VariablyBenchmarks (whose own default is the median of 5
interleaved rounds after a warm-up). Without `--binary`, it builds Benchmarks/ in release mode first.
Each run's output is kept in --log (default: a file in $TMPDIR) for the tables this script does not
summarize (the scaling groups, memory). Run it on an idle machine: the figures are ratios measured in
the same process, but a build or test run beside them spreads them.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)


def binary_path():
    subprocess.run(["swift", "build", "-c", "release", "--package-path", PACKAGE, "--product",
                    "VariablyBenchmarks"], check=True, stdout=sys.stderr)
    folder = subprocess.run(["swift", "build", "-c", "release", "--package-path", PACKAGE, "--show-bin-path"],
                            check=True, capture_output=True, text=True).stdout.strip()
    return os.path.join(folder, "VariablyBenchmarks")


CELLS = re.compile(r"^\|(.*)\|$")


def rows(output):
    """(group, row, ratio, target) of each table row with a ratio. A table of variants (`| group |
    variant | records/s | ratio | target | met |`) names its rows by group and variant; a table of two
    sizes (`| Sync scaling | 100k | 1M | ratio | target | met |`) by its header's first cell and the row's."""
    header = None
    for line in output.splitlines():
        match = CELLS.match(line.strip())
        if not match:
            header = None
            continue
        cells = [cell.strip() for cell in match.group(1).split("|")]
        if len(cells) != 6 or cells[0].startswith("---"):
            continue
        if cells[3] == "ratio":
            header = cells[0]
            continue
        try:
            ratio = float(cells[3])
        except ValueError:
            continue
        if header == "group":
            yield cells[0], cells[1], ratio, cells[4]
        elif header is not None:
            yield header, cells[0], ratio, cells[4]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--binary")
    parser.add_argument("--log", default=os.path.join(tempfile.gettempdir(), "median-of-runs.log"))
    parser.add_argument("arguments", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    arguments = options.arguments[1:] if options.arguments[:1] == ["--"] else options.arguments
    binary = options.binary or binary_path()
    ratios = {}
    targets = {}
    order = []
    with open(options.log, "w") as log:
        for run in range(options.runs):
            print(f"run {run + 1} of {options.runs}: {' '.join(arguments)}", file=sys.stderr)
            output = subprocess.run([binary] + arguments, check=True, capture_output=True, text=True).stdout
            log.write(f"=== run {run + 1}\n{output}\n")
            log.flush()
            for group, row, ratio, target in rows(output):
                key = (group, row)
                if key not in ratios:
                    ratios[key] = []
                    order.append(key)
                ratios[key].append(ratio)
                targets[key] = target
    print(f"| group | variant | median ratio of {options.runs} runs | range | target | met |")
    print("| --- | --- | ---: | --- | ---: | --- |")
    for key in order:
        values = ratios[key]
        median = statistics.median(values)
        target = targets[key]
        met = ""
        if target.startswith(">="):
            met = "yes" if median >= float(target[2:]) else "no"
        elif target.startswith("<="):
            met = "yes" if median <= float(target[2:]) else "no"
        print(f"| {key[0]} | {key[1]} | {median:.2f} | {min(values):.2f}-{max(values):.2f} | {target} | {met} |")
    print(f"\n(each run's output: {options.log})", file=sys.stderr)


if __name__ == "__main__":
    main()
