#!/usr/bin/python3
"""Compares a differentially heated cavity run with de Vahl Davis (1983).

Usage: heated_cavity.py OUTPUT_DIR NAME --rayleigh RA [--prandtl 0.71] [--row ROW --results FILE]

The run is the unit square with the wall x = 0 held at +1/2 and x = 1 at -1/2 (dT = 1), the
horizontal walls insulated, buoyancy beta = 1 along +y, and in free-fall units
nu = sqrt(Pr / Ra), kappa = 1 / sqrt(Ra Pr) (jobs/validation/heated_cavity_ra1e5_2d.yaml).
Reads the last row of OUTPUT_DIR/NAME_steps.csv for the hot wall's Nusselt number and the last
frame for u_max on the vertical centre line and v_max on the horizontal one (in kappa / L, as the
benchmark states them, with their positions), and prints each beside the reference and the
relative deviation. With --row, records them (quantities nu, u_max, v_max) as that row of the
validation suite and checks them against its bounds (validation.py); the exit status is then 1
when one is outside.

Reference: G. de Vahl Davis, "Natural convection of air in a square cavity: a bench mark
numerical solution", Int. J. Numer. Methods Fluids 3 (1983) 249-264, Table IV (Pr = 0.71).
"""
import argparse
import csv
import glob
import math
import sys

import h5py
import numpy as np

import validation

# Ra: (u_max, its y, v_max, its x, mean Nu)
REFERENCE = {
    1e3: (3.649, 0.813, 3.697, 0.178, 1.118),
    1e4: (16.178, 0.823, 19.617, 0.119, 2.243),
    1e5: (34.73, 0.855, 68.59, 0.066, 4.519),
    1e6: (64.63, 0.850, 219.36, 0.0379, 8.800),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory")
    parser.add_argument("name")
    parser.add_argument("--rayleigh", type=float, required=True, choices=sorted(REFERENCE))
    parser.add_argument("--prandtl", type=float, default=0.71)
    validation.add_row_arguments(parser)
    args = parser.parse_args()
    kappa = 1.0 / math.sqrt(args.rayleigh * args.prandtl)

    with open(f"{args.directory}/{args.name}_steps.csv") as f:
        rows = list(csv.DictReader(f))
    last = rows[-1]
    nusselt = float(last["temperature_nusselt_x_lower"])

    frame = sorted(glob.glob(f"{args.directory}/{args.name}_[0-9]*.h5"))[-1]
    with h5py.File(frame, "r") as f:
        u = f["face_velocity/x"][...]  # [j, i], faces i = 0..n
        v = f["face_velocity/y"][...]  # [j, i], faces j = 0..n
    n = u.shape[0]
    centres = (np.arange(n) + 0.5) / n
    u_line = u[:, n // 2] / kappa   # x = 0.5
    v_line = v[n // 2, :] / kappa   # y = 0.5
    j, i = int(np.argmax(u_line)), int(np.argmax(v_line))

    ref = REFERENCE[args.rayleigh]
    print(f"{args.name}: {n} x {n}, t = {float(last['time']):g}, Ra = {args.rayleigh:g}, "
          f"frame {frame}")
    for label, value, reference in (("Nu (hot wall)", nusselt, ref[4]),
                                    ("u_max on x = 0.5", u_line[j], ref[0]),
                                    ("v_max on y = 0.5", v_line[i], ref[2])):
        print(f"  {label:18s} {value:9.4f}  reference {reference:8.3f}  "
              f"deviation {100.0 * (value - reference) / reference:+.2f} %")
    print(f"  u_max at y = {centres[j]:.3f} (reference {ref[1]}), v_max at x = {centres[i]:.3f} "
          f"(reference {ref[3]})")
    return validation.finish(args, {"nu": nusselt, "u_max": u_line[j], "v_max": v_line[i]})


if __name__ == "__main__":
    sys.exit(main())
