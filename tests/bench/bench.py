#!/usr/bin/env python3
"""The worker behind tests/bench/run: runs the benchmarks, writes the table docs/performance.md
quotes (the "readme" table: every speed and memory figure the documentation gives).

Every speed and memory figure the documentation gives is a row of the table this writes
(bench.md, with bench.csv and bench.json beside it): a median over repeated steps or runs, with
its noise, the machine it ran on and the command that made it. Subsets (all of them when none is named):

  demo        jobs/plume_3d.yaml as jobs/run runs it, with Catalyst: wall time, solver time and
              s/step, the stage split, images, memory
  plume       the plume without Catalyst at 64x128x64 and 128x256x128: s/step, stages, memory
  liquid      dam_break_3d at 128x48x48 against smoke on the same tank and grid
  advection   build/tests/bench_advection
  projection  build/tests/bench_projection (the default multigrid against PFMG)
  fft         build/tests/bench_fft_projection at 1 and 2 ranks, and turbulence_fft_3d's whole
              step with both solvers fft against both krylov
  features    the bytes per cell of each feature the memory check adds up (the table in
              src/job/memory_estimate.hpp), measured at two grid sizes
  memory      every job in jobs/ and jobs/validation/ for a few steps, and six of them on larger
              grids: the memory check's estimate against the measured peak; fails when one is
              more than 25 % off
  readme      the subsets whose rows docs/performance.md's table quotes: all but features

Wall time of the full mode on 2 cores (3 runs of each job): about 40 minutes with nothing else
running, two or three times that on cores shared with other work. By subset, estimated from
earlier step times, except where measured: demo 4 min, plume 4, liquid 2-3 (measured:
7.3 at load average 9), advection 1 (measured: 1.6 at load 7), projection 2, fft 5, features 10
(106 short runs), memory 10 (40 runs, 18 of them with Catalyst). `readme --runs 2` takes about
25 minutes on quiet cores; the benchmark programs repeat as often with it, and the jobs' figures
still come with their spread (the steps' IQR, the min-max of two runs).

--quick runs every subset on tiny grids for a few steps (about 2 minutes on 2 busy cores), to
check that the command works, not to measure. --update-readme writes docs/performance.md's table
from a run that measured every figure it quotes. The exit status is 0 when every run succeeded and
every estimate is within its bound (and the page, if asked, was written), 1 otherwise, 2 for a
command line it does not understand.
"""

import argparse
import csv
import datetime
import glob
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

SUBSETS = ["demo", "plume", "liquid", "advection", "projection", "fft", "features", "memory"]
# The subsets whose rows docs/performance.md's table quotes (README_ROWS); `readme` names them all.
README_SUBSETS = ["demo", "plume", "liquid", "advection", "projection", "fft", "memory"]
RANKS = 2
# The memory check's bound: an estimate more than 25 % off the measured peak fails. It is the
# margin a user can plan with; an estimate further off could refuse a job that fits, or accept one
# that drives the node into swap.
MEMORY_BOUND = 0.25


# ---------------------------------------------------------------------------------------------
# Statistics and the table.

def median_and_noise(values, kind):
    """(median, low, high) of `values`; low/high are the min and max ("min-max") or the first
    and third quartiles ("IQR"), which need at least four values to mean anything."""
    values = sorted(values)
    med = statistics.median(values)
    if kind == "IQR" and len(values) >= 4:
        q = statistics.quantiles(values, n=4, method="inclusive")
        return med, q[0], q[2]
    return med, values[0], values[-1]


class Table:
    def __init__(self):
        self.rows = []
        self.groups = {}  # group -> (title, commands)
        self.failures = []

    def group(self, key, title):
        self.groups.setdefault(key, [title, []])

    def command(self, key, text):
        if text not in self.groups[key][1]:
            self.groups[key][1].append(text)

    def add(self, group, key, figure, values, unit, noise="min-max", note=""):
        """A row from repeated measurements (a list) or a single derived value (a number)."""
        if isinstance(values, (int, float)):
            values = [float(values)]
        values = [float(v) for v in values]
        if values:
            med, low, high = median_and_noise(values, noise)
        else:
            med = low = high = float("nan")
        self.rows.append({"id": f"{group}.{key}", "group": group, "figure": figure,
                          "median": med, "low": low, "high": high,
                          "noise": noise if len(values) > 1 else "single", "n": len(values),
                          "unit": unit, "note": note})

    def add_spread(self, group, key, figure, median, low, high, n, unit, note=""):
        """A row from a benchmark program that reports a median of n values and their min-max."""
        self.rows.append({"id": f"{group}.{key}", "group": group, "figure": figure,
                          "median": float(median), "low": float(low), "high": float(high),
                          "noise": "min-max", "n": n, "unit": unit, "note": note})

    def fail(self, what):
        self.failures.append(what)
        print(f"bench: FAILED: {what}", flush=True)


def cell(text):
    """`text` as one cell of a markdown table, whose columns a bare '|' would split."""
    return str(text).replace("|", "\\|")


def fmt(value):
    if value != value:  # NaN
        return "-"
    if float(value).is_integer() and abs(value) < 1e5:
        return str(int(value))
    magnitude = abs(value)
    if magnitude >= 1000:
        return f"{value:,.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 0.01:
        return f"{value:.3g}"
    return f"{value:.2e}"


