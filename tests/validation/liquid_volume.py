#!/usr/bin/python3
"""What the liquid jobs keep of their water, with each interface and rank count.

Runs each shipped liquid job (its grid, or the finer one a case names) with liquid.interface
vof and level_set, on each rank count, to its end time, and reads its steps CSV: the largest
|liquid_volume_change| over the whole run, the volume clipped to keep the fraction in [0, 1]
(vof: the sum of fraction_clipped_volume, relative to the starting volume), the steps and the
median wall time of a step. A vof row passes when the volume stays within 0.05 % and at most
1e-6 of it is clipped; the level_set rows are reported beside them. Writes the table to
OUTPUT/liquid_volume.md and the rows to OUTPUT/liquid_volume.json; the exit status is 1 when a
vof row fails or a run fails (a job the vof interface refuses is a failed row, with the
refusal's message).

Each run is the job file as shipped but for: liquid.interface; no marker particles with vof
(that interface has none); no in-situ Catalyst section; output.directory in OUTPUT; frames
every output_interval only (the figures come from the steps CSV).
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time

import yaml

# name: (job file, grid cells or None for the job's own)
CASES = {
    "dam_break_2d": ("dam_break_2d.yaml", None),
    "dam_break_3d": ("dam_break_3d.yaml", None),
    "drop_into_pool_3d": ("drop_into_pool_3d.yaml", None),
    "sloshing_2d": ("sloshing_2d.yaml", None),
    "paddle_3d": ("paddle_3d.yaml", None),
    "floating_boxes_3d": ("floating_boxes_3d.yaml", None),
    "breaking_wave_spray_3d": ("breaking_wave_spray_3d.yaml", None),
    # Long: run only when named.
    "dam_break_2d_fine": ("dam_break_2d.yaml", [384, 192]),
    "dam_break_3d_fine": ("dam_break_3d.yaml", [128, 48, 48]),
}
DEFAULT_CASES = list(CASES)[:7]
VOLUME_BOUND_PERCENT = 0.05
CLIPPED_BOUND = 1e-6


def job_for(case, interface, directory):
    """The case's job as a YAML text for `interface`, writing into `directory`."""
    file, cells = CASES[case]
    with open(os.path.join(ROOT, "jobs", file)) as f:
        job = yaml.safe_load(f)
    if cells:
        job["grid"]["cells"] = cells
    job["liquid"]["interface"] = interface
    if interface == "vof":
        job["liquid"].pop("particles", None)
    job.pop("catalyst", None)
    job["output"]["directory"] = directory
    job["output"]["interval"] = job["time"]["end"]
    job["output"]["overwrite"] = True
    return yaml.safe_dump(job, sort_keys=False)


def read_steps(directory, name):
    with open(os.path.join(directory, name + "_steps.csv")) as f:
        return list(csv.DictReader(f))


def measure(rows):
    change = [float(r["liquid_volume_change"]) for r in rows]
    volume = [float(r["liquid_volume"]) for r in rows]
    start = volume[0] / (1.0 + change[0] / 100.0)
    clipped = sum(float(r.get("fraction_clipped_volume") or 0.0) for r in rows)
    return {
        "steps": len(rows),
        "end_time": float(rows[-1]["time"]),
        "max_volume_change_percent": max(abs(c) for c in change),
        "final_volume_change_percent": change[-1],
        "clipped_fraction": clipped / start,
        "median_step_seconds": statistics.median(float(r["wall_seconds"]) for r in rows),
    }


