#!/usr/bin/python3
"""The validation suite's checker: bounds, results, the tables of docs/validation.md.

Usage:
  validation.py check  [--results FILE] [--rows ROW...]    every bound of the recorded rows
  validation.py tables [--results FILE] --out FILE.md      the accuracy tables of docs/validation.md
  validation.py readme (--check | --update) [--results FILE] [--readme docs/validation.md]
  validation.py drift  --results FILE [--rows ROW...]      this run's values against expected
  validation.py accept --results FILE [--rows ROW...]      the rows into the expected results
  validation.py selftest                                   the checker's arithmetic

A row is one run of the suite (a job, a grid, a scheme) and records the quantities its script
measured (tests/validation/cavity_centrelines.py and the other scripts call record() and check()).
Its bounds are in tests/validation/bounds.yaml, the one place they are kept, each with where it
comes from; this module computes them (the reference's own uncertainty plus the discretization
error that a recorded grid study gives the row's resolution) and prints PASS or FAIL with the
value, the reference, the bound and its sources.

tests/validation/expected_results.json holds the rows of the last accepted run (and the rows
measured once on larger machines or in long studies, with where and when). docs/validation.md's
accuracy tables are rendered from it between the markers <!-- validation:begin NAME --> and
<!-- validation:end -->; `readme --check` (a CTest) fails when they differ, `readme --update`
rewrites them. tests/validation/run --update-readme merges a passing run into it first.
"""
import argparse
import datetime
import fcntl
import json
import math
import os
import platform
import re
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BOUNDS = os.path.join(HERE, "bounds.yaml")
EXPECTED = os.path.join(HERE, "expected_results.json")
README = os.path.join(ROOT, "docs", "validation.md")

# Roache's factors of safety for a grid convergence index: 1.25 when the order is observed on
# three grids and lies in the range the scheme can have, 3 when it is assumed (two grids, or an
# order the three grids do not confirm): Roache (1998), Celik et al. (2008), docs/references.md.
SAFETY_OBSERVED, SAFETY_ASSUMED = 1.25, 3.0


# ---- results files ---------------------------------------------------------------------------

def load_results(path):
    if not path or not os.path.exists(path):
        return {"rows": {}}
    with open(path) as f:
        return json.load(f)


def save_results(path, results):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def machine():
    """CPU model and core count of this machine, for the record of where a row was measured."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def commit():
    try:
        out = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def record(path, row, values, wall_seconds=None, ranks=None):
    """Adds (or replaces) `row` with its measured `values` in the results file `path`. Cases run
    at the same time record into the same file: a lock beside it keeps one from losing
    another's row."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, ".results.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _record(path, row, values, wall_seconds, ranks)


def _record(path, row, values, wall_seconds, ranks):
    results = load_results(path)
    entry = {"values": {k: float(v) for k, v in values.items()},
             "measured": {"date": datetime.date.today().isoformat(), "commit": commit(),
                          "machine": machine()}}
    if wall_seconds is not None:
        entry["wall_seconds"] = round(float(wall_seconds), 1)
    if ranks is not None:
        entry["ranks"] = int(ranks)
    results["rows"][row] = entry
    save_results(path, results)


def merged(results):
    """The expected rows, with those of `results` in their place."""
    rows = dict(load_results(EXPECTED)["rows"])
    rows.update(results["rows"])
    return rows


def add_row_arguments(parser):
    """The options by which tests/validation/run has a script record and check what it
    measured."""
    parser.add_argument("--row", help="record the measured quantities as this row of the suite "
                        "(tests/validation/bounds.yaml) and check them against its bounds")
    parser.add_argument("--results", help="the results file the row goes to "
                        "(default validation_output/results.json)",
                        default="validation_output/results.json")
    parser.add_argument("--wall-seconds", type=float, help="the run's wall time, for the record")
    parser.add_argument("--ranks", type=int, help="the run's rank count, for the record")
    parser.add_argument("--record-only", action="store_true",
                        help="record the row without checking it (tests/validation/run checks "
                        "a case's rows together once its grid study is complete)")


