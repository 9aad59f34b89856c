#!/usr/bin/python3
"""The kinetic-energy dissipation rate of a 3D Taylor-Green run from its steps CSV.

Usage: taylor_green_dissipation.py STEPS.csv [STEPS.csv ...] [--labels L ...] [--plot FILE.png]
                                   [--row ROW --results FILE]

The box [0, 2 pi]^3 with V0 = 1: E(t) is kinetic_energy over the box's volume, and the
dissipation rate eps = -dE/dt (centred differences of the CSV's rows) is what the reference
reports; nu <|grad u|^2> (the CSV's dissipation column over the volume) is its resolved,
physical part, the rest being the scheme's own dissipation. Prints the peak of each, with its
time, against the spectral DNS (van Rees et al. 2011): eps_max about 0.0127 near t = 9. With
several runs (e.g. grids), each is printed and drawn under its label. With --row (one run),
records eps_peak, t_peak, resolved_peak and t_resolved_peak as that row of the validation suite
and checks them against its bounds (validation.py); the exit status is then 1 when one is
outside.
"""
import argparse
import csv
import math
import sys

import numpy as np

import validation

REFERENCE_PEAK, REFERENCE_TIME = 0.0127, 9.0


def read(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    volume = (2.0 * math.pi) ** 3
    t = np.array([float(r["time"]) for r in rows])
    energy = np.array([float(r["kinetic_energy"]) for r in rows]) / volume
    resolved = np.array([float(r["dissipation"]) for r in rows]) / volume
    return t, energy, -np.gradient(energy, t), resolved


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("steps", nargs="+")
    parser.add_argument("--labels", nargs="+")
    parser.add_argument("--plot")
    validation.add_row_arguments(parser)
    args = parser.parse_args()
    labels = args.labels or args.steps
    if len(labels) != len(args.steps):
        raise SystemExit("give one label per steps file")
    if args.row and len(args.steps) != 1:
        raise SystemExit("--row records one run: give one steps file")
    values = {}
    runs = []
    for path, label in zip(args.steps, labels):
        t, energy, eps, resolved = read(path)
        runs.append((label, t, eps, resolved))
        print(label)
        for name, key, series in (("-dE/dt", "", eps), ("nu <|grad u|^2>", "resolved_", resolved)):
            peak = int(np.argmax(series))
            values.update({f"{key or 'eps_'}peak": series[peak], f"t_{key}peak": t[peak]})
            print(f"  {name:16s} peak {series[peak]:.5f} at t = {t[peak]:.2f} "
                  f"(reference {REFERENCE_PEAK} near t = {REFERENCE_TIME:g}: "
                  f"{100 * (series[peak] - REFERENCE_PEAK) / REFERENCE_PEAK:+.1f} %, "
                  f"{t[peak] - REFERENCE_TIME:+.2f})")
        print(f"  E(t = {t[-1]:g}) = {energy[-1]:.5f}")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        for label, t, eps, resolved in runs:
            line, = ax.plot(t, eps, label=f"{label}: -dE/dt")
            ax.plot(t, resolved, "--", color=line.get_color(), label=f"{label}: nu <|grad u|^2>")
        ax.plot([REFERENCE_TIME], [REFERENCE_PEAK], "ko", label="spectral DNS peak")
        ax.set_xlabel("t")
        ax.set_ylabel("dissipation rate")
        ax.set_title("3D Taylor-Green vortex, Re = 1600")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
    return validation.finish(args, values)


if __name__ == "__main__":
    sys.exit(main())
