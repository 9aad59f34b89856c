#!/usr/bin/python3
"""Plots the Taylor-Green convergence study (error against cells per side, log-log).

Usage: study_taylor_green [options] | plot_taylor_green.py OUTPUT.png [--cfl 1]

Reads the table study_taylor_green prints on standard input (lines "<scheme> CFL <c>  <n>:
<error> (<order>) ...") and draws, for the given CFL number, one line per scheme with reference
slopes of first and second order.
"""
import argparse
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output")
    parser.add_argument("--cfl", default="1")
    args = parser.parse_args()
    series = {}
    for line in sys.stdin:
        match = re.match(r"(\S+)\s+CFL (\S+)\s+(.*)", line)
        if not match or match.group(2) != args.cfl:
            continue
        points = re.findall(r"(\d+): ([0-9.e+-]+)", match.group(3))
        series[match.group(1)] = [(int(n), float(e)) for n, e in points]
    if not series:
        sys.exit(f"no rows for CFL {args.cfl} on standard input")
    fig, ax = plt.subplots(figsize=(5.5, 4.2), dpi=110)
    for name, points in series.items():
        n, e = zip(*points)
        ax.loglog(n, e, "o-", label=name.replace("-", ", "))
    n0, e0 = min(min(p[0] for p in s) for s in series.values()), 0.5 * max(
        max(p[1] for p in s) for s in series.values())
    n1 = max(max(p[0] for p in s) for s in series.values())
    ax.loglog([n0, n1], [e0, e0 * n0 / n1], "k:", lw=1, label="order 1")
    ax.loglog([n0, n1], [e0 / 4, e0 / 4 * (n0 / n1) ** 2], "k--", lw=1, label="order 2")
    ax.set_xlabel("cells per side (dt proportional to h)")
    ax.set_ylabel("max |u - exact| at t = 1")
    ax.set_title(f"Taylor-Green 2D, CFL {args.cfl}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output)


if __name__ == "__main__":
    main()