def finish(args, values):
    """Records `values` as the row args.row (when given) and checks it: the exit status."""
    if not args.row:
        return 0
    record(args.results, args.row, values, args.wall_seconds, args.ranks)
    if args.record_only:
        return 0
    bounds = load_bounds()
    if args.row not in bounds["rows"]:
        print(f"FAIL     {args.row}: no such row in tests/validation/bounds.yaml")
        return 1
    return 1 if check(merged(load_results(args.results)), {args.row}, bounds=bounds) else 0


# ---- bounds ----------------------------------------------------------------------------------

def load_bounds():
    with open(BOUNDS) as f:
        return yaml.safe_load(f)


def reference_spread(spec):
    """The largest difference on one centre line between two published cavity solutions."""
    sys.path.insert(0, HERE)
    from cavity_centrelines import REFERENCES  # noqa: E402 (needs h5py only when called)
    a, b = (dict(REFERENCES[name][0 if spec["line"] == "u" else 1]) for name in spec["of"])
    return max(abs(a[s] - b[s]) for s in a)


def reference_of(bounds, name, quantity):
    """(value, uncertainty, [source texts]) of a named reference's `quantity`."""
    ref = bounds["references"][name]
    value = ref.get("values", {}).get(quantity)
    sources = [ref["title"]]
    interval = ref.get("intervals", {}).get(quantity)
    if interval is not None:
        lo, hi = interval
        value, uncertainty = 0.5 * (lo + hi), 0.5 * (hi - lo)
        sources.append(f"interval {lo:g}-{hi:g}: half its width")
        return value, uncertainty, sources
    u = ref.get("uncertainty", {})
    if "spread" in u:
        spread = dict(u["spread"])
        spread["line"] = quantity
        uncertainty = reference_spread(spread)
    elif "relative" in u:
        uncertainty = abs(value) * u["relative"]
    else:
        uncertainty = u.get("absolute", 0.0)
    sources.append(u.get("source", "no uncertainty stated"))
    return value, uncertainty, sources


def study_error(bounds, rows, spec, row, quantity):
    """Estimated discretization error of `quantity` on `row` from a recorded grid study:
    (error, description). The study's rows run coarse to fine with a constant refinement ratio;
    Richardson extrapolation of the two finest gives Q_inf, and the error is Fs |Q_row - Q_inf|
    (Roache's grid convergence index; Fs as above)."""
    ids = spec["rows"]
    cells = [bounds["rows"][r]["cells"] for r in ids]
    missing = [r for r in ids if r not in rows or quantity not in rows[r]["values"]]
    if missing:
        raise KeyError(f"the study of {row} needs the rows {', '.join(missing)}")
    q = [rows[r]["values"][quantity] for r in ids]
    p_formal = spec["order"]
    ratios = [cells[i + 1] / cells[i] for i in range(len(cells) - 1)]
    r = ratios[-1]
    p, safety, how = p_formal, SAFETY_ASSUMED, f"order {p_formal:g} assumed"
    oscillating = False
    if len(q) >= 3:
        if max(ratios[-2:]) - min(ratios[-2:]) > 1e-9:
            raise ValueError(f"study of {row}: the refinement ratios differ")
        coarse, fine = q[-2] - q[-3], q[-1] - q[-2]
        if coarse * fine > 0.0 and fine != 0.0:
            observed = math.log(abs(coarse / fine)) / math.log(r)
            if 0.5 * p_formal <= observed <= 2.0 * p_formal:
                p, safety, how = observed, SAFETY_OBSERVED, f"order {observed:.2f} observed"
            else:
                how = f"observed order {observed:.2f} outside [{0.5 * p_formal:g}, " \
                      f"{2 * p_formal:g}]: order {p_formal:g} assumed"
        else:
            oscillating = True
            how = f"oscillating: order {p_formal:g} assumed"
    extrapolated = q[-1] + (q[-1] - q[-2]) / (r ** p - 1.0)
    # A study made in another set-up (a smaller domain) lends the error of its row of the same
    # resolution.
    at = spec.get("at", row)
    if at not in ids:
        raise ValueError(f"{at} is not one of the rows of the study of {row}")
    error = safety * abs(q[ids.index(at)] - extrapolated)
    grid = "/".join(f"{c:g}" for c in cells)
    where = f" of {at}" if at != row else ""
    text = f"{safety:g} x |Q - Q_inf|"
    # An oscillating study extrapolates badly, and a coarse row can then sit by chance near Q_inf:
    # its error is at least half the range the study's values span (Stern et al. (2001)).
    if oscillating and 0.5 * (max(q) - min(q)) > error:
        error, text = 0.5 * (max(q) - min(q)), "half the range of the study's values"
    return error, (f"{error:.2g} discretization error{where}: {text} over the {grid} study "
                   f"({how}, Q_inf = {extrapolated:.4g})")


