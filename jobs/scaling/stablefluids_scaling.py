#!/usr/bin/python3
"""Strong and weak scaling studies of stablefluids: one command from a study to efficiency plots.

A *study* is a small YAML file naming a base job and the rank counts to run it on:

    name: plume_strong
    base_job: ../../plume_3d.yaml     # relative to the study file
    kind: strong                      # strong | weak
    ranks: [1, 2, 4]
    steps: 10                         # every run takes exactly this many steps
    repetitions: 3                    # runs per rank count; the median is reported
    petsc_options: ""                 # optional, appended to every run's command line
    output: results/plume_strong      # optional, relative to the study file;
                                      # default results/<name>
    # optional:
    # dt: 0.05                        # the fixed step; default: the job's time.dt, or its
    #                                 # time.dt_max for an adaptive (cfl) job
    # timeout: 1800                   # seconds per local run (default 1800)
    # catalyst: drop                  # drop (default) | keep: the base job's catalyst section
    # set: {grid.cells: [128, 48, 48]}  # job keys replaced in every run, as the solver's --set
    # stream_elements: 16777216       # doubles per STREAM array (default: the program's, 2^23)
    # slurm: {time: "00:30:00", partition: ..., account: ..., ntasks_per_node: 64, exclusive: true}

A strong study keeps the grid of the base job (``grid.cells``) fixed. A weak study needs a base
job with ``grid.cells_per_rank`` instead of ``grid.cells``: the solver multiplies it by its
MPI_Dims_create process grid; the driver never computes cells itself and takes them from each
run's timings JSON.

Every run is the base job with ``name`` set to ``<study>_r<ranks>_rep<k>``, ``time`` replaced by
a fixed step ``{dt, end: steps * dt}``, ``output`` sent to the run's directory with no frames,
``checkpoint`` removed, and ``catalyst`` removed unless the study says ``catalyst: keep``
(rendering is not what a scaling study measures, and a script named relative to the base job
would not be found from the run's job file). With ``keep``, every script path is made absolute
against the base job's directory, and a relative ``catalyst.directory`` is put under the run's
directory. ``set`` replaces keys of the base job (dotted paths, ``grid.cells``) before all
that, e.g. to run a shipped job on a finer grid; ``name``, ``time``, ``output`` and
``checkpoint`` are the driver's and cannot be set. The job is written to
``<output>/runs/r<ranks>_rep<k>/job.yaml`` and run there; the solver leaves
``<name>_timings.json`` and ``<name>_steps.csv`` beside it, and the run's output goes to
``run.log``.

At each rank count, the STREAM triad program (``stream_triad``, built beside the solver) runs
before the solver, in the run's directory, under the same launcher with the same rank count,
and leaves its one JSON line in ``stream.log``: the memory bandwidth per rank and in all that
these ranks get on these nodes, and the machine (host, CPU model, cores) and launcher, recorded
where the ranks ran. Locally it runs once per rank count, before the first repetition (the
machine is the same for all of them); in a Slurm study, inside every array task before its
solver run (each task has an allocation of its own, on the compute nodes).

Subcommands (all take the study file; ``--output DIR`` overrides the study's output directory,
and ``--steps N``, ``--repetitions N`` and ``--ranks 1,2`` the study's values, for a quick
check of a large study; give ``collect`` and ``plot`` the same overrides as ``run``;
``run`` also takes ``--stream-elements N``):

    run STUDY [--dry-run] [--slurm]   run every (ranks, repetition) pair locally under mpiexec,
                                      or with --slurm write Slurm array jobs instead, one per
                                      rank count, each asking for its ranks
                                      (<output>/slurm_r<ranks>.sbatch, slurm_tasks.txt, and
                                      slurm_submit.sh, which submits them all)
    collect STUDY                     median over repetitions -> <output>/results.csv, results.md
    plot STUDY                        time_per_step.png, speedup.png, stages.png in <output>/
    all STUDY                         run, collect and plot

Definitions (N0 = the smallest rank count, t(N) = median seconds per step on N ranks):
strong: speed-up = N0 t(N0) / t(N) (t1/tN when N0 = 1), efficiency = N0 t(N0) / (N t(N));
weak: speed-up and efficiency are both the weak efficiency t(N0) / t(N).
Bandwidth bound (B_rank, B_total = median STREAM bandwidth per rank and in all on N ranks): the
efficiency a code limited by memory bandwidth alone reaches, B_rank(N) / B_rank(N0)
(= B_total(N) / B_total(N0) * N0 / N), strong or weak; the strong speed-up bound is
N0 B_total(N) / B_total(N0).

The executable is ``--exe``, else ``$STABLEFLUIDS_BUILD_DIR/stablefluids``, else
``build/stablefluids`` in the source tree; the STREAM program is ``--stream-exe``, else
``stream_triad`` in the solver's directory. The launcher is ``--mpiexec`` (default ``mpiexec``);
Open MPI gets ``--oversubscribe`` and, as root, OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM).

Ctrl-C, SIGTERM or SIGHUP stop a study: the run in progress is ended with the driver, and the
status is 128 + the signal's number (130, 143, 129); run the study again to complete it.

Only the standard library, PyYAML and matplotlib (Agg) are used; run it with /usr/bin/python3
(or jobs/scaling/run).
"""

import argparse
import csv
import json
import math
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import textwrap
import time

import yaml

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(SCRIPT_DIR))
TEMPLATE = os.path.join(SOURCE_DIR, "jobs", "slurm", "array.sbatch.in")

STUDY_KEYS = {"name", "base_job", "kind", "ranks", "steps", "repetitions", "petsc_options",
              "output", "dt", "timeout", "slurm", "catalyst", "set", "stream_elements"}
# What the driver itself decides in every run's job: a study cannot `set` them.
DRIVER_KEYS = ("name", "time", "output", "checkpoint")
SLURM_KEYS = {"time", "partition", "account", "ntasks_per_node", "exclusive"}
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]+$")
DEFAULT_TIMEOUT = 1800.0
STAGE_ORDER = ["forces", "advect", "diffuse", "project", "surface", "obstacles", "output",
               "insitu"]
STREAM_PROGRAM = "stream_triad"
# The results' text columns (read back as text by `plot`, whatever they look like).
TEXT_COLUMNS = {"process_grid", "cells", "host", "cpu_model", "launcher", "mpi_library"}


class ScalingError(Exception):
    """A problem reported to the user as one message, with exit status 1."""


