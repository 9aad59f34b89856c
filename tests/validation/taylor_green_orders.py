#!/usr/bin/python3
"""Records the Taylor-Green convergence study as rows of the validation suite.

Usage: study_taylor_green [options] | taylor_green_orders.py [--results FILE]

Reads the table that build/tests/study_taylor_green prints on standard input: lines
"<scheme> CFL <c>  32: <error>  64: <error> (<order>) ..." for space and time refined together,
and "<scheme> <n> cells, dt = end/steps:  2: <error>  4: <error> (<order>) ..." for time alone.
Each line becomes the row tg2d/<scheme>-cfl<c> (quantities e32, e64, ...: the max error on each
grid, and order: the observed order between the two finest) or tg2d/<scheme>-time (s2, s4, ...:
the error with that many steps, and order), which is recorded in the results file and checked
against its bounds (validation.py). Exit status 1 when a row is outside them or none was read.
"""
import argparse
import re
import sys

import validation


def parse(lines):
    """{row: {quantity: value}} of the study's table."""
    rows = {}
    for line in lines:
        space = re.match(r"(\S+)\s+CFL (\S+)\s+(.*)", line)
        time = re.match(r"(\S+)\s+(\d+) cells, dt = end/steps:(.*)", line)
        if space:
            row, prefix, rest = f"tg2d/{space.group(1)}-cfl{float(space.group(2)):g}", "e", \
                space.group(3)
        elif time:
            row, prefix, rest = f"tg2d/{time.group(1)}-time", "s", time.group(3)
        else:
            continue
        points = re.findall(r"(\d+): ([0-9.e+-]+)(?: \(([0-9.e+-]+)\))?", rest)
        values = {f"{prefix}{n}": float(e) for n, e, _ in points}
        if points and points[-1][2]:
            values["order"] = float(points[-1][2])
        rows[row] = values
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", default="validation_output/results.json")
    parser.add_argument("--wall-seconds", type=float, help="the study's wall time, for the record")
    parser.add_argument("--ranks", type=int, help="the study's rank count, for the record")
    parser.add_argument("--record-only", action="store_true", help="record without checking")
    args = parser.parse_args()
    rows = parse(sys.stdin)
    if not rows:
        print("taylor_green_orders.py: no rows of the study on standard input", file=sys.stderr)
        return 1
    for row, values in rows.items():
        validation.record(args.results, row, values, args.wall_seconds, args.ranks)
    if args.record_only:
        return 0
    failures = validation.check(validation.merged(validation.load_results(args.results)),
                                set(rows))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