def run(case, interface, ranks, args):
    label = f"{case}/{interface}/np{ranks}"
    directory = os.path.join(args.output, f"{case}_{interface}_np{ranks}")
    os.makedirs(directory, exist_ok=True)
    job_path = directory + ".yaml"
    with open(job_path, "w") as f:
        f.write(job_for(case, interface, directory))
    command = [args.mpiexec, "-n", str(ranks)] + args.mpiexec_flags + [args.executable, job_path]
    print(f"== {label}: {' '.join(command)}", flush=True)
    start = time.time()
    with open(directory + ".log", "w") as log:
        code = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT)
    row = {"case": case, "interface": interface, "ranks": ranks,
           "wall_seconds": round(time.time() - start, 1)}
    if code != 0:
        with open(directory + ".log") as log:
            why = [line.strip() for line in log if "stablefluids" in line and "error" in line]
        # The job's refusal without the temporary file's path: "liquid.spray: the vof ...".
        if why:
            why = re.sub(r"^stablefluids: error: ", "", why[-1])
            why = re.sub(r"^.*?\.yaml:\d+: ", "refused: ", why)
            row["failed"] = re.sub(r" \([a-z_]+\(\) at .*\)$", "", why)
        else:
            row["failed"] = f"exit status {code}; see {directory}.log"
        return row
    name = yaml.safe_load(open(job_path))["name"]
    row.update(measure(read_steps(directory, name)))
    return row


def verdict(row):
    if "failed" in row:
        return "FAIL"
    if row["interface"] != "vof":
        return "REPORTED"
    ok = (row["max_volume_change_percent"] <= VOLUME_BOUND_PERCENT and
          row["clipped_fraction"] <= CLIPPED_BOUND)
    return "PASS" if ok else "FAIL"


def table(rows):
    lines = ["| job | interface | ranks | steps | max \\|volume change\\| | clipped | "
             "median step | status |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "failed" in r:
            lines.append(f"| {r['case']} | {r['interface']} | {r['ranks']} | | | | | "
                         f"FAIL: {r['failed']} |")
            continue
        clipped = f"{r['clipped_fraction']:.1e}" if r["interface"] == "vof" else ""
        lines.append(f"| {r['case']} | {r['interface']} | {r['ranks']} | {r['steps']} | "
                     f"{r['max_volume_change_percent']:.2g} % | {clipped} | "
                     f"{r['median_step_seconds']:.3f} s | {verdict(r)} |")
    return "\n".join(lines)


def main():
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cases", nargs="*", help="default: " + " ".join(DEFAULT_CASES))
    parser.add_argument("--source", required=True)
    parser.add_argument("--executable", required=True)
    parser.add_argument("--ranks", default="1,4")
    parser.add_argument("--interfaces", default="vof,level_set")
    parser.add_argument("--output", default="liquid_volume_output")
    parser.add_argument("--mpiexec", default="mpiexec")
    args = parser.parse_args()
    ROOT = args.source
    cases = args.cases or DEFAULT_CASES
    for c in cases:
        if c not in CASES:
            parser.error(f"unknown case '{c}' (known: {' '.join(CASES)})")
    version = subprocess.run([args.mpiexec, "--version"], capture_output=True, text=True).stdout
    # Open MPI refuses more ranks than cores without it.
    open_mpi = "Open MPI" in version or "OpenRTE" in version
    args.mpiexec_flags = ["--oversubscribe"] if open_mpi else []
    args.output = os.path.abspath(args.output)
    os.makedirs(args.output, exist_ok=True)
    # The rows of earlier invocations into the same directory stay, unless run again: the table
    # can be built a case at a time.
    results = os.path.join(args.output, "liquid_volume.json")
    rows = json.load(open(results)) if os.path.exists(results) else []
    measured = []
    for case in cases:
        for interface in args.interfaces.split(","):
            for ranks in (int(n) for n in args.ranks.split(",")):
                row = run(case, interface, ranks, args)
                measured.append(row)
                print(table([row]).splitlines()[-1], flush=True)
                key = (case, interface, ranks)
                rows = [r for r in rows if (r["case"], r["interface"], r["ranks"]) != key]
                rows.append(row)
                rows.sort(key=lambda r: (list(CASES).index(r["case"]), r["interface"] != "vof",
                                         r["ranks"]))
                with open(results, "w") as f:
                    json.dump(rows, f, indent=1)
    text = table(rows)
    with open(os.path.join(args.output, "liquid_volume.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    failed = [r for r in measured if verdict(r) == "FAIL"]
    print(f"{len(failed)} of the {len(measured)} rows run now failed (vof: |change| <= "
          f"{VOLUME_BOUND_PERCENT} %, "
          f"clipped <= {CLIPPED_BOUND:g} of the volume)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