class Stopped(Exception):
    """SIGTERM or SIGHUP arrived (SIGINT arrives as KeyboardInterrupt): the study stops."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def raise_stopped(signum, _frame):
    raise Stopped(signum)


# ----------------------------------------------------------------------------------------------
# YAML: PyYAML follows YAML 1.1, which reads 1e-8 (no dot) as a string. The solver (yaml-cpp)
# reads it as a number, so resolve such scalars as floats too and write them back unquoted.

class _Loader(yaml.SafeLoader):
    """SafeLoader that also resolves YAML 1.2 floats such as 1e-8 and 5e3."""


_Loader.yaml_implicit_resolvers = {k: list(v) for k, v in
                                   yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


def load_yaml(path, what):
    """Read a YAML file; a missing or malformed file is a ScalingError naming it."""
    try:
        with open(path, encoding="utf-8") as handle:
            return yaml.load(handle, Loader=_Loader)
    except OSError as err:
        raise ScalingError(f"cannot read {what} '{path}': {err.strerror}") from None
    except yaml.YAMLError as err:
        raise ScalingError(f"{what} '{path}' is not valid YAML: {err}") from None


def dump_yaml(data):
    """YAML text of a job, keys in their original order, lists of scalars in flow style."""
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100)


# ----------------------------------------------------------------------------------------------
# The study

class Study:
    """A parsed and checked study file, with its paths resolved."""

    def __init__(self, path, output_override=None, overrides=None):
        """overrides: values for 'steps', 'repetitions', 'ranks' or 'stream_elements' that
        replace the study's (from the command line), checked like the study's own."""
        self.path = os.path.abspath(path)
        data = load_yaml(self.path, "study")
        if not isinstance(data, dict):
            raise ScalingError(f"{path}: a study must be a YAML map")
        data.update({k: v for k, v in (overrides or {}).items() if v is not None})
        unknown = sorted(set(data) - STUDY_KEYS)
        if unknown:
            raise ScalingError(f"{path}: unknown key(s) {', '.join(unknown)} "
                               f"(expected: {', '.join(sorted(STUDY_KEYS))})")
        for key in ("name", "base_job", "kind", "ranks", "steps", "repetitions"):
            if key not in data:
                raise ScalingError(f"{path}: missing required key '{key}'")
        here = os.path.dirname(self.path)
        self.name = str(data["name"])
        if not NAME_PATTERN.match(self.name):
            raise ScalingError(f"{path}: name '{self.name}' may hold only letters, digits, "
                               "'_', '.' and '-'")
        self.base_job = os.path.normpath(os.path.join(here, str(data["base_job"])))
        self.kind = data["kind"]
        if self.kind not in ("strong", "weak"):
            raise ScalingError(f"{path}: kind must be 'strong' or 'weak', got {self.kind!r}")
        ranks = data["ranks"]
        if (not isinstance(ranks, list) or not ranks
                or not all(_positive_int(r) for r in ranks)):
            raise ScalingError(f"{path}: ranks must be a non-empty list of positive integers")
        if len(set(ranks)) != len(ranks):
            raise ScalingError(f"{path}: ranks lists a value twice: {ranks}")
        self.ranks = sorted(ranks)
        for key in ("steps", "repetitions"):
            if not _positive_int(data[key]):
                raise ScalingError(f"{path}: {key} must be a positive integer, "
                                   f"got {data[key]!r}")
        self.steps = data["steps"]
        self.repetitions = data["repetitions"]
        petsc = data.get("petsc_options") or ""
        if not isinstance(petsc, str):
            raise ScalingError(f"{path}: petsc_options must be a string")
        try:
            self.petsc_options = shlex.split(petsc)
        except ValueError as err:
            raise ScalingError(f"{path}: petsc_options: {err}") from None
        self.dt = data.get("dt")
        if self.dt is not None and not _positive_number(self.dt):
            raise ScalingError(f"{path}: dt must be a positive number, got {self.dt!r}")
        self.timeout = data.get("timeout", DEFAULT_TIMEOUT)
        if not _positive_number(self.timeout):
            raise ScalingError(f"{path}: timeout must be a positive number of seconds")
        self.catalyst = data.get("catalyst", "drop")
        if self.catalyst not in ("drop", "keep"):
            raise ScalingError(f"{path}: catalyst must be 'drop' or 'keep', "
                               f"got {self.catalyst!r}")
        self.set = data.get("set") or {}
        if not isinstance(self.set, dict) or not all(isinstance(k, str) and k
                                                     for k in self.set):
            raise ScalingError(f"{path}: set must be a map of job keys (grid.cells: ...) to "
                               "values")
        for key in self.set:
            if key.split(".")[0] in DRIVER_KEYS:
                raise ScalingError(f"{path}: set: '{key}' is the driver's in every run; use "
                                   "the study's steps, dt and output instead")
        self.stream_elements = data.get("stream_elements")
        if self.stream_elements is not None and not _positive_int(self.stream_elements):
            raise ScalingError(f"{path}: stream_elements must be a positive integer, got "
                               f"{self.stream_elements!r}")
        self.slurm = data.get("slurm") or {}
        if not isinstance(self.slurm, dict) or set(self.slurm) - SLURM_KEYS:
            raise ScalingError(f"{path}: slurm must be a map with keys among "
                               f"{', '.join(sorted(SLURM_KEYS))}")
        if output_override:
            self.output = os.path.abspath(output_override)
        else:
            self.output = os.path.normpath(
                os.path.join(here, str(data.get("output") or f"results/{self.name}")))

    def runs(self):
        """Every (ranks, repetition) pair, repetitions numbered from 1, as Run objects."""
        return [Run(self, n, k) for n in self.ranks for k in range(1, self.repetitions + 1)]


class Run:
    """One run of a study: its rank count, repetition, directory and file names."""

    def __init__(self, study, ranks, repetition):
        self.ranks = ranks
        self.repetition = repetition
        self.name = f"{study.name}_r{ranks}_rep{repetition}"
        self.directory = os.path.join(study.output, "runs", f"r{ranks}_rep{repetition}")
        self.job = os.path.join(self.directory, "job.yaml")
        self.log = os.path.join(self.directory, "run.log")
        self.timings = os.path.join(self.directory, f"{self.name}_timings.json")
        self.steps_csv = os.path.join(self.directory, f"{self.name}_steps.csv")
        self.stream_log = os.path.join(self.directory, "stream.log")


def _positive_int(value):
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _positive_number(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


# ----------------------------------------------------------------------------------------------
# Derived jobs

def read_base_job(study):
    """The base job as a dict, checked against the kind of study."""
    job = load_yaml(study.base_job, "base job")
    if isinstance(job, dict):
        for key, value in study.set.items():
            apply_set(study, job, key, value)
    if not isinstance(job, dict) or not isinstance(job.get("grid"), dict):
        raise ScalingError(f"base job '{study.base_job}' has no grid map")
    grid = job["grid"]
    if study.kind == "weak" and "cells_per_rank" not in grid:
        raise ScalingError(f"{study.path}: a weak study needs a base job with "
                           f"grid.cells_per_rank; '{study.base_job}' has "
                           f"{'grid.cells' if 'cells' in grid else 'neither'}")
    if study.kind == "strong" and "cells" not in grid:
        raise ScalingError(f"{study.path}: a strong study needs a base job with grid.cells "
                           f"(a fixed grid); '{study.base_job}' has none")
    return job


def apply_set(study, job, key, value):
    """Replace one dotted key of the job (creating maps on the way), as the solver's --set
    does; a path through a value that is not a map is an error."""
    parts = key.split(".")
    node = job
    for i, part in enumerate(parts[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ScalingError(f"{study.path}: set: '{'.'.join(parts[:i + 1])}' in the base job "
                               f"is not a map, so '{key}' cannot be set")
        node = child
    node[parts[-1]] = value


def fixed_dt(study, job):
    """The fixed time step of every run: the study's dt, the job's dt or its dt_max."""
    if study.dt is not None:
        return study.dt
    timing = job.get("time") or {}
    for key in ("dt", "dt_max"):
        if _positive_number(timing.get(key)):
            return timing[key]
    raise ScalingError(f"base job '{study.base_job}' has neither time.dt nor time.dt_max; "
                       "give the study a dt")


def derive_job(study, base, run):
    """The job of one run: fixed steps, output in the run directory, no frames or checkpoints."""
    job = dict(base)
    job["name"] = run.name
    dt = fixed_dt(study, base)
    job["time"] = {"dt": dt, "end": study.steps * dt}
    # The run directory belongs to the driver: a repeated study (or a resubmitted array task)
    # replaces that run's files rather than being refused over them.
    job["output"] = {"directory": run.directory, "interval": 0, "initial_frame": False,
                     "overwrite": True}
    job.pop("checkpoint", None)
    if study.catalyst == "keep" and job.get("catalyst"):
        job["catalyst"] = kept_catalyst(study, job["catalyst"], run)
    else:
        job.pop("catalyst", None)
    return job


def kept_catalyst(study, section, run):
    """The base job's catalyst section for a run's job file, which lives in another directory:
    the solver reads script paths relative to the job file, so they are made absolute against
    the base job's directory; a relative output directory (relative to the working directory,
    which is the run's) is spelt out under the run's directory."""
    if not isinstance(section, dict):
        return section  # malformed: the solver reports it with the job's line
    section = dict(section)
    here = os.path.dirname(study.base_job)
    scripts = []
    for entry in section.get("scripts") or []:
        if isinstance(entry, dict) and isinstance(entry.get("script"), str):
            entry = dict(entry)
            entry["script"] = os.path.normpath(os.path.join(here, entry["script"]))
        scripts.append(entry)
    if scripts:
        section["scripts"] = scripts
    directory = section.get("directory")
    if isinstance(directory, str) and directory and not os.path.isabs(directory):
        section["directory"] = os.path.normpath(os.path.join(run.directory, directory))
    return section


def write_job(study, base, run):
    """Write the derived job file of a run (creating its directory)."""
    os.makedirs(run.directory, exist_ok=True)
    header = (f"# Generated by stablefluids_scaling.py for study '{study.name}' from\n"
              f"# {study.base_job}: {run.ranks} ranks, repetition {run.repetition}, "
              f"{study.steps} steps.\n")
    header += "".join(f"# set by the study: {key} = {value}\n" for key, value in study.set.items())
    with open(run.job, "w", encoding="utf-8") as handle:
        handle.write(header + dump_yaml(derive_job(study, base, run)))


# ----------------------------------------------------------------------------------------------
# Running locally

def find_executable(args):
    """The stablefluids executable: --exe, $STABLEFLUIDS_BUILD_DIR or build/ in the source."""
    if args.exe:
        return os.path.abspath(args.exe)
    build = os.environ.get("STABLEFLUIDS_BUILD_DIR") or os.path.join(SOURCE_DIR, "build")
    return os.path.abspath(os.path.join(build, "stablefluids"))


def find_stream_executable(args, exe):
    """The STREAM triad program: --stream-exe, else stream_triad beside the solver (the build
    puts both in the build directory)."""
    if args.stream_exe:
        return os.path.abspath(args.stream_exe)
    return os.path.join(os.path.dirname(exe), STREAM_PROGRAM)


def stream_command(prefix, stream_exe, study, run, launcher_text):
    """The command line of a run's STREAM measurement: the run's launcher and rank count."""
    command = prefix + ["-n", str(run.ranks), stream_exe, "--launcher", launcher_text]
    if study.stream_elements:
        command += ["--elements", str(study.stream_elements)]
    return command


def launcher(args):
    """The mpiexec command prefix (without -n) and the environment to run it in."""
    command = shlex.split(args.mpiexec)
    if not command or shutil.which(command[0]) is None:
        raise ScalingError(f"cannot find the MPI launcher '{args.mpiexec}' (use --mpiexec)")
    env = dict(os.environ)
    try:
        version = subprocess.run(command + ["--version"], capture_output=True, text=True,
                                 timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        version = ""
    if "Open MPI" in version or "OpenRTE" in version:
        command.append("--oversubscribe")
        if os.geteuid() == 0:
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return command, env


def run_command(prefix, exe, study, run):
    """The full command line of one run."""
    return prefix + ["-n", str(run.ranks), exe, run.job] + study.petsc_options


def log_tail(path, lines=25):
    """The last lines of a log file, indented, for an error message."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            tail = handle.read().splitlines()[-lines:]
    except OSError:
        return "    (no log)"
    return "\n".join("    " + line for line in tail)