def write_outputs(table, machine, out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bench.json"), "w") as f:
        json.dump({"machine": machine, "groups": table.groups, "rows": table.rows,
                   "failures": table.failures}, f, indent=1)
    with open(os.path.join(out, "bench.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "figure", "median", "low", "high", "noise", "n", "unit", "note"])
        for r in table.rows:
            writer.writerow([r["id"], r["figure"], repr(r["median"]), repr(r["low"]),
                             repr(r["high"]), r["noise"], r["n"], r["unit"], r["note"]])
    lines = ["# stablefluids benchmarks", ""]
    lines.append(f"{machine['date']}, commit {machine['commit']}, {machine['mode']} mode; "
                 f"{machine['cpu']}, {machine['cores']} cores, "
                 f"{machine['memory_gb']:.1f} GB; load average {machine['load_start']} at the "
                 f"start, {machine['load_end']} at the end. Command: `{machine['command']}`.")
    lines.append("")
    lines.append("Each figure is the median of the n values it was taken from; the noise is "
                 "their min-max, or the interquartile range (IQR) where it says so.")
    for key, (title, commands) in table.groups.items():
        rows = [r for r in table.rows if r["group"] == key]
        if not rows:
            continue
        lines += ["", f"## {title}", ""]
        for c in commands:
            lines.append(f"    {c}")
        lines += ["", "| figure | median | noise | n | unit | note |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for r in rows:
            noise = "" if r["n"] <= 1 else f"{fmt(r['low'])}–{fmt(r['high'])}"
            if noise and r["noise"] == "IQR":
                noise += " (IQR)"
            lines.append(f"| {cell(r['figure'])} | {fmt(r['median'])} | {noise} | {r['n']} | "
                         f"{r['unit']} | {cell(r['note'])} |")
    if table.failures:
        lines += ["", "## Failures", ""] + [f"- {f}" for f in table.failures]
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "readme.md"), "w") as f:
        f.write(readme_snippet(table, machine))


# The rows docs/performance.md quotes, in its order: readme.md is that page's table "Speed and
# memory", ready to paste between its markers.
README_ROWS = [
    r"demo\.(wall|solver|s_per_step)", r"demo\.stage\.[^.]+",
    r"demo\.(images|frames|peak_mb_per_rank|catalyst_mb_per_rank)",
    r"plume\.[^.]+\.(s_per_step|data_bytes_per_cell|peak_mb_per_rank)",
    r"liquid\.[^.]+\.(s_per_step|data_bytes_per_cell)", r"liquid\.ratio",
    r"advection\.[^.]+\.[^.]+\.[^.]+\.ns_per_sample",
    r"projection\.[^.]+\.[^.]+\.[^.]+\.warm",
    r"fft\.[^.]+\.np\d\.[^.]+\.project", r"fft\.[^.]+\.np\d\.ratio",
    r"fft\.turbulence\.[^.]+\.(s_per_step|data_bytes_per_cell)",
    r"fft\.turbulence\.(memory_)?ratio",
    r"memory\.(within|largest_error)",
]


def readme_snippet(table, machine):
    lines = [f"Measured by `{machine['command']}` on {machine['date']} (commit "
             f"{machine['commit']}): {machine['cpu']}, {machine['cores']} cores, "
             f"{machine['memory_gb']:.1f} GB, load average {machine['load_start']} at the start "
             f"and {machine['load_end']} at the end. Medians, with the min–max of the values "
             "(IQR: interquartile range of the steps); `bench_output/bench.md` has every row.",
             "", "| figure | median | noise | unit |", "| --- | --- | --- | --- |"]
    for pattern in README_ROWS:
        for r in table.rows:
            if re.fullmatch(pattern, r["id"]):
                noise = "" if r["n"] <= 1 else f"{fmt(r['low'])}–{fmt(r['high'])}"
                if noise and r["noise"] == "IQR":
                    noise += " (IQR)"
                lines.append(f"| {TITLES.get(r['group'], r['group'])}: {cell(r['figure'])} | "
                             f"{fmt(r['median'])} | {noise} | {r['unit']} |")
    return "\n".join(lines) + "\n"


def missing_readme_rows(table):
    """The README_ROWS patterns that no row of `table` matches: figures docs/performance.md quotes
    that this run did not measure (a subset left out, or a run that failed)."""
    return [p for p in README_ROWS if not any(re.fullmatch(p, r["id"]) for r in table.rows)]


README_BLOCK = re.compile(r"(<!-- bench:begin -->\n).*?(<!-- bench:end -->)", re.S)


def update_readme(path, snippet):
    """Replaces what lies between the page's markers with `snippet`; false, with a message,
    when the file does not have exactly one pair of them."""
    text = open(path).read()
    if len(README_BLOCK.findall(text)) != 1:
        print(f"bench: {path} needs exactly one pair of markers <!-- bench:begin --> and "
              "<!-- bench:end -->; not updated", file=sys.stderr)
        return False
    with open(path, "w") as f:
        f.write(README_BLOCK.sub(lambda m: m.group(1) + snippet + m.group(2), text))
    return True


TITLES = {"demo": "demo", "plume": "plume", "liquid": "tank", "advection": "advection",
          "projection": "projection", "fft": "periodic box", "memory": "memory check"}


# ---------------------------------------------------------------------------------------------
# The machine.

def machine_info(source, args):
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = 0.0
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                memory = float(line.split()[1]) * 1024 / 1e9
    except OSError:
        pass
    commit = subprocess.run(["git", "-C", source, "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": commit, "cpu": cpu, "cores": os.cpu_count(), "memory_gb": memory,
            "load_start": "%.2f %.2f %.2f" % os.getloadavg(), "load_end": "",
            "mode": "quick" if args.quick else "full",
            "command": user_command(sys.argv[1:])}


def user_command(argv):
    """The command line as the user typed it: tests/bench/run adds --source and --build."""
    words, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in ("--source", "--build"):
            skip = True
        elif not a.startswith(("--source=", "--build=")):
            words.append(shlex.quote(a))
    return " ".join(["tests/bench/run"] + words)


# ---------------------------------------------------------------------------------------------
# Running the solver and the benchmark programs.

class Runner:
    def __init__(self, source, build, out, table):
        self.source = source
        self.build = build
        self.exe = os.path.join(build, "stablefluids")
        self.tests = os.path.join(build, "tests")
        self.out = out
        self.logs = os.path.join(out, "logs")
        self.work = tempfile.mkdtemp(prefix="stablefluids_bench_")
        self.table = table
        self.count = 0
        os.makedirs(self.logs, exist_ok=True)

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def log(self, name, text):
        path = os.path.join(self.logs, name + ".log")
        with open(path, "w") as f:
            f.write(text)
        return path

    def job(self, label, job, sets=(), ranks=RANKS):
        """Runs `job` (a path) through jobs/run on `ranks` ranks in a directory of its own, with
        `--set` overrides; returns (wall seconds, timings JSON, steps rows) or None on failure
        (recorded in the table's failures)."""
        self.count += 1
        cwd = os.path.join(self.work, f"{self.count:03d}_{label}")
        os.makedirs(cwd)
        command = [os.path.join(self.source, "jobs", "run"), "-n", str(ranks), job]
        for s in sets:
            command += ["--set", s]
        env = dict(os.environ, STABLEFLUIDS_EXECUTABLE=self.exe)
        print(f"bench: {label}: {' '.join(shlex.quote(c) for c in command)}", flush=True)
        start = time.monotonic()
        done = run_child(command, cwd=cwd, env=env)
        wall = time.monotonic() - start
        log = self.log(label, " ".join(command) + "\n\n" + done.stdout)
        timings = glob.glob(os.path.join(cwd, "**", "*_timings.json"), recursive=True)
        if done.returncode != 0 or len(timings) != 1:
            self.table.fail(f"{label}: status {done.returncode}, see {log}")
            return None
        result = json.load(open(timings[0]))
        steps_csv = timings[0][: -len("_timings.json")] + "_steps.csv"
        with open(steps_csv) as f:
            rows = list(csv.DictReader(f))
        shutil.rmtree(cwd, ignore_errors=True)
        return wall, result, rows

    def program(self, label, name, options, ranks=RANKS):
        """Runs build/tests/<name> on `ranks` ranks; returns its output's table rows as dicts
        keyed by the header's column names (a '#' line is a comment, '|' a separator)."""
        command = ["mpiexec", "-n", str(ranks), os.path.join(self.tests, name)] + options
        print(f"bench: {label}: {' '.join(command)}", flush=True)
        done = run_child(command)
        log = self.log(label, " ".join(command) + "\n\n" + done.stdout)
        if done.returncode != 0:
            self.table.fail(f"{label}: status {done.returncode}, see {log}")
            return []
        header, rows = None, []
        for line in done.stdout.splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.replace("|", " ").split()
            if header is None:
                header = fields
            elif len(fields) == len(header):
                rows.append(dict(zip(header, fields)))
            else:
                self.table.fail(f"{label}: a row that does not fit the header: {line}")
        return rows


def run_child(command, **kwargs):
    """subprocess.run with the output captured, which stops the child (jobs/run stops its ranks
    at the end of their step) when this script is interrupted or terminated."""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             **kwargs)
    try:
        out, _ = child.communicate()
    except BaseException:
        child.terminate()
        try:
            child.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            child.kill()
        raise
    return subprocess.CompletedProcess(command, child.returncode, out)


def program_command(name, options, ranks=RANKS):
    return f"mpiexec -n {ranks} build/tests/{name} " + " ".join(options)


def job_command(job, sets, ranks=RANKS):
    sets = " ".join("--set " + shlex.quote(s) for s in sets)
    return f"jobs/run -n {ranks} {job} {sets}".strip()


def stage_rows(table, group, prefix, label, results, stages):
    """Per-stage seconds per step of a set of runs' timings JSONs, median over the runs; a stage
    the job does not have (under 0.1 ms a step: its clock only) is left out."""
    for stage in stages:
        values = [t["stages"][stage]["seconds_per_step"] for _, t, _ in results
                  if stage in t["stages"]]
        if values and max(values) > 1e-4:
            table.add(group, f"{prefix}stage.{stage}", f"{label}{stage} per step", values, "s")


def step_seconds(results, skip=1):
    """The solver's wall time of every step of every run (the steps CSV's wall_seconds, which
    leaves out frames and in-situ work), without each run's first `skip` steps, which pay for
    first touches of memory and solver set-up."""
    values = []
    for _, _, rows in results:
        values += [float(r["wall_seconds"]) for r in rows[skip:]] or \
                  [float(r["wall_seconds"]) for r in rows]
    return values


def memory_rows(table, group, prefix, label, results):
    table.add(group, f"{prefix}data_bytes_per_cell", f"{label}data and solvers per cell",
              [t["data_bytes_per_cell"] for _, t, _ in results], "bytes")
    table.add(group, f"{prefix}peak_bytes_per_cell", f"{label}peak resident per cell, all ranks",
              [t["bytes_per_cell"] for _, t, _ in results], "bytes")
    table.add(group, f"{prefix}peak_mb_per_rank", f"{label}peak resident per rank (max)",
              [t["peak_memory_bytes_per_rank"] / 1e6 for _, t, _ in results], "MB")


# ---------------------------------------------------------------------------------------------
# The subsets.

SOLVER_STAGES = ["forces", "advect", "diffuse", "project", "surface", "obstacles"]


def bench_demo(runner, table, args):
    g = "demo"
    table.group(g, "The demo: jobs/plume_3d.yaml as jobs/run runs it (2 ranks, with Catalyst)")
    job = os.path.join(runner.source, "jobs", "plume_3d.yaml")
    sets = []
    if args.quick:
        sets = ["grid.cells=[16,32,16]", "time.end=0.25"]
    table.command(g, job_command("jobs/plume_3d.yaml", sets))
    results = [r for r in (runner.job(f"demo_{i}", job, sets) for i in range(args.runs)) if r]
    if not results:
        return
    table.add(g, "wall", "whole run, jobs/run to its exit", [w for w, _, _ in results], "s")
    table.add(g, "steps", "steps", [t["steps"] for _, t, _ in results], "")
    solver = [sum(float(r["wall_seconds"]) for r in rows) for _, _, rows in results]
    table.add(g, "solver", "solver (the steps' wall time)", solver, "s")
    table.add(g, "s_per_step", "solver per step", step_seconds(results), "s", noise="IQR")
    stage_rows(table, g, "", "", results, SOLVER_STAGES)
    table.add(g, "images", "in-situ images (Catalyst), whole run",
              [t["stages"]["insitu"]["seconds"] for _, t, _ in results], "s")
    table.add(g, "frames", "frames (HDF5), whole run",
              [t["stages"]["output"]["seconds"] for _, t, _ in results], "s")
    memory_rows(table, g, "", "", results)
    table.add(g, "catalyst_mb_per_rank", "Catalyst at its start, per rank",
              [t["memory_in_situ_bytes_per_rank"] / 1e6 for _, t, _ in results], "MB")


def plume_grids(args):
    return [[16, 32, 16], [24, 48, 24]] if args.quick else [[64, 128, 64], [128, 256, 128]]


def bench_plume(runner, table, args):
    g = "plume"
    table.group(g, "The plume without Catalyst (jobs/plume_3d.yaml, 2 ranks, fixed dt)")
    job = os.path.join(runner.source, "jobs", "plume_3d.yaml")
    steps = 3 if args.quick else args.steps
    for cells in plume_grids(args):
        # dt 0.05 at 64 cells across, as the demo's dt_max, and the same CFL number on finer
        # grids; starting from rest, every run does the same work per step.
        dt = 0.05 * 64 / cells[0]
        sets = ["catalyst=null", f"grid.cells=[{cells[0]},{cells[1]},{cells[2]}]",
                f"time={{dt: {dt:g}, end: {steps * dt:g}}}", "output.interval=0"]
        table.command(g, job_command("jobs/plume_3d.yaml", sets))
        name = "x".join(map(str, cells))
        results = [r for r in (runner.job(f"plume_{name}_{i}", job, sets)
                               for i in range(args.runs)) if r]
        if not results:
            continue
        table.add(g, f"{name}.s_per_step", f"{name}: solver per step", step_seconds(results), "s",
                  noise="IQR")
        stage_rows(table, g, f"{name}.", f"{name}: ", results, SOLVER_STAGES)
        its = [float(r["pressure_iterations"]) for _, _, rows in results for r in rows]
        table.add(g, f"{name}.pressure_iterations", f"{name}: pressure iterations per step", its,
                  "", noise="IQR")
        memory_rows(table, g, f"{name}.", f"{name}: ", results)


def bench_liquid(runner, table, args):
    g = "liquid"
    table.group(g, "A liquid step against a smoke step on the same tank and grid (2 ranks)")
    cells = [32, 12, 12] if args.quick else [128, 48, 48]
    steps = 2 if args.quick else args.steps // 2
    name = "x".join(map(str, cells))
    grid = f"grid.cells=[{cells[0]},{cells[1]},{cells[2]}]"
    # The dam break keeps its adaptive step, which starts at dt_max = 0.01 from rest.
    liquid_sets = ["catalyst=null", grid, f"time.end={0.01 * steps:g}", "output.interval=0"]
    smoke_sets = [grid, f"time={{dt: 0.01, end: {0.01 * steps:g}}}"]
    per_step = {}
    for label, job, sets in (
            ("dam_break_3d", os.path.join(runner.source, "jobs", "dam_break_3d.yaml"),
             liquid_sets),
            ("smoke_tank_3d", os.path.join(runner.source, "tests", "bench", "smoke_tank_3d.yaml"),
             smoke_sets)):
        rel = os.path.relpath(job, runner.source)
        table.command(g, job_command(rel, sets))
        results = [r for r in (runner.job(f"{label}_{i}", job, sets) for i in range(args.runs))
                   if r]
        if not results:
            continue
        values = step_seconds(results)
        per_step[label] = statistics.median(values)
        table.add(g, f"{label}.s_per_step", f"{label} {name}: solver per step", values, "s",
                  noise="IQR")
        stage_rows(table, g, f"{label}.", f"{label} {name}: ", results, SOLVER_STAGES)
        memory_rows(table, g, f"{label}.", f"{label} {name}: ", results)
    if len(per_step) == 2:
        table.add(g, "ratio", "liquid step / smoke step",
                  per_step["dam_break_3d"] / per_step["smoke_tank_3d"], "")


def bench_advection(runner, table, args):
    g = "advection"
    table.group(g, "Advection alone (bench_advection: velocity and two scalars, 2 ranks)")
    cells, repeats = ("16", 2) if args.quick else ("128", max(args.runs, 5))
    options = ["-cases", cells, "-boundaries", "walls,periodic", "-cfls", "1,6",
               "-repeats", str(repeats)]
    table.command(g, program_command("bench_advection", options))
    for row in runner.program("advection", "bench_advection", options):
        case = f"{row['cells']}^3 {row['boundary']} CFL {float(row['cfl']):g}"
        key = f"{row['cells']}.{row['boundary']}.cfl{float(row['cfl']):g}"
        table.add_spread(g, f"{key}.advect", f"{case}: advect", row["advect_s"], row["min_s"],
                         row["max_s"], repeats, "s")
        table.add(g, f"{key}.ns_per_sample", f"{case}: per traced sample point",
                  float(row["ns/sample"]), "ns", note=f"{row['remote%']} % of points remote")


def bench_projection(runner, table, args):
    g = "projection"
    table.group(g, "The pressure projection (bench_projection, 2 ranks, rtol 1e-8)")
    cases, repeats, steps = ("3d16", 1, 2) if args.quick else ("3d64,3d128", max(args.runs, 2), 3)
    options = ["-cases", cases, "-boundaries", "outflow,obstacle", "-pcs", "mg,pfmg",
               "-repeats", str(repeats), "-steps", str(steps)]
    solves = repeats * steps  # the warm projections each median is taken from
    table.command(g, program_command("bench_projection", options))
    for row in runner.program("projection", "bench_projection", options):
        if "warm_s" not in row:
            continue
        case = f"{row['grid']} {row['boundary']} {row['pc']}"
        key = f"{row['grid']}.{row['boundary']}.{row['pc']}"
        table.add_spread(g, f"{key}.warm", f"{case}: warm projection", row["warm_s"],
                         row["min_s"], row["max_s"], solves, "s",
                         note=f"{row['warm_it']} iterations")
        table.add(g, f"{key}.setup", f"{case}: set-up", float(row["setup_s"]), "s")


def bench_fft(runner, table, args):
    g = "fft"
    table.group(g, "Periodic boxes: the FFT solvers against the Krylov ones")
    cases, repeats, steps = ("3d16", 1, 2) if args.quick else ("3d128,3d256", max(args.runs, 2), 3)
    options = ["-cases", cases, "-repeats", str(repeats), "-steps", str(steps)]
    solves = repeats * steps
    for ranks in (1, 2):
        table.command(g, program_command("bench_fft_projection", options, ranks))
        rows = runner.program(f"fft_np{ranks}", "bench_fft_projection", options, ranks)
        by = {}
        for row in rows:
            grid, method = row["grid"], row["method"]
            by[(grid, method)] = float(row["project_s"])
            case = f"{grid} {ranks} rank{'s' if ranks > 1 else ''} {method}"
            key = f"{grid}.np{ranks}.{method}"
            table.add_spread(g, f"{key}.project", f"{case}: projection", row["project_s"],
                             row["min_s"], row["max_s"], solves, "s",
                             note=f"{row['it']} iterations, max|div u| {row['div']}")
            table.add(g, f"{key}.setup", f"{case}: set-up", float(row["setup_s"]), "s")
        for (grid, method), seconds in by.items():
            if method != "fft" and (grid, "fft") in by:
                table.add(g, f"{grid}.np{ranks}.ratio", f"{grid} {ranks} rank(s): {method} / fft",
                          seconds / by[(grid, "fft")], "")
    # The whole step of turbulence_fft_3d with both solves by FFT and both by Krylov.
    job = os.path.join(runner.source, "jobs", "turbulence_fft_3d.yaml")
    cells = "grid.cells=[16,16,16]" if args.quick else "grid.cells=[64,64,64]"
    steps = 2 if args.quick else args.steps // 2
    per_step, per_cell = {}, {}
    for solver in ("fft", "krylov"):
        sets = ["catalyst=null", cells, f"pressure.solver={solver}", f"diffusion.solver={solver}",
                f"time={{dt: 0.05, end: {0.05 * steps:g}}}", "output.interval=0"]
        table.command(g, job_command("jobs/turbulence_fft_3d.yaml", sets))
        results = [r for r in (runner.job(f"turbulence_{solver}_{i}", job, sets)
                               for i in range(args.runs)) if r]
        if not results:
            continue
        values = step_seconds(results)
        per_step[solver] = statistics.median(values)
        table.add(g, f"turbulence.{solver}.s_per_step", f"turbulence_fft_3d, {solver}: step",
                  values, "s", noise="IQR")
        stage_rows(table, g, f"turbulence.{solver}.", f"turbulence_fft_3d, {solver}: ", results,
                   ["diffuse", "project"])
        values = [t["data_bytes_per_cell"] for _, t, _ in results]
        per_cell[solver] = statistics.median(values)
        table.add(g, f"turbulence.{solver}.data_bytes_per_cell",
                  f"turbulence_fft_3d, {solver}: data and solvers per cell", values, "bytes")
    if len(per_step) == 2:
        table.add(g, "turbulence.ratio", "turbulence_fft_3d: krylov step / fft step",
                  per_step["krylov"] / per_step["fft"], "")
        table.add(g, "turbulence.memory_ratio",
                  "turbulence_fft_3d: krylov / fft data and solvers per cell",
                  per_cell["krylov"] / per_cell["fft"], "")


# ---------------------------------------------------------------------------------------------
# Memory: the features the estimate adds up, and the estimate against every example job.

def feature_jobs(dim):
    """(name, what it adds, job changes, the configuration it is measured against)."""
    c = [0.5] * dim

    def blob(value):
        return {"initial": [{"shape": "sphere", "center": c, "radius": 0.2, "value": value}]}

    scalars = {"a": blob(1.0), "b": blob(0.5)}
    liquid = {"forces": {"gravity": [0.0, -9.81] + [0.0] * (dim - 2)},
              "advection": {"interpolation": "monotone_cubic"},
              "liquid": {"initial": [{"shape": "box", "lower": [-1.0] * dim,
                                      "upper": [2.0, 0.5] + [2.0] * (dim - 2)}],
                         "interface": "level_set", "particles": {"per_cell": 0}}}
    particles = {**liquid, "liquid": {**liquid["liquid"], "particles": {"per_cell": 16}}}
    periodic = {"boundary": {a: "periodic" for a in "xyz"[:dim]}}
    outflow = {"boundary": {"y": {"lower": "no-slip", "upper": "outflow"}}}
    features = [
        ("base", "velocity, pressure projection, grid, one frame", {}, None),
        ("scalars", "two scalars", {"scalars": scalars}, "base"),
        ("scalar_diffusion", "the scalars diffusing (one solver for the cell location)",
         {"scalars": {k: {**v, "diffusion": 1e-3} for k, v in scalars.items()}}, "scalars"),
        ("viscosity", "viscosity (a solver per velocity component)",
         {"fluid": {"viscosity": 1e-3}}, "base"),
        ("confinement", "vorticity confinement", {"forces": {"vorticity_confinement": 1.0}},
         "base"),
        ("obstacle", "an obstacle (staircase)",
         {"obstacles": [{"shape": "sphere", "center": c, "radius": 0.2}]}, "base"),
        ("cut", "an obstacle with cut faces",
         {"obstacles": [{"shape": "sphere", "center": c, "radius": 0.2, "surface": "cut"}]},
         "obstacle"),
        ("maccormack", "MacCormack advection", {"advection": {"scheme": "maccormack"}}, "base"),
        ("maccormack_scalars", "MacCormack advection, with two scalars",
         {"scalars": scalars, "advection": {"scheme": "maccormack"}}, "scalars"),
        ("bfecc", "BFECC advection", {"advection": {"scheme": "bfecc"}}, "base"),
        ("bfecc_scalars", "BFECC advection, with two scalars",
         {"scalars": scalars, "advection": {"scheme": "bfecc"}}, "scalars"),
        ("bdf2", "the BDF2 step (with cubic interpolation)",
         {"time": {"scheme": "bdf2"}, "advection": {"interpolation": "cubic"}}, "base"),
        ("bdf2_scalars", "the BDF2 step, with two scalars",
         {"scalars": scalars, "time": {"scheme": "bdf2"}, "advection": {"interpolation": "cubic"}},
         "scalars"),
        ("periodic", "a periodic box (Krylov)", periodic, "base"),
        ("fft", "FFT projection on a periodic box", {**periodic, "pressure": {"solver": "fft"}},
         "periodic"),
        ("fft_diffusion", "viscosity solved by FFT on a periodic box",
         {**periodic, "fluid": {"viscosity": 1e-3}, "diffusion": {"solver": "fft"}},
         "periodic"),
        ("scalar", "one scalar", {"scalars": {"a": blob(1.0)}}, "base"),
        ("variable_viscosity", "a viscosity that follows a scalar",
         {"scalars": {"a": blob(1.0)},
          "fluid": {"viscosity": {"from": "a", "values": [[0.0, 1e-3], [1.0, 1e-2]]}}},
         "scalar"),
        ("cubic", "monotone cubic interpolation",
         {"advection": {"interpolation": "monotone_cubic"}},
         "base"),
        ("liquid", "a liquid (level set, free-surface projection)", liquid, "cubic"),
        ("particles", "the liquid's marker particles (16 per cell of the band)", particles,
         "liquid"),
        ("vof", "a liquid by volume fraction instead of the level set and its particles",
         {**liquid, "liquid": {"initial": liquid["liquid"]["initial"], "interface": "vof"}},
         "liquid"),
        ("volume_control", "the level set's volume controller",
         {**liquid, "liquid": {**liquid["liquid"], "volume_control": {}}}, "liquid"),
        ("height_field", "a liquid by height field instead",
         {**liquid, "liquid": {"initial": liquid["liquid"]["initial"],
                               "surface": "height_field"}}, "cubic"),
        ("viscoelastic", "a viscoelastic liquid",
         {**liquid, "viscoelastic": {"elastic_modulus": 30}},
         "liquid"),
        ("outflow", "an outflow face", outflow, "base"),
        ("fire", "fire (its three scalars, the burn and the expansion)",
         {**outflow, "scalars": {"fuel": blob(1.0), "temperature": blob(1.0), "soot": {}},
          "fire": {"fuel": "fuel", "temperature": "temperature", "soot": "soot", "burn_rate": 8.0,
                   "ignition_temperature": 0.25, "heat": 1.5, "soot_yield": 0.6,
                   "expansion": 0.4}},
         "outflow"),
        ("catalyst", "Catalyst with a slice image",
         {"catalyst": {"scripts": [{"script": "@catalyst/slice_png.py", "every_steps": 1,
                                    "args": ["--size", "400", "400"]}]}}, "base"),
    ]
    features += [
        ("catalyst_volume", "Catalyst with a volume rendering",
         {"catalyst": {"scripts": [{"script": "@catalyst/volume_png.py", "every_steps": 1,
                                    "args": ["--size", "400", "400"]}]}}, "base"),
        ("catalyst_contour", "Catalyst with a contour of the liquid's surface",
         {**liquid, "catalyst": {"scripts": [{"script": "@catalyst/contour_png.py",
                                              "every_steps": 1,
                                              "args": ["--field", "phi", "--value", "0", "--size",
                                                       "400", "400"]}]}}, "liquid"),
    ]
    return [f for f in features if dim == 3 or f[0] not in ONLY_3D]


# What --quick measures: enough to run every code path of the subsets, in a few minutes.
QUICK_FEATURES = {"scalars", "particles"}
QUICK_JOBS = {"vortex_2d", "dam_break_2d", "plume_3d"}
# The quick mode runs the plume on the demo's quick grid: on its own grid its volume images take a
# minute, and the quick mode checks the command, not the estimate at that size.
QUICK_GRIDS = {"plume_3d": "grid.cells=[16,32,16]"}
# Features whose memory grows with the liquid's surface rather than with the grid's volume.
COLUMN_FEATURES = {"particles"}
# Not measured in 2D, where the estimate takes the slice's figure for every script.
ONLY_3D = {"catalyst_volume"}


def feature_sizes(dim, quick):
    if quick:
        return [12, 16] if dim == 3 else [48, 64]
    return [32, 80] if dim == 3 else [192, 768]


def merged(base, change):
    out = dict(base)
    for k, v in change.items():
        out[k] = {**out[k], **v} if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def bench_features(runner, table, args):
    g = "features"
    table.group(g, "Memory per feature (what src/job/memory_estimate.cpp adds up; 2 ranks)")
    catalyst = os.path.join(runner.source, "jobs", "catalyst")
    wanted = set(args.features.split(",")) if args.features else None
    if args.quick and not wanted:
        wanted = QUICK_FEATURES
    for dim in (3, 2):
        if args.dims and str(dim) not in args.dims.split(","):
            continue
        sizes = feature_sizes(dim, args.quick)
        features = feature_jobs(dim)
        if wanted:
            # Each wanted feature with the chain of jobs it is measured against.
            against_of = {name: against for name, _, _, against in features}
            keep = set()
            for name in wanted:
                while name and name in against_of and name not in keep:
                    keep.add(name)
                    name = against_of[name]
            features = [f for f in features if f[0] in keep]
        measured = {}  # feature -> [peak resident bytes of all ranks, per size]
        fits = {}  # feature -> (bytes per cell or column, bytes per rank)
        for name, what, change, against in features:
            points = []
            for n in sizes:
                base = {"name": f"feature_{name}_{dim}d",
                        "grid": {"cells": [n] * dim, "size": [1.0] * dim},
                        "velocity": {"initial": {"type": "taylor_green", "strength": 1.0}},
                        "time": {"dt": 0.5 / n, "end": 3 * 0.5 / n},
                        "output": {"directory": "output", "interval": 0}}
                text = yaml.safe_dump(merged(base, change), default_flow_style=None)
                text = text.replace("@catalyst/", catalyst + "/")
                path = os.path.join(runner.work, f"feature_{name}_{dim}d_{n}.yaml")
                with open(path, "w") as f:
                    f.write(text)
                result = runner.job(f"feature_{name}_{dim}d_{n}", path)
                if result is None:
                    break
                points.append(result[1])
            if len(points) != len(sizes):
                continue
            measured[name] = [t["peak_memory_bytes_total"] for t in points]
            if against is None:
                # The whole configuration: resident bytes = ranks x per rank + cells x per cell.
                x, extra = [n ** dim for n in sizes], measured[name]
                unit = "cell"
            elif against in measured:
                # A feature: what it adds to the configuration it is measured against.
                extra = [m - b for m, b in zip(measured[name], measured[against])]
                x = [n ** dim for n in sizes]
                unit = "cell"
            else:
                continue
            over = f"over {against}" if against else f"sizes {sizes[0]}^{dim} and {sizes[-1]}^{dim}"
            if name in COLUMN_FEATURES:
                # The marker particles fill a band along the surface, here a flat one across the
                # box: their count grows with the columns of cells along gravity (n^(dim-1)),
                # and the swarm keeps a little per cell besides. Two sizes give the two parts,
                # with nothing per rank (the other features' per-rank parts are within the
                # scatter of the measurement).
                columns = [n ** (dim - 1) for n in sizes]
                det = x[0] * columns[1] - x[1] * columns[0]
                per_cell = (extra[0] * columns[1] - extra[1] * columns[0]) / det
                per_column = (x[0] * extra[1] - x[1] * extra[0]) / det
                fits[name] = (per_cell, 0.0)
                table.add(g, f"{dim}d.{name}.per_column", f"{dim}D {what}: per column",
                          per_column, "bytes", note=over)
                table.add(g, f"{dim}d.{name}.per_cell", f"{dim}D {what}: per cell", per_cell,
                          "bytes", note=over)
                continue
            per_unit = (extra[-1] - extra[0]) / (x[-1] - x[0])
            per_rank = (extra[0] - per_unit * x[0]) / RANKS
            fits[name] = (per_unit, per_rank)
            table.add(g, f"{dim}d.{name}.per_{unit}", f"{dim}D {what}: per {unit}", per_unit,
                      "bytes", note=over)
            table.add(g, f"{dim}d.{name}.per_rank", f"{dim}D {what}: per rank", per_rank / 1e6,
                      "MB", note=over + ("" if against else ", libraries included"))
            if against is None:
                table.add(g, f"{dim}d.{name}.at_start", f"{dim}D program and libraries, per rank",
                          [t["memory_at_start_bytes_per_rank"] / 1e6 for t in points], "MB")
        # The figures the estimate takes that are combinations of the ones above: what each
        # scalar adds to a scheme, and what viscoelasticity and fire add besides their scalars.
        strains = 6 if dim == 3 else 3
        for name, what, terms in (
                ("scalar_each", "each scalar", [("scalars", 0.5)]),
                ("maccormack_per_scalar", "MacCormack, each scalar",
                 [("maccormack_scalars", 0.5), ("maccormack", -0.5)]),
                ("bfecc_per_scalar", "BFECC, each scalar",
                 [("bfecc_scalars", 0.5), ("bfecc", -0.5)]),
                ("bdf2_per_scalar", "BDF2, each scalar", [("bdf2_scalars", 0.5), ("bdf2", -0.5)]),
                ("viscoelastic_net", f"viscoelasticity less its {strains} strain scalars",
                 [("viscoelastic", 1.0), ("scalars", -strains / 2)]),
                ("fire_net", "fire less its 3 scalars", [("fire", 1.0), ("scalars", -1.5)])):
            if all(t in fits for t, _ in terms):
                per_cell = sum(w * fits[t][0] for t, w in terms)
                per_rank = sum(w * fits[t][1] for t, w in terms)
                formula = " ".join(f"{'+' if w > 0 else '-'} {abs(w):g} x {t}" for t, w in terms)
                table.add(g, f"{dim}d.{name}.per_cell", f"{dim}D {what}: per cell", per_cell,
                          "bytes", note=formula.lstrip("+ "))
                table.add(g, f"{dim}d.{name}.per_rank", f"{dim}D {what}: per rank",
                          per_rank / 1e6, "MB", note=formula.lstrip("+ "))
    table.command(g, "tests/bench/run features   (jobs written by tests/bench/bench.py, "
                     "feature_jobs(); sizes " + ", ".join(
                         f"{feature_sizes(d, args.quick)[0]}^{d} and "
                         f"{feature_sizes(d, args.quick)[1]}^{d}" for d in (3, 2)) + ")")


def example_jobs(source):
    jobs = sorted(glob.glob(os.path.join(source, "jobs", "*.yaml")))
    jobs += sorted(glob.glob(os.path.join(source, "jobs", "validation", "*.yaml")))
    return jobs


def short_run(job_path, quick):
    """--set overrides that run `job_path` for a few steps: the time section's own step (or
    its dt_max) a few times, every frame and image it would make in that time."""
    job = yaml.safe_load(open(job_path))
    t = job.get("time", {})
    dt = t.get("dt") or t.get("dt_max")
    steps = 2 if quick else 4
    sets = [f"time.end={dt * steps:.9g}"] if dt else []
    return sets


# Example jobs again on grids large enough that the per-cell figures decide the estimate (on
# their own grids the per-rank part does, the libraries' and ParaView's), without Catalyst.
LARGE_RUNS = [
    ("plume_3d", "grid.cells=[128,256,128]"),
    ("dam_break_3d", "grid.cells=[128,48,48]"),
    ("turbulence_fft_3d", "grid.cells=[128,128,128]"),
    ("fire_3d", "grid.cells=[80,128,80]"),
    ("jelly_drop_2d", "grid.cells=[512,512]"),
    ("melting_block_2d", "grid.cells=[384,192]"),
]


def bench_memory(runner, table, args):
    g = "memory"
    table.group(g, "The memory check: estimate against the measured peak of every example job "
                   f"(2 ranks, a few steps; bound ±{MEMORY_BOUND:.0%})")
    estimate_exe = os.path.join(runner.tests, "memory_estimate")
    runs = [(job, os.path.splitext(os.path.basename(job))[0], [])
            for job in example_jobs(runner.source)]
    if args.jobs or args.quick:
        names = set(args.jobs.split(",")) if args.jobs else QUICK_JOBS
        runs = [r for r in runs if r[1] in names]
    if args.quick:
        runs = [(job, name, [QUICK_GRIDS[name]] if name in QUICK_GRIDS else extra)
                for job, name, extra in runs]
    else:
        for name, cells in LARGE_RUNS:
            if not args.jobs or name in args.jobs.split(","):
                job = os.path.join(runner.source, "jobs", name + ".yaml")
                runs.append((job, f"{name}@{cells.split('=')[1]}", ["catalyst=null", cells]))
    table.command(g, "jobs/run -n 2 <job> --set time.end=<4 steps of its dt or dt_max>, "
                     "for every job in jobs/ and jobs/validation/, and without Catalyst on the "
                     "larger grids of LARGE_RUNS (tests/bench/bench.py); the estimate from "
                     "build/tests/memory_estimate <job> -ranks 2 --set ...")
    errors = []
    for job, name, extra in runs:
        sets = extra + short_run(job, args.quick)
        estimate = subprocess.run([estimate_exe, job, "-ranks", str(RANKS)] +
                                  [a for s in sets for a in ("--set", s)],
                                  capture_output=True, text=True)
        if estimate.returncode != 0:
            table.fail(f"memory estimate of {name}: {estimate.stdout}{estimate.stderr}")
            continue
        predicted = json.loads(estimate.stdout)["total_bytes"]
        result = runner.job("memory_" + re.sub(r"[^A-Za-z0-9_]+", "_", name), job, sets)
        if result is None:
            continue
        measured = result[1]["peak_memory_bytes_total"]
        ratio = predicted / measured
        ok = abs(ratio - 1.0) <= MEMORY_BOUND
        table.add(g, f"{name}.ratio", f"{name}: estimate / measured peak", ratio, "",
                  note=f"{predicted / 1e6:.0f} MB / {measured / 1e6:.0f} MB, "
                       f"{result[1]['total_cells']} cells; " + ("ok" if ok else "OUTSIDE"))
        errors.append(abs(ratio - 1.0))
        if not ok:
            table.fail(f"memory estimate of {name}: {predicted / 1e6:.0f} MB against a measured "
                       f"peak of {measured / 1e6:.0f} MB (ratio {ratio:.2f}, bound "
                       f"1 ± {MEMORY_BOUND})")
    if errors:
        table.add(g, "within", f"runs whose estimate is within {MEMORY_BOUND:.0%} of the peak",
                  sum(e <= MEMORY_BOUND for e in errors), "", note=f"of {len(errors)}")
        table.add(g, "largest_error", "largest |estimate / peak - 1| of the runs",
                  100 * max(errors), "%")


BENCHES = {"demo": bench_demo, "plume": bench_plume, "liquid": bench_liquid,
           "advection": bench_advection, "projection": bench_projection, "fft": bench_fft,
           "features": bench_features, "memory": bench_memory}


def main():
    # SIGTERM (a CTest timeout, kill) stops the run in progress as Ctrl-C does.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    parser = argparse.ArgumentParser(
        prog="tests/bench/run",
        description="Runs the benchmarks behind every speed and memory figure the documentation "
                    "gives and writes them as one table.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("subsets", nargs="*", metavar="SUBSET",
                        help="any of: " + " ".join(SUBSETS) + ", or readme (the subsets whose "
                             "rows docs/performance.md quotes: " + " ".join(README_SUBSETS) +
                             "; default: all)")
    parser.add_argument("--quick", action="store_true", help="tiny grids, few steps: a smoke test")
    parser.add_argument("--runs", type=int, default=None,
                        help="runs of each job (default 3, --quick 1)")
    parser.add_argument("--steps", type=int, default=20, help="steps of each timed job run")
    parser.add_argument("--output", default="bench_output", help="where the table goes")
    parser.add_argument("--jobs", default="",
                        help="memory: only these jobs (names, comma-separated)")
    parser.add_argument("--features", default="",
                        help="features: only these (names, comma-separated)")
    parser.add_argument("--dims", default="", help="features: only these dimensions (2,3)")
    parser.add_argument("--update-readme", action="store_true",
                        help="write docs/performance.md's table (between <!-- bench:begin --> and "
                             "<!-- bench:end -->) from this run; refused when a run failed or "
                             "a figure docs/performance.md quotes was not measured")
    parser.add_argument("--readme", default="",
                        help="the file --update-readme writes (default: the source's "
                             "docs/performance.md; --quick writes only another file, its "
                             "figures not being measurements)")
    parser.add_argument("--source", required=True, help=argparse.SUPPRESS)
    parser.add_argument("--build", required=True, help=argparse.SUPPRESS)
    args = parser.parse_args()
    unknown = [s for s in args.subsets if s not in SUBSETS + ["readme"]]
    if unknown:
        parser.error(f"unknown subset {', '.join(unknown)}; choose from {' '.join(SUBSETS)} "
                     "readme")
    if "readme" in args.subsets:
        args.subsets += README_SUBSETS
    readme = os.path.abspath(args.readme or os.path.join(args.source, "docs", "performance.md"))
    if args.update_readme and args.quick and not args.readme:
        parser.error("--quick measures nothing worth quoting: --update-readme writes "
                     "docs/performance.md only from a full run (--readme FILE writes another "
                     "file)")
    if args.runs is None:
        args.runs = 1 if args.quick else 3
    if args.runs < 1 or args.steps < 2:
        parser.error("--runs must be at least 1 and --steps at least 2")
    subsets = [s for s in SUBSETS if s in args.subsets] if args.subsets else SUBSETS

    table = Table()
    machine = machine_info(args.source, args)
    print(f"bench: {machine['cpu']}, {machine['cores']} cores, {machine['memory_gb']:.1f} GB, "
          f"load {machine['load_start']}; commit {machine['commit']}", flush=True)
    runner = Runner(args.source, args.build, os.path.abspath(args.output), table)
    try:
        for subset in subsets:
            BENCHES[subset](runner, table, args)
            machine["load_end"] = "%.2f %.2f %.2f" % os.getloadavg()
            write_outputs(table, machine, runner.out)
    finally:
        runner.close()
    machine["load_end"] = "%.2f %.2f %.2f" % os.getloadavg()
    write_outputs(table, machine, runner.out)
    print(open(os.path.join(runner.out, "bench.md")).read())
    print(f"bench: table in {runner.out}/bench.md (and bench.csv, bench.json); "
          f"logs in {runner.logs}")
    if table.failures:
        print(f"bench: {len(table.failures)} failure(s):\n  " + "\n  ".join(table.failures))
        if args.update_readme:
            print(f"bench: {readme} not updated: a run failed", file=sys.stderr)
        return 1
    if args.update_readme:
        missing = missing_readme_rows(table)
        if missing:
            # The subsets that measure them: a row's id begins with its subset's name.
            groups = sorted({p.split("\\.")[0] for p in missing})
            print(f"bench: {readme} not updated: this run did not measure the figures of "
                  f"{', '.join(groups)} that it quotes (run the subsets "
                  f"{' '.join(README_SUBSETS)}, or readme)", file=sys.stderr)
            return 1
        if not update_readme(readme, readme_snippet(table, machine)):
            return 1
        print(f"bench: {readme}: the table between <!-- bench:begin --> and <!-- bench:end --> "
              "rewritten from this run")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("bench: interrupted; the runs in progress were stopped", file=sys.stderr)
        sys.exit(130)