def predicted_error(bounds, rows, spec, row, quantity):
    """The error of `row` predicted from the error of a coarser row falling at a known order
    (for a quantity that is itself an error against an exact reference): Fs Y / r^p."""
    coarse = spec["row"]
    if coarse not in rows:
        raise KeyError(f"the prediction for {row} needs the row {coarse}")
    y = rows[coarse]["values"][quantity]
    r = bounds["rows"][row]["cells"] / bounds["rows"][coarse]["cells"]
    p = spec["order"]
    error = SAFETY_OBSERVED * y / r ** p
    return error, (f"{error:.2g} discretization error: {SAFETY_OBSERVED:g} x {y:.3g} (the error "
                   f"on {bounds['rows'][coarse]['cells']:g}) / {r:g}^{p:g}")


def bound_of(bounds, rows, row, quantity):
    """The check of one quantity of one row: a dict with kind, bound, reference, sources."""
    spec = bounds["rows"][row]["quantities"][quantity]
    kind = spec["kind"]
    if kind == "reported":
        return {"kind": kind, "sources": [spec["reason"]]}
    if kind == "minimum":
        return {"kind": kind, "bound": spec["formal_order"] - spec["allowance"],
                "reference": spec["formal_order"],
                "sources": [f"formal order {spec['formal_order']:g}: {spec['source']}"]}
    value, uncertainty, sources = reference_of(bounds, spec["reference"], spec.get("as", quantity))
    if kind == "deviation":
        value = 0.0  # the quantity is the largest deviation from the reference itself
    total = uncertainty
    terms = [f"{uncertainty:.2g} reference uncertainty ({sources[-1]})"]
    numerical = spec.get("numerical")
    if numerical:
        if "study" in numerical:
            error, text = study_error(bounds, rows, numerical["study"], row, quantity)
        else:
            error, text = predicted_error(bounds, rows, numerical["predicted"], row, quantity)
        total += error
        terms.append(text)
    for extra in spec.get("modelling", []):
        if "difference" in extra:
            a, b = extra["difference"]
            for r in (a, b):
                if r not in rows:
                    raise KeyError(f"the modelling error of {row} needs the row {r}")
            amount = abs(rows[a]["values"][quantity] - rows[b]["values"][quantity])
        else:
            amount = extra["value"]
        total += amount
        terms.append(f"{amount:.2g} {extra['source']}")
    return {"kind": kind, "bound": total, "reference": value, "title": sources[0],
            "sources": terms}


def _verdict(ok, known):
    if known:
        return "XPASS" if ok else "KNOWN"
    return "PASS" if ok else "FAIL"