def end_group(process):
    """End a run's process group: SIGTERM (mpiexec then ends its ranks), SIGKILL 10 s later.
    Further stop signals wait until it is done, so that none can leave the run behind."""
    stops = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    except ProcessLookupError:
        process.wait()
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)


def execute(command, env, cwd, log_path, timeout):
    """Run a command in its own process group, output to log_path; its status, or None on
    timeout (the whole group is then killed). The group is away from the terminal's Ctrl-C, so
    a stop of the driver (KeyboardInterrupt, Stopped) ends it here before going on up."""
    with open(log_path, "w", encoding="utf-8") as log:
        log.write("$ " + " ".join(shlex.quote(c) for c in command) + "\n")
        log.flush()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            end_group(process)
            return None
        except BaseException:
            end_group(process)
            raise


def run_local(study, args):
    """Run every (ranks, repetition) pair of the study under mpiexec, one after the other."""
    base = read_base_job(study)
    exe = find_executable(args)
    stream_exe = find_stream_executable(args, exe)
    runs = study.runs()
    timeout = args.timeout or study.timeout
    if args.dry_run:
        prefix = shlex.split(args.mpiexec) + ["--oversubscribe"]
        print(f"study {study.name} ({study.kind}): {len(runs)} runs of {study.steps} steps, "
              f"dt = {fixed_dt(study, base)}, from {study.base_job}"
              + "".join(f", {key} = {value}" for key, value in study.set.items())
              + ", a STREAM measurement before the first run of each rank count")
        for run in runs:
            stream = stream_command(prefix, stream_exe, study, run, " ".join(prefix))
            print(f"  write {run.job}")
            print(f"  (cd {run.directory} && "
                  + ("".join(shlex.quote(c) + " " for c in stream) + "> stream.log 2>&1 && "
                     if run.repetition == 1 else "")
                  + " ".join(shlex.quote(c) for c in run_command(prefix, exe, study, run))
                  + " > run.log 2>&1)")
        print(f"results would go to {study.output}")
        return
    if not os.access(exe, os.X_OK):
        raise ScalingError(f"no stablefluids executable at '{exe}': build it, or give --exe "
                           "or STABLEFLUIDS_BUILD_DIR")
    if not os.access(stream_exe, os.X_OK):
        raise ScalingError(f"no {STREAM_PROGRAM} executable at '{stream_exe}': build it "
                           f"(cmake --build <build dir> --target {STREAM_PROGRAM}), or give "
                           "--stream-exe")
    prefix, env = launcher(args)
    launcher_text = " ".join(prefix)
    for index, run in enumerate(runs, 1):
        write_job(study, base, run)
        for stale in (run.timings, run.steps_csv, run.stream_log):
            if os.path.exists(stale):
                os.remove(stale)
        command = run_command(prefix, exe, study, run)
        print(f"[{index}/{len(runs)}] {run.ranks} ranks, repetition {run.repetition} ... ",
              end="", flush=True)
        if run.repetition == 1:
            measure_stream(prefix, env, stream_exe, study, run, launcher_text, timeout)
        start = time.monotonic()
        status = execute(command, env, run.directory, run.log, timeout)
        elapsed = time.monotonic() - start
        if status is None:
            print("timed out", flush=True)
            raise ScalingError(f"run {run.name} did not finish within {timeout:g} s "
                               f"(timeout); the end of {run.log}:\n{log_tail(run.log)}")
        if status != 0:
            print(f"failed (status {status})", flush=True)
            raise ScalingError(failure_message(run, status))
        timings = read_timings(run)
        if timings.get("steps") != study.steps:
            raise ScalingError(f"run {run.name} took {timings.get('steps')} steps instead of "
                               f"{study.steps}; see {run.log}")
        print(f"{timings['seconds_per_step']:.4g} s/step ({elapsed:.1f} s)")
    print(f"{len(runs)} runs done; results in {study.output}/runs")


