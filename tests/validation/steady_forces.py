#!/usr/bin/python3
"""The force coefficients of a steady run past an obstacle, from its steps CSV.

Usage: steady_forces.py STEPS.csv [--row ROW --results FILE]

Reads the last row of a stablefluids steps CSV (a run stopped by time.steady, such as the DFG
benchmark 2D-1 of jobs/validation/dfg_2d1_cylinder.yaml) and prints the first obstacle's force
coefficients obstacle0_cx (drag, c_D) and obstacle0_cy (lift, c_L) with the time they were
reached, beside the reference of Schafer & Turek (1996), Table 4: c_D 5.57-5.59, c_L
0.0104-0.0110. With --row, records them (quantities cd, cl) as that row of the validation suite
and checks them against its bounds (validation.py); the exit status is then 1 when one is outside.
"""
import argparse
import csv
import sys

import validation


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("steps")
    validation.add_row_arguments(parser)
    args = parser.parse_args()
    with open(args.steps) as f:
        last = list(csv.DictReader(f))[-1]
    cd, cl = float(last["obstacle0_cx"]), float(last["obstacle0_cy"])
    print(f"t = {float(last['time']):g}: c_D = {cd:.4f} (reference 5.57-5.59, "
          f"{100 * (cd - 5.58) / 5.58:+.2f} % from 5.58), c_L = {cl:.4f} (reference "
          f"0.0104-0.0110)")
    return validation.finish(args, {"cd": cd, "cl": cl})


if __name__ == "__main__":
    sys.exit(main())