def check(rows, wanted=None, out=sys.stdout, bounds=None):
    """Checks every quantity of the rows `wanted` (all rows in bounds.yaml that `rows` holds by
    default) and prints one line each; returns the number of failures."""
    bounds = bounds or load_bounds()
    failures = 0
    for row, spec in bounds["rows"].items():
        if wanted is not None and row not in wanted:
            continue
        if row not in rows:
            if wanted is not None:
                print(f"FAIL     {row}: not measured", file=out)
                failures += 1
            continue
        values = rows[row]["values"]
        for quantity in spec.get("quantities", {}):
            name = f"{row} {quantity}"
            if quantity not in values:
                print(f"FAIL     {name}: not measured", file=out)
                failures += 1
                continue
            value = values[quantity]
            try:
                b = bound_of(bounds, rows, row, quantity)
            except (KeyError, ValueError) as error:
                print(f"FAIL     {name} = {value:.5g}: no bound ({error})", file=out)
                failures += 1
                continue
            if b["kind"] == "reported":
                print(f"REPORTED {name} = {value:.5g} (no bound: {b['sources'][0]})", file=out)
                continue
            # A known failure is a disagreement with the reference that is understood to be
            # real and not yet resolved: it is printed as such, and it fails the check once it
            # holds its bound (then the record is out of date), like a strict expected failure.
            known = spec["quantities"][quantity].get("known_failure")
            if b["kind"] == "minimum":
                ok = value >= b["bound"]
                verdict = _verdict(ok, known)
                print(f"{verdict:8s} {name} = {value:.3f}, at least "
                      f"{b['bound']:.3f} ({b['sources'][0]})", file=out)
            else:
                deviation = value if b["kind"] == "deviation" else abs(value - b["reference"])
                ok = deviation <= b["bound"]
                verdict = _verdict(ok, known)
                against = ("deviation" if b["kind"] == "deviation"
                           else f"reference {b['reference']:.5g}, deviation {deviation:.3g}")
                print(f"{verdict:8s} {name} = {value:.5g} ({against}; "
                      f"{b['title']}), bound {b['bound']:.3g} =", file=out)
                for term in b["sources"]:
                    print(f"           + {term}", file=out)
            if known:
                print(f"           known failure: {known}" if not ok else
                      "           the known failure holds its bound now: remove known_failure "
                      "from tests/validation/bounds.yaml", file=out)
            failures += 0 if ok != bool(known) else 1
    return failures


# ---- tables ----------------------------------------------------------------------------------

class Cell:
    """How a table prints one quantity: the number in `spec`, optionally followed by its relative
    deviation from `reference` with `digits` decimals, optionally in bold."""

    def __init__(self, spec, reference=None, digits=1, bold=False):
        self.spec, self.reference, self.digits, self.bold = spec, reference, digits, bold

    def __call__(self, v, spec=None):
        if v is None:
            return "–"
        text = format(v, spec or self.spec)
        if self.reference is not None:
            text += f" ({100.0 * (v - self.reference) / self.reference:+.{self.digits}f} %)"
        text = text.replace("-", "−") if "e" not in text else text
        return f"**{text}**" if self.bold else text


def plain(spec):
    return Cell(spec)


def relative(reference, spec, digits=1, bold=False):
    """A value with its relative deviation from `reference`: '4.553 (+0.75 %)'."""
    return Cell(spec, reference, digits, bold)


class Minutes(Cell):
    """A wall time in seconds, printed in minutes."""

    def __init__(self):
        super().__init__(".1f")

    def __call__(self, v, spec=None):
        return "–" if v is None else f"{v / 60.0:.1f}"


minutes = Minutes()


# Each table: its marker name, its header, and its rows: (row id, fixed leading cells, the value
# columns as (quantity, formatter)). "wall" is the row's wall time. The rows of a long or a
# larger machine's study are footnoted with where and when they were measured.
def _tg_row(scheme, cfl):
    cells = [f"`{scheme.split('-')[0]}`, {scheme.split('-')[1]}", f"{cfl:g}"]
    cols = [(f"e{n}", plain(".1e")) for n in (32, 64, 128, 256, 512)] + [("order", plain(".2f"))]
    return (f"tg2d/{scheme}-cfl{cfl:g}", cells, cols)