def measure_stream(prefix, env, stream_exe, study, run, launcher_text, timeout):
    """The STREAM measurement of a rank count, before its first run: the bandwidth these ranks
    get, started the same way as the solver, so that both see the same placement of ranks on
    cores and memory. Once per rank count: the repetitions run on the same machine, and each
    launch costs the start of an MPI job."""
    stream = stream_command(prefix, stream_exe, study, run, launcher_text)
    status = execute(stream, env, run.directory, run.stream_log, timeout)
    if status != 0:
        print("STREAM failed", flush=True)
        raise ScalingError(f"the STREAM measurement of run {run.name} "
                           + ("timed out" if status is None else f"failed with status {status}")
                           + f"; the end of {run.stream_log}:\n" + log_tail(run.stream_log))
    record = read_stream(run)
    if record is None:
        raise ScalingError(f"the STREAM measurement of run {run.name} printed no result; "
                           f"the end of {run.stream_log}:\n{log_tail(run.stream_log)}")
    print(f"STREAM {record['bytes_per_second_per_rank'] / 1e9:.3g} GB/s per rank, ",
          end="", flush=True)


def failure_message(run, status):
    """The message for a failed run, with a hint when the solver lacks grid.cells_per_rank."""
    tail = log_tail(run.log)
    message = f"run {run.name} failed with status {status}; the end of {run.log}:\n{tail}"
    if re.search(r"cells_per_rank: unknown key", tail):
        message += ("\nthis solver does not accept grid.cells_per_rank, which weak studies "
                    "need: rebuild it from a source that has the key")
    return message


# ----------------------------------------------------------------------------------------------
# Slurm

def write_slurm(study, args):
    """Write the derived jobs, the task table, one array script per rank count and the script
    that submits them all; print how to submit and collect."""
    base = read_base_job(study)
    exe = find_executable(args)
    stream_exe = find_stream_executable(args, exe)
    runs = study.runs()
    try:
        with open(TEMPLATE, encoding="utf-8") as handle:
            template = handle.read()
    except OSError as err:
        raise ScalingError(f"cannot read the Slurm template '{TEMPLATE}': {err.strerror}")
    # The tasks of one array job share one resource request, so every rank count gets an array
    # of its own, sized for it; task numbers stay those of the one task table.
    arrays = {}
    for task, run in enumerate(runs):
        arrays.setdefault(run.ranks, []).append(task)
    scripts = {n: os.path.join(study.output, f"slurm_r{n}.sbatch") for n in arrays}
    submit = os.path.join(study.output, "slurm_submit.sh")
    if args.dry_run:
        print(f"would write {len(runs)} job files under {study.output}/runs, "
              f"{study.output}/slurm_tasks.txt, {submit} and")
        for n, tasks_of_n in arrays.items():
            print(f"  {scripts[n]} (--ntasks={n} --array={_array_range(tasks_of_n)})")
        return
    os.makedirs(study.output, exist_ok=True)
    tasks = os.path.join(study.output, "slurm_tasks.txt")
    with open(tasks, "w", encoding="utf-8") as handle:
        handle.write(f"# study {study.name}: one line per array task\n"
                     "# task ranks repetition run_directory job_file\n")
        for task, run in enumerate(runs):
            write_job(study, base, run)
            handle.write(f"{task} {run.ranks} {run.repetition} {run.directory} {run.job}\n")
    slurm = study.slurm
    extra = []
    if slurm.get("partition"):
        extra.append(f"#SBATCH --partition={slurm['partition']}")
    if slurm.get("account"):
        extra.append(f"#SBATCH --account={slurm['account']}")
    if slurm.get("ntasks_per_node"):
        extra.append(f"#SBATCH --ntasks-per-node={int(slurm['ntasks_per_node'])}")
    if slurm.get("exclusive", True):
        extra.append("#SBATCH --exclusive")
    for n, tasks_of_n in arrays.items():
        values = {
            "STUDY": study.name,
            "RANKS": str(n),
            "ARRAY": _array_range(tasks_of_n),
            "TIME": str(slurm.get("time", "01:00:00")),
            "EXTRA_SBATCH": "\n".join(extra) if extra else "# (no partition or account set)",
            "OUTPUT": shlex.quote(study.output),
            "TASKS": shlex.quote(tasks),
            "EXE": shlex.quote(exe),
            "STREAM_EXE": shlex.quote(stream_exe),
            "STREAM_OPTIONS": (f"--elements {study.stream_elements}"
                               if study.stream_elements else ""),
            "SOURCE_DIR": shlex.quote(SOURCE_DIR),
            "PETSC_OPTIONS": " ".join(shlex.quote(o) for o in study.petsc_options),
        }
        write_script(scripts[n], re.sub(r"@([A-Z_]+)@", lambda m: values[m.group(1)], template))
    lines = ["#!/bin/bash",
             f"# Submits every array job of the scaling study '{study.name}', one per rank count;",
             "# written by jobs/scaling/stablefluids_scaling.py. Each prints its job ID.",
             "set -euo pipefail"]
    lines += [f"sbatch {shlex.quote(scripts[n])}" for n in arrays]
    write_script(submit, "\n".join(lines) + "\n")
    if not os.access(exe, os.X_OK):
        print(f"warning: no executable at {exe} yet; build it before the job starts",
              file=sys.stderr)
    if not os.access(stream_exe, os.X_OK):
        print(f"warning: no {STREAM_PROGRAM} at {stream_exe} yet; build it before the job "
              "starts, or the runs have no bandwidth (--stream-exe names another)",
              file=sys.stderr)
    print(f"wrote {len(arrays)} array scripts ({len(runs)} tasks in all), {tasks} and {submit}")
    print(f"submit with:\n  {shlex.quote(submit)}")
    # collect and plot must see the same runs, so they get the same overrides.
    override = f" --output {shlex.quote(study.output)}" if args.output else ""
    if args.steps:
        override += f" --steps {args.steps}"
    if args.repetitions:
        override += f" --repetitions {args.repetitions}"
    if args.ranks:
        override += " --ranks " + ",".join(str(n) for n in args.ranks)
    wrapper = os.path.join(SCRIPT_DIR, "run")
    print("when all tasks have finished:\n"
          f"  {wrapper} collect {shlex.quote(study.path)}{override}\n"
          f"  {wrapper} plot {shlex.quote(study.path)}{override}")


