#!/usr/bin/python3
"""The shedding frequency of a bluff body from a stablefluids steps CSV.

Usage: strouhal.py STEPS.csv [--column obstacle0_cy] [--after T] [--diameter D] [--velocity U]
                   [--row ROW --results FILE]

Takes the column (by default the first obstacle's lift coefficient) from time T on (default:
the second half of the run), finds its upward crossings of its mean, and prints the period, the
Strouhal number St = D / (U period), the column's amplitude and the mean drag coefficient
(obstacle0_cx) over the same interval, and the largest values of both (the DFG 2D-2 benchmark's
c_D,max and c_L,max). Reference for a circular cylinder (Williamson 1988, the
fit St = -3.3265/Re + 0.1816 + 1.6e-4 Re, 50 < Re < 180): St(100) = 0.164.
With --row, records st, amplitude, cl_max, cd_mean and cd_max as that row of the validation
suite and checks them against its bounds (validation.py); the exit status is then 1 when one is
outside.
"""
import argparse
import csv
import sys

import numpy as np

import validation


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("steps")
    parser.add_argument("--column", default="obstacle0_cy")
    parser.add_argument("--after", type=float)
    parser.add_argument("--diameter", type=float, default=1.0)
    parser.add_argument("--velocity", type=float, default=1.0)
    validation.add_row_arguments(parser)
    args = parser.parse_args()
    with open(args.steps) as f:
        rows = list(csv.DictReader(f))
    t = np.array([float(r["time"]) for r in rows])
    y = np.array([float(r[args.column]) for r in rows])
    after = args.after if args.after is not None else 0.5 * t[-1]
    keep = t > after
    t, y = t[keep], y[keep]
    mean = y.mean()
    z = y - mean
    up = np.where((z[:-1] < 0.0) & (z[1:] >= 0.0))[0]
    if len(up) < 3:
        raise SystemExit(f"{args.column} crosses its mean fewer than 3 times after t = {after:g}: "
                         "no periodic shedding to measure (run longer?)")
    crossings = t[up] - z[up] * (t[up + 1] - t[up]) / (z[up + 1] - z[up])
    periods = np.diff(crossings)
    period = periods.mean()
    print(f"{args.column} after t = {after:g}: {len(periods)} periods of {period:.5f} "
          f"(spread {periods.std():.1e}), amplitude {(y.max() - y.min()) / 2:.4f}, "
          f"mean {mean:.4f}, max {y.max():.4f}")
    strouhal = args.diameter / (args.velocity * period)
    print(f"St = D / (U T) = {strouhal:.4f}")
    values = {"st": strouhal, "amplitude": (y.max() - y.min()) / 2, "cl_max": y.max()}
    if "obstacle0_cx" in rows[0]:
        cx = np.array([float(r["obstacle0_cx"]) for r in rows])[keep]
        print(f"mean obstacle0_cx = {cx.mean():.4f}, max {cx.max():.4f}")
        values.update(cd_mean=cx.mean(), cd_max=cx.max())
    return validation.finish(args, values)


if __name__ == "__main__":
    sys.exit(main())