TABLES = {
    "taylor_green_2d": {
        "header": ["scheme", "CFL", "32²", "64²", "128²", "256²", "512²", "order (last)"],
        "rows": [_tg_row("stam-linear", 1), _tg_row("stam-cubic", 1), _tg_row("bdf2-linear", 1)]
        + [_tg_row("bdf2-cubic", c) for c in (0.5, 1, 2, 4, 8)],
    },
    "taylor_green_2d_time": {
        "header": ["scheme", "grid", "dt = 1/2", "1/4", "1/8", "1/16", "1/32", "1/64",
                   "order (last)"],
        "rows": [("tg2d/bdf2-cubic-time", ["`bdf2`, cubic", "512²"],
                  [(f"s{s}", plain(".1e")) for s in (2, 4, 8, 16, 32, 64)]
                  + [("order", plain(".2f"))])],
    },
    "cavity_re1000": {
        "header": ["scheme", "grid", "dt", "max \\|u − ref\\| on x = 0.5",
                   "max \\|v − ref\\| on y = 0.5"],
        "rows": [(f"cavity1000/{s}-{n}-dt{dt:g}", [f"`{s.split('-')[0]}`, {s.split('-')[1]}",
                                                  f"{n}²", f"{dt:g}"],
                  [("u", plain(".4f")), ("v", plain(".4f"))])
                 for s, n, dt in (("stam-linear", 64, 0.01), ("stam-linear", 128, 0.01),
                                  ("bdf2-cubic", 64, 0.01), ("bdf2-cubic", 128, 0.01),
                                  ("bdf2-cubic", 128, 0.02))],
    },
    "cavity_ghia": {
        "header": ["Re", "grid", "max \\|u − ref\\| on x = 0.5", "max \\|v − ref\\| on y = 0.5"],
        "rows": [(f"ghia{re}/bdf2-cubic-{n}", [str(re), f"{n}²"],
                  [("u", plain(".4f")), ("v", plain(".4f"))])
                 for re, n in ((100, 64), (100, 128), (100, 256), (400, 64), (400, 128))],
    },
    "heated_cavity": {
        "header": ["scheme", "grid", "Nu", "u_max", "v_max"],
        "rows": [(f"heated/{s}-{n}", [f"`{s.split('-')[0]}`, {s.split('-')[1]}", f"{n}²"],
                  [("nu", relative(4.519, ".3f", 2)), ("u_max", relative(34.73, ".2f", 1)),
                   ("v_max", relative(68.59, ".2f", 1))])
                 for s, n in (("stam-linear", 32), ("stam-linear", 64), ("bdf2-cubic", 32),
                              ("bdf2-cubic", 64), ("bdf2-cubic", 128))],
    },
    "dfg_2d1": {
        "header": ["obstacle", "cells per diameter", "grid", "c_D", "c_L"],
        "rows": [(f"dfg1/{s}-{n}", ["`cut`" if s == "cut" else s, str(n), f"{22 * n} × "
                                    f"{round(4.1 * n)}"],
                  [("cd", relative(5.58, ".3f", 1)), ("cl", plain(".4f"))])
                 for s, n in (("staircase", 20), ("staircase", 40), ("cut", 10), ("cut", 20),
                              ("cut", 40))],
    },
    "dfg_2d2": {
        "header": ["obstacle", "cells per diameter", "dt", "St", "c_D,max", "c_L,max",
                   "minutes on 2 ranks"],
        "rows": [(f"dfg2/cut-{n}", ["`cut`", str(n), f"{dt:g}"],
                  [("st", plain(".4f")), ("cd_max", relative(3.23, ".3f", 1)),
                   ("cl_max", relative(1.0, ".3f", 1)), ("wall", minutes)])
                 for n, dt in ((10, 0.004), (20, 0.002), (40, 0.001))],
    },
    "cylinder": {
        "header": ["obstacle", "domain (upstream, lateral walls)", "cells per D", "St",
                   "mean c_D", "lift amplitude"],
        "rows": [(f"cylinder/{s}-{d}-{n}", ["`cut`" if s == "cut" else s, label, str(n)],
                  [("st", relative(0.164, ".4f", 1, bold=(d == "28x40"))),
                   ("cd_mean", plain(".2f")), ("amplitude", plain(".3f"))])
                 for s, d, label, n in (
                     ("staircase", "24x12", "24 × 12 D (6 D, ±6 D)", 20),
                     ("cut", "24x12", "24 × 12 D (6 D, ±6 D)", 20),
                     ("cut", "24x12", "24 × 12 D (6 D, ±6 D)", 30),
                     ("staircase", "20x32", "20 × 32 D (6 D, ±16 D)", 20),
                     ("cut", "20x32", "20 × 32 D (6 D, ±16 D)", 20),
                     ("cut", "28x32", "28 × 32 D (8 D, ±16 D)", 20),
                     ("cut", "28x40", "28 × 40 D (12 D, ±20 D)", 20))],
    },
    "taylor_green_3d": {
        "header": ["scheme", "grid", "peak of −dE/dt", "at t", "peak of ν⟨\\|∇u\\|²⟩ (resolved)",
                   "minutes"],
        "rows": [(f"tg3d/{s}-{n}", [f"`{s.split('-')[0]}`, {s.split('-')[1]}", f"{n}³"],
                  [("eps_peak", relative(0.0127, ".5f", 1)), ("t_peak", plain(".2f")),
                   ("resolved_peak", plain(".5f")), ("wall", minutes)])
                 for s, n in (("stam-linear", 64), ("bdf2-cubic", 32), ("bdf2-cubic", 64),
                              ("bdf2-cubic", 128))],
    },
}