def _array_range(tasks):
    """Slurm's --array value for a list of task numbers: 'a-b' when they are consecutive."""
    if tasks == list(range(tasks[0], tasks[-1] + 1)):
        return f"{tasks[0]}-{tasks[-1]}"
    return ",".join(str(t) for t in tasks)


def write_script(path, text):
    """Write an executable script."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(path, 0o755)


# ----------------------------------------------------------------------------------------------
# Collecting

def read_timings(run):
    """The timings JSON of a run, checked for the keys the study needs."""
    try:
        with open(run.timings, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError:
        raise ScalingError(f"run {run.name} has no timings file {run.timings} "
                           "(has the study been run?)") from None
    except json.JSONDecodeError as err:
        raise ScalingError(f"{run.timings} is not valid JSON: {err}") from None
    for key in ("ranks", "steps", "total_cells", "seconds_per_step", "stages"):
        if key not in data:
            raise ScalingError(f"{run.timings} lacks the key '{key}'")
    if data["ranks"] != run.ranks:
        raise ScalingError(f"{run.timings} says {data['ranks']} ranks, expected {run.ranks}")
    return data


def read_stream(run):
    """The STREAM record of a run (the last JSON line of its stream.log that the program
    printed), checked; None when there is no log or no record in it (a run made before the
    driver measured bandwidth, or a Slurm task whose measurement failed)."""
    try:
        with open(run.stream_log, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    record = None
    for line in lines:
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and data.get("program") == STREAM_PROGRAM:
            record = data
    if record is None:
        return None
    if record.get("ranks") != run.ranks:
        raise ScalingError(f"{run.stream_log} says {record.get('ranks')} ranks, expected "
                           f"{run.ranks}")
    for key in ("bytes_per_second_per_rank", "bytes_per_second_total"):
        if not _positive_number(record.get(key)):
            raise ScalingError(f"{run.stream_log}: {key} is not a positive number "
                               f"({record.get(key)!r})")
    return record


def _distinct(values):
    """The distinct non-empty values, in order of appearance, joined by '; ' (None if none)."""
    seen = []
    for value in values:
        if value not in (None, "") and value not in seen:
            seen.append(value)
    return "; ".join(str(v) for v in seen) if seen else None


def _hosts(record):
    """A STREAM record's hosts, shortened when a run spans many nodes."""
    hosts = record.get("hosts") or [record.get("host")]
    hosts = [str(h) for h in hosts if h]
    if len(hosts) > 3:
        return f"{', '.join(hosts[:2])}, ... ({len(hosts)} hosts)"
    return ", ".join(hosts) or None