def footnote(entry, spec):
    """Where and when a row that the default run does not repeat was measured, and how to
    repeat it (bounds.yaml names the case, or says why none can)."""
    m = entry.get("measured", {})
    text = f"measured {m.get('date', '?')} at {m.get('commit', '?')} on {m.get('machine', '?')}"
    if entry.get("ranks"):
        text += f", {entry['ranks']} ranks"
    if spec.get("note"):
        text += f"; {spec['note']}"
    if spec.get("long"):
        text += f"; not in the default run: `tests/validation/run {spec['long']}` repeats it"
    return text + "."


def render(name, rows, bounds):
    """The markdown of table `name` from the rows (expected results merged with a run's)."""
    table = TABLES[name]
    lines = ["| " + " | ".join(table["header"]) + " |",
             "|" + "---|" * len(table["header"])]
    notes = []
    for row, cells, cols in table["rows"]:
        entry = rows.get(row)
        if entry is None:
            continue
        values = dict(entry["values"])
        if "wall_seconds" in entry:
            values["wall"] = entry["wall_seconds"]
        lead = list(cells)
        spec = bounds["rows"].get(row, {})
        if spec.get("long") or spec.get("note"):
            note = footnote(entry, spec)
            if note not in notes:
                notes.append(note)
            lead[0] += f" [{notes.index(note) + 1}]"
        # A row recorded with fewer digits than the column prints keeps its own ("formats").
        own = entry.get("formats", {})
        lines.append("| " + " | ".join(lead + [fmt(values.get(q), own.get(q))
                                               for q, fmt in cols]) + " |")
    if notes:
        lines.append("")
        lines += [f"- [{i}] {n}" for i, n in enumerate(notes, 1)]
    return "\n".join(lines) + "\n"


def render_all(rows):
    bounds = load_bounds()
    return {name: render(name, rows, bounds) for name in TABLES}


BLOCK = re.compile(r"<!-- validation:begin (\S+) -->\n(.*?)<!-- validation:end -->", re.S)


def readme_blocks(text):
    return {m.group(1): m.group(2) for m in BLOCK.finditer(text)}