def _stage_seconds(data, stage):
    """A stage's seconds per step in a timings JSON, or None (missing or not a number)."""
    entry = data["stages"].get(stage) if isinstance(data.get("stages"), dict) else None
    value = entry.get("seconds_per_step") if isinstance(entry, dict) else None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def mean_pressure_iterations(run):
    """The mean of the pressure_iterations column of a run's steps CSV, or None."""
    try:
        with open(run.steps_csv, encoding="utf-8", newline="") as handle:
            values = [float(row["pressure_iterations"]) for row in csv.DictReader(handle)
                      if row.get("pressure_iterations") not in (None, "")]
    except (OSError, KeyError, ValueError):
        return None
    return statistics.fmean(values) if values else None


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def collect(study):
    """Median over repetitions per rank count; returns (columns, rows) and writes the CSV/MD."""
    runs = study.runs()
    by_ranks = {n: [] for n in study.ranks}
    missing = [r for r in runs if not os.path.exists(r.timings)]
    if missing:
        raise ScalingError(f"{len(missing)} of {len(runs)} runs have no timings file, e.g. "
                           f"{missing[0].timings}; run the study first")
    for run in runs:
        by_ranks[run.ranks].append((run, read_timings(run)))
    # A local study measures once per rank count, a Slurm study in every task: a rank count's
    # bandwidth is the median of the records its runs have.
    streams = {run.name: read_stream(run) for run in runs}
    unmeasured = [n for n in study.ranks
                  if not any(streams[r.name] for r in runs if r.ranks == n)]
    if unmeasured:
        print(f"warning: no STREAM record (stream.log) in the runs on "
              f"{', '.join(str(n) for n in unmeasured)} ranks: their bandwidth and the "
              "bandwidth bound are left out", file=sys.stderr)
    stages = []
    for entries in by_ranks.values():
        for _, data in entries:
            if not isinstance(data["stages"], dict):
                raise ScalingError(f"{entries[0][0].timings}: 'stages' is not a map")
            for stage in data["stages"]:
                if stage not in stages:
                    stages.append(stage)
    stages.sort(key=lambda s: (STAGE_ORDER.index(s) if s in STAGE_ORDER else len(STAGE_ORDER)))

    rows = []
    for n in study.ranks:
        entries = by_ranks[n]
        first = entries[0][1]
        cells = first.get("cells")
        row = {
            "ranks": n,
            "repetitions": len(entries),
            "steps": first["steps"],
            "process_grid": "x".join(str(c) for c in first.get("process_grid", [])),
            "cells": "x".join(str(c) for c in cells) if cells else "",
            "total_cells": first["total_cells"],
            "cells_per_rank": first["total_cells"] / n,
            "seconds_per_step": _median([d["seconds_per_step"] for _, d in entries]),
            "total_seconds": _median([d.get("total_seconds") for _, d in entries]),
        }
        for stage in stages:
            row[f"{stage}_seconds_per_step"] = _median(
                [_stage_seconds(d, stage) for _, d in entries])
        row["bytes_per_cell"] = _median([d.get("bytes_per_cell") for _, d in entries])
        row["peak_memory_bytes_per_rank"] = _median(
            [d.get("peak_memory_bytes_per_rank") for _, d in entries])
        row["mean_pressure_iterations"] = _median(
            [mean_pressure_iterations(r) for r, _ in entries])
        records = [streams[r.name] for r, _ in entries if streams[r.name]]
        per_rank = _median([s["bytes_per_second_per_rank"] for s in records])
        total = _median([s["bytes_per_second_total"] for s in records])
        row["stream_gb_per_s_per_rank"] = None if per_rank is None else per_rank / 1e9
        row["stream_gb_per_s_total"] = None if total is None else total / 1e9
        # Where the ranks ran, as the STREAM program saw it there (on a cluster, the compute
        # nodes, whatever machine the study was written or collected on).
        row["host"] = _distinct([_hosts(s) for s in records])
        row["cpu_model"] = _distinct([s.get("cpu_model") for s in records])
        row["cores"] = _distinct([s.get("cores") for s in records])
        row["launcher"] = _distinct([s.get("launcher") for s in records])
        row["mpi_library"] = _distinct([s.get("mpi") for s in records])
        if isinstance(row["cores"], str) and row["cores"].isdigit():
            row["cores"] = int(row["cores"])
        rows.append(row)
        if any(d["total_cells"] != first["total_cells"] for _, d in entries):
            print(f"warning: the repetitions on {n} ranks differ in total_cells",
                  file=sys.stderr)

    base = rows[0]
    n0, t0 = base["ranks"], base["seconds_per_step"]
    b0 = base["stream_gb_per_s_per_rank"]
    for row in rows:
        n, t = row["ranks"], row["seconds_per_step"]
        if study.kind == "strong":
            row["speedup"] = n0 * t0 / t
            row["efficiency"] = n0 * t0 / (n * t)
        else:
            row["speedup"] = t0 / t
            row["efficiency"] = t0 / t
        # The bandwidth bound: a code whose step time is its memory traffic over the bandwidth
        # keeps t(N0) B(N0) = t(N) B(N) in all, so its efficiency is B_rank(N) / B_rank(N0)
        # (strong: B_total(N) / B_total(N0) * N0 / N, the same number; weak: the same ratio).
        b = row["stream_gb_per_s_per_rank"]
        if b is None or b0 is None:
            row["bound_efficiency"] = row["bound_speedup"] = None
        elif n == n0:
            row["bound_efficiency"] = 1.0  # exactly, whatever the rounding of b / b0
            row["bound_speedup"] = float(n0) if study.kind == "strong" else 1.0
        else:
            row["bound_efficiency"] = b / b0
            row["bound_speedup"] = (n * b / b0 if study.kind == "strong" else b / b0)
    if study.kind == "strong" and len({r["total_cells"] for r in rows}) > 1:
        print("warning: a strong study whose total cells change with the rank count",
              file=sys.stderr)
    if study.kind == "weak" and len({r["cells_per_rank"] for r in rows}) > 1:
        print("warning: a weak study whose cells per rank change with the rank count "
              "(the process grid does not divide evenly)", file=sys.stderr)

    columns = ["ranks", "repetitions", "steps", "process_grid", "cells", "total_cells",
               "cells_per_rank", "seconds_per_step", "total_seconds"]
    columns += [f"{s}_seconds_per_step" for s in stages]
    columns += ["speedup", "efficiency", "stream_gb_per_s_per_rank", "stream_gb_per_s_total",
                "bound_speedup", "bound_efficiency", "bytes_per_cell",
                "peak_memory_bytes_per_rank", "mean_pressure_iterations", "host", "cpu_model",
                "cores", "launcher", "mpi_library"]
    os.makedirs(study.output, exist_ok=True)
    write_csv(os.path.join(study.output, "results.csv"), columns, rows)
    write_markdown(os.path.join(study.output, "results.md"), study, stages, rows)
    print(f"wrote {study.output}/results.csv and results.md")
    return stages, rows


def _csv_value(value):
    """Numbers exactly (repr), None as empty."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_csv(path, columns, rows):
    """The results table, every number written exactly."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_csv_value(row.get(c)) for c in columns])


def _fmt(value, digits=4):
    if value is None:
        return "–"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}g}"


def _mib(value):
    return "–" if value is None else f"{value / 2**20:.1f}"


def _display_path(path):
    """A path as the results show it: relative to the source tree when inside it, so that
    results made in one checkout read the same in another."""
    relative = os.path.relpath(path, SOURCE_DIR)
    return path if relative.startswith("..") else relative


def _percent(value):
    return "–" if value is None else f"{100 * value:.1f} %"


def machine_facts(rows):
    """(host, CPU model, cores, launcher, MPI library) of the results, each the distinct values
    of every rank count's runs; None where no run recorded it."""
    keys = ("host", "cpu_model", "cores", "launcher", "mpi_library")
    facts = []
    for key in keys:
        values = []
        for row in rows:
            value = row.get(key)
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if value not in (None, ""):
                for part in str(value).split("; "):
                    if part not in values:
                        values.append(part)
        facts.append("; ".join(values) if values else None)
    return facts


def machine_line(rows, markdown=False):
    """Which machine made the results, and how its ranks were started: one line, from the
    STREAM records (so from where the ranks ran)."""
    host, cpu, cores, launcher_text, mpi = machine_facts(rows)
    if host is None:
        return ("Machine: not recorded (no STREAM records in the runs)" if markdown
                else "machine not recorded (no STREAM records)")
    code = (lambda text: f"`{text}`") if markdown else (lambda text: text)
    several = "," in host or ";" in host
    cores_text = (f"{cores} cores{' per node' if several else ''}" if cores
                  else "cores unknown")
    line = (f"{'Machine: host' if markdown else 'host'} {code(host)} ({cpu or 'CPU unknown'}, "
            f"{cores_text}), ranks started with {code(launcher_text or 'an unrecorded launcher')}")
    if mpi:
        line += f" ({mpi})"
    if str(cores).isdigit() and not several:
        over = [r["ranks"] for r in rows if r["ranks"] > int(cores)]
        if over:
            counts = ", ".join(str(n) for n in over)
            line += (f"; {counts} ranks oversubscribe its {cores} cores" if markdown
                     else f"; {counts} ranks oversubscribed")
    return line + ("." if markdown else "")


def write_markdown(path, study, stages, rows):
    """The results as a Markdown table with a short header."""
    weak = study.kind == "weak"
    lines = [f"# Scaling study `{study.name}` ({study.kind})", "",
             f"Base job `{_display_path(study.base_job)}`, {rows[0]['steps']} steps per run, "
             f"median of {study.repetitions} repetitions per rank count.", "",
             machine_line(rows, markdown=True), ""]
    head = ["ranks", "process grid", "cells", "cells/rank", "s/step"]
    head += [f"{s} s/step" for s in stages]
    head += ["weak eff." if weak else "speed-up", "efficiency", "STREAM GB/s/rank",
             "STREAM GB/s total", "bandwidth bound", "bytes/cell", "peak MiB/rank",
             "pressure its"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---:" for _ in head) + "|")
    for row in rows:
        cells = [str(row["ranks"]), row["process_grid"], row["cells"],
                 _fmt(row["cells_per_rank"], 6), _fmt(row["seconds_per_step"])]
        cells += [_fmt(row[f"{s}_seconds_per_step"]) for s in stages]
        cells += [f"{row['speedup']:.3f}", _percent(row["efficiency"]),
                  _fmt(row["stream_gb_per_s_per_rank"], 3),
                  _fmt(row["stream_gb_per_s_total"], 3), _percent(row["bound_efficiency"]),
                  _fmt(row["bytes_per_cell"], 6), _mib(row["peak_memory_bytes_per_rank"]),
                  _fmt(row["mean_pressure_iterations"], 3)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if weak:
        lines.append("Weak efficiency = t(N0) / t(N), N0 the smallest rank count; ideal 1.")
    else:
        lines.append("Speed-up = N0 t(N0) / t(N) and efficiency = N0 t(N0) / (N t(N)), "
                     "N0 the smallest rank count; ideal N and 1.")
    lines.append("")
    lines.append("STREAM: the triad bandwidth the ranks got all at once, measured under the "
                 "runs' launcher before them. Bandwidth bound = B_rank(N) / B_rank(N0)"
                 + ("" if weak else " = B_total(N) / B_total(N0) * N0 / N") + ": the "
                 "efficiency a code limited only by memory bandwidth would reach, as its ranks "
                 "share the memory system; measured efficiency near it means the memory "
                 "bandwidth costs the rest, well below it communication, imbalance or serial "
                 "work does.")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")


def read_results(study):
    """The rows of an existing results.csv (numbers as float/int), and its stage names."""
    path = os.path.join(study.output, "results.csv")
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError:
        raise ScalingError(f"no {path}: run 'collect' first") from None
    if not rows:
        raise ScalingError(f"{path} has no rows")
    stages = [c[:-len("_seconds_per_step")] for c in rows[0]
              if c.endswith("_seconds_per_step") and c != "seconds_per_step"]
    parsed = []
    for row in rows:
        out = {}
        for key, value in row.items():
            if key in TEXT_COLUMNS:
                out[key] = value or None
                continue
            try:
                out[key] = int(value) if key == "ranks" else float(value)
            except (TypeError, ValueError):
                out[key] = value or None
        parsed.append(out)
    return stages, parsed


# ----------------------------------------------------------------------------------------------
# Plotting

def plot(study):
    """time_per_step.png, speedup.png and stages.png from results.csv."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stages, rows = read_results(study)
    ranks = [r["ranks"] for r in rows]
    n0, t0 = ranks[0], rows[0]["seconds_per_step"]
    weak = study.kind == "weak"
    machine = machine_line(rows)
    # A liquid job times its surface, a smoke job does not: a stage that took no time on any
    # rank count is left out of the plots rather than drawn as an empty entry.
    drawn = [stage for stage in stages
             if any(isinstance(r.get(f"{stage}_seconds_per_step"), float)
                    and r[f"{stage}_seconds_per_step"] > 0 for r in rows)]
    colours = plt.get_cmap("tab10" if len(drawn) <= 10 else "tab20")

    def positive(key):
        points = [(r["ranks"], r[key]) for r in rows
                  if isinstance(r.get(key), float) and r[key] > 0]
        return [p[0] for p in points], [p[1] for p in points]

    def caption(fig, width):
        """The machine under the plot, wrapped to the figure's width (characters)."""
        lines = textwrap.wrap(machine, width)
        fig.text(0.5, 0.01, "\n".join(lines), ha="center", va="bottom", fontsize="small",
                 color="dimgrey")
        return [0, 0.015 + 0.04 * len(lines), 1, 1]

    # Time per step, total and per stage, log-log.
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    x, y = positive("seconds_per_step")
    ax.plot(x, y, "o-", color="black", linewidth=2, label="total")
    for index, stage in enumerate(drawn):
        x, y = positive(f"{stage}_seconds_per_step")
        ax.plot(x, y, "s--", color=colours(index), label=stage)
    ideal = [t0 for _ in ranks] if weak else [t0 * n0 / n for n in ranks]
    ax.plot(ranks, ideal, ":", color="grey", label="ideal")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ranks, [str(n) for n in ranks])
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel("seconds per step")
    ax.set_title(f"{study.name}: time per step ({study.kind} scaling)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout(rect=caption(fig, 80))
    fig.savefig(os.path.join(study.output, "time_per_step.png"), dpi=100)
    plt.close(fig)

    # Speed-up and efficiency, with the bandwidth bound dashed where STREAM was measured.
    bound = "bandwidth bound (STREAM)"
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.6))
    left.plot(ranks, [r["speedup"] for r in rows], "o-", label="measured")
    left.plot(ranks, [1.0 if weak else float(n) for n in ranks], ":", color="grey",
              label="ideal")
    x, y = positive("bound_speedup")
    if x:
        left.plot(x, y, "^--", color="tab:red", label=bound)
    left.set_xscale("log", base=2)
    left.set_xticks(ranks, [str(n) for n in ranks])
    if not weak:
        left.set_yscale("log", base=2)
    left.set_xlabel("MPI ranks")
    left.set_ylabel("weak efficiency t(N0)/t(N)" if weak else "speed-up")
    left.set_title("weak efficiency" if weak else "speed-up")
    left.grid(True, which="both", alpha=0.3)
    left.legend()
    right.plot(ranks, [r["efficiency"] for r in rows], "o-", label="measured")
    right.plot(ranks, [1.0 for _ in ranks], ":", color="grey", label="ideal")
    x, bound_y = positive("bound_efficiency")
    if x:
        right.plot(x, bound_y, "^--", color="tab:red", label=bound)
    right.set_xscale("log", base=2)
    right.set_xticks(ranks, [str(n) for n in ranks])
    right.set_ylim(0, max(1.1, max(r["efficiency"] for r in rows) * 1.1,
                          max(bound_y, default=0) * 1.1))
    right.set_xlabel("MPI ranks")
    right.set_ylabel("parallel efficiency")
    right.set_title("parallel efficiency")
    right.grid(True, alpha=0.3)
    right.legend()
    fig.suptitle(f"{study.name} ({study.kind} scaling)")
    fig.tight_layout(rect=caption(fig, 130))
    fig.savefig(os.path.join(study.output, "speedup.png"), dpi=100)
    plt.close(fig)

    # Stacked bars of the stages.
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    positions = list(range(len(ranks)))
    bottom = [0.0 for _ in ranks]
    for index, stage in enumerate(drawn):
        heights = [r.get(f"{stage}_seconds_per_step") for r in rows]
        heights = [h if isinstance(h, float) else 0.0 for h in heights]
        ax.bar(positions, heights, bottom=bottom, color=colours(index), label=stage)
        bottom = [b + h for b, h in zip(bottom, heights)]
    ax.plot(positions, [r["seconds_per_step"] for r in rows], "k_", markersize=30,
            label="total")
    ax.set_xticks(positions, [str(n) for n in ranks])
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel("seconds per step")
    ax.set_title(f"{study.name}: time per step by stage")
    # Head room for the legend, which a liquid's five stages make tall.
    ax.set_ylim(0, 1.45 * max(r["seconds_per_step"] for r in rows))
    ax.legend(fontsize="small", ncol=2)
    fig.tight_layout(rect=caption(fig, 80))
    fig.savefig(os.path.join(study.output, "stages.png"), dpi=100)
    plt.close(fig)
    print(f"wrote {study.output}/time_per_step.png, speedup.png and stages.png")