def update_readme(path, tables):
    with open(path) as f:
        text = f.read()
    found = readme_blocks(text)
    missing = sorted(set(tables) - set(found))
    if missing:
        raise SystemExit(f"{path}: no markers for the tables {', '.join(missing)}")
    text = BLOCK.sub(lambda m: f"<!-- validation:begin {m.group(1)} -->\n"
                     f"{tables.get(m.group(1), m.group(2))}<!-- validation:end -->", text)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def check_readme(path, tables, out=sys.stdout):
    with open(path) as f:
        found = readme_blocks(f.read())
    failures = 0
    for name, table in tables.items():
        if name not in found:
            print(f"FAIL docs/validation.md table {name}: no <!-- validation:begin {name} --> "
                  "marker", file=out)
            failures += 1
        elif found[name] != table:
            print(f"FAIL docs/validation.md table {name} differs from "
                  f"tests/validation/expected_results.json; it should read:\n{table}", file=out)
            failures += 1
    for name in sorted(set(found) - set(tables)):
        print(f"FAIL docs/validation.md table {name}: no such table", file=out)
        failures += 1
    return failures


def last_digit(fmt):
    """The size of one unit in the last digit that a format prints of values near `v`."""
    def unit(v):
        text = format(v, fmt)
        mantissa = text.split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exponent = int(text.split("e")[1]) if "e" in text else 0
        return 10.0 ** (exponent - decimals)
    return unit


def drift(results, wanted, out=sys.stdout):
    """Rows of this run whose values, as the tables print them, differ from the expected ones by
    more than one unit in the last printed digit (a value that rounds the other way across a
    digit is not drift). Wall times are not compared."""
    expected = load_results(EXPECTED)["rows"]
    formats = {}
    for table in TABLES.values():
        for row, _cells, cols in table["rows"]:
            for quantity, fmt in cols:
                formats[(row, quantity)] = fmt
    count = 0
    for row in wanted:
        if row not in results["rows"]:
            continue
        if row not in expected:
            print(f"DRIFT    {row}: new row, not in tests/validation/expected_results.json",
                  file=out)
            count += 1
            continue
        new, old = results["rows"][row]["values"], expected[row]["values"]
        for quantity in sorted(set(new) | set(old)):
            if quantity not in new or quantity not in old:
                print(f"DRIFT    {row} {quantity}: measured in one run only", file=out)
                count += 1
                continue
            if isinstance(formats.get((row, quantity)), Minutes):
                continue
            spec = formats[(row, quantity)].spec if (row, quantity) in formats else ".4g"
            a, b = new[quantity], old[quantity]
            if format(a, spec) == format(b, spec):
                continue
            if abs(a - b) <= 1.0001 * last_digit(spec)(b):
                continue
            print(f"DRIFT    {row} {quantity} = {format(a, spec)}, expected {format(b, spec)}",
                  file=out)
            count += 1
    return count


def selftest():
    """The checker's own arithmetic on studies with known answers; the number of failures."""
    failures = 0

    def expect(what, got, want, tolerance=1e-12):
        nonlocal failures
        if abs(got - want) > tolerance * max(1.0, abs(want)):
            print(f"FAIL selftest {what}: {got!r}, expected {want!r}")
            failures += 1

    bounds = {"rows": {f"s/{n}": {"cells": n} for n in (8, 16, 32)}}
    # Q(h) = 1 + h^2 exactly: the three grids show order 2 and extrapolate to 1, so the error
    # of each row is 1.25 (its distance from 1).
    rows = {f"s/{n}": {"values": {"q": 1.0 + (1.0 / n) ** 2}} for n in (8, 16, 32)}
    study = {"rows": ["s/8", "s/16", "s/32"], "order": 2}
    for n in (8, 16, 32):
        error, _ = study_error(bounds, rows, study, f"s/{n}", "q")
        expect(f"order-2 study, error on {n}", error, 1.25 * (1.0 / n) ** 2)
    # Q(h) = 1 + h at formal order 2: the observed order 1 lies in [1, 4] and is used.
    rows = {f"s/{n}": {"values": {"q": 1.0 + 1.0 / n}} for n in (8, 16, 32)}
    expect("order-1 study, error on 32", study_error(bounds, rows, study, "s/32", "q")[0],
           1.25 / 32)
    # Oscillating changes: order 2 assumed, factor 3, extrapolated from the two finest.
    rows = {"s/8": {"values": {"q": 1.1}}, "s/16": {"values": {"q": 0.9}},
            "s/32": {"values": {"q": 1.0}}}
    expect("oscillating study, error on 32", study_error(bounds, rows, study, "s/32", "q")[0],
           3.0 * 0.1 / 3.0)
    # Oscillating changes where the coarsest row sits on Q_inf: half the study's range instead.
    near = {"s/8": {"values": {"q": 1.0}}, "s/16": {"values": {"q": 1.2}},
            "s/32": {"values": {"q": 1.05}}}
    expect("oscillating study, error on 8", study_error(bounds, near, study, "s/8", "q")[0], 0.1)
    # Two grids: order 2 assumed, factor 3.
    two = {"rows": ["s/16", "s/32"], "order": 2}
    expect("two-grid study, error on 16", study_error(bounds, rows, two, "s/16", "q")[0],
           3.0 * abs(0.9 - (1.0 + 0.1 / 3.0)))
    # A coarser error predicts a finer one: 1.25 Y / r^p.
    bounds["rows"]["s/32"]["quantities"] = {}
    rows = {"s/16": {"values": {"q": 0.04}}}
    expect("prediction", predicted_error(bounds, rows, {"row": "s/16", "order": 2}, "s/32", "q")[0],
           1.25 * 0.04 / 4.0)
    # One unit in the last digit printed.
    expect("last digit, .4f", last_digit(".4f")(0.12345), 1e-4)
    expect("last digit, .1e", last_digit(".1e")(2.3e-5), 1e-6)
    print("selftest: " + (f"{failures} failures" if failures else "the checker's arithmetic holds"))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check")
    c.add_argument("--results", default=EXPECTED)
    c.add_argument("--rows", nargs="*")
    t = sub.add_parser("tables")
    t.add_argument("--results")
    t.add_argument("--out", required=True)
    r = sub.add_parser("readme")
    mode = r.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    r.add_argument("--readme", default=README)
    r.add_argument("--results")
    d = sub.add_parser("drift")
    d.add_argument("--results", required=True)
    d.add_argument("--rows", nargs="*")
    sub.add_parser("selftest")
    a = sub.add_parser("accept")
    a.add_argument("--results", required=True)
    a.add_argument("--rows", nargs="*")
    args = parser.parse_args()

    if args.command == "selftest":
        return 1 if selftest() else 0
    if args.command == "check":
        rows = merged(load_results(args.results))
        failures = check(rows, set(args.rows) if args.rows else None)
        print(f"{failures} quantities outside their bounds" if failures else
              "all within their bounds, but for the known failures (KNOWN) if any")
        return 1 if failures else 0
    if args.command == "tables":
        tables = render_all(merged(load_results(args.results)))
        with open(args.out, "w") as f:
            for name, table in tables.items():
                f.write(f"<!-- validation:begin {name} -->\n{table}<!-- validation:end -->\n\n")
        return 0
    if args.command == "readme":
        tables = render_all(merged(load_results(args.results)))
        if args.update:
            update_readme(args.readme, tables)
            return 0
        failures = check_readme(args.readme, tables)
        return 1 if failures else 0
    if args.command == "drift":
        results = load_results(args.results)
        count = drift(results, args.rows or list(results["rows"]))
        return 1 if count else 0
    if args.command == "accept":
        results = load_results(args.results)
        expected = load_results(EXPECTED)
        for row in args.rows or list(results["rows"]):
            if row in results["rows"]:
                expected["rows"][row] = results["rows"][row]
        save_results(EXPECTED, expected)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