# ----------------------------------------------------------------------------------------------
# Command line

def _int_argument(text):
    """A positive integer on the command line."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _ranks_argument(text):
    """A comma-separated list of positive rank counts."""
    return [_int_argument(part) for part in text.split(",")]


def parse_args(argv):
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="stablefluids_scaling.py",
        description="Run strong and weak scaling studies of stablefluids and turn them into "
                    "tables and efficiency plots.",
        epilog=__doc__.split("\n\n", 1)[1]
        + "Examples:\n  jobs/scaling/run all jobs/scaling/studies/plume_strong.yaml\n"
          "  jobs/scaling/run run jobs/scaling/studies/plume_weak.yaml --slurm\n"
          "  jobs/scaling/run collect jobs/scaling/studies/plume_weak.yaml && "
          "jobs/scaling/run plot jobs/scaling/studies/plume_weak.yaml\n",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    helps = {"run": "run every (ranks, repetition) pair (or write a Slurm array with --slurm)",
             "collect": "write <output>/results.csv and results.md (medians over repetitions)",
             "plot": "write time_per_step.png, speedup.png and stages.png in <output>",
             "all": "run, collect and plot"}
    for name, text in helps.items():
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("study", help="the study file (YAML)")
        p.add_argument("--output", metavar="DIR",
                       help="results directory, overriding the study's 'output'")
        p.add_argument("--steps", type=_int_argument, metavar="N",
                       help="steps per run, overriding the study's 'steps'")
        p.add_argument("--repetitions", type=_int_argument, metavar="N",
                       help="runs per rank count, overriding the study's 'repetitions'")
        p.add_argument("--ranks", type=_ranks_argument, metavar="N,N,...",
                       help="rank counts, overriding the study's 'ranks'")
        if name in ("run", "all"):
            p.add_argument("--dry-run", action="store_true",
                           help="print what would run, write nothing")
            p.add_argument("--slurm", action="store_true",
                           help="write the job files and one Slurm array job per rank count "
                                "(<output>/slurm_r<ranks>.sbatch, submitted together by "
                                "<output>/slurm_submit.sh) instead of running"
                                + (" (then stop: collect and plot after the jobs ran)"
                                   if name == "all" else ""))
            p.add_argument("--exe", metavar="PATH",
                           help="the stablefluids executable (default "
                                "$STABLEFLUIDS_BUILD_DIR/stablefluids or build/stablefluids)")
            p.add_argument("--stream-exe", metavar="PATH",
                           help=f"the STREAM triad program, run at each rank count before its "
                                f"runs (default: "
                                f"{STREAM_PROGRAM} in the directory of the stablefluids "
                                "executable)")
            p.add_argument("--stream-elements", type=_int_argument, metavar="N",
                           help="doubles per STREAM array, overriding the study's "
                                "'stream_elements' (small values measure the caches, not "
                                "the memory: for quick checks only)")
            p.add_argument("--mpiexec", default=os.environ.get("MPIEXEC", "mpiexec"),
                           metavar="CMD", help="the MPI launcher (default $MPIEXEC or mpiexec)")
            p.add_argument("--timeout", type=float, metavar="SECONDS",
                           help=f"per-run time limit (default: the study's, "
                                f"else {DEFAULT_TIMEOUT:g})")
    return parser.parse_args(argv)


def main(argv=None):
    """Entry point: the status is 0 on success, 1 on a reported error, 128 + the signal on a
    stop."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, raise_stopped)
    try:
        study = Study(args.study, args.output, {
            "steps": args.steps, "repetitions": args.repetitions, "ranks": args.ranks,
            "stream_elements": getattr(args, "stream_elements", None)})
        if args.command in ("run", "all"):
            if args.slurm:
                write_slurm(study, args)
                return 0
            run_local(study, args)
            if args.dry_run:
                return 0
        if args.command in ("collect", "all"):
            collect(study)
        if args.command in ("plot", "all"):
            plot(study)
    except ScalingError as err:
        print(f"stablefluids_scaling: error: {err}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, Stopped) as stop:
        signum = getattr(stop, "signum", signal.SIGINT)
        print(f"stablefluids_scaling: stopped by {signal.Signals(signum).name}; the run in "
              "progress, if any, was ended with it", file=sys.stderr)
        return 128 + signum
    return 0


if __name__ == "__main__":
    sys.exit(main())
