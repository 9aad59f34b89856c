#!/usr/bin/env python3
"""Every command the documentation gives runs as written.

Users copy commands from the Markdown files (README.md, docs/*.md, the READMEs under jobs/,
solvers/ and io/, ARCHITECTURE.md); this test proves that each one works, so that a doc cannot
teach a command that fails. The rules, and why each exists:

1. What counts as a command. Every fenced block marked sh, bash, shell or console in every
   Markdown file git knows (tracked or new; build directories and third-party code left out)
   is split into commands: `\\`-newlines joined, newlines inside quotes kept (an awk program),
   `# comments` and comment-only lines dropped (console blocks: only the `$ ` lines). Blocks
   are found, not listed, so that a new block in any doc fails this test until it runs or is
   listed as an exception below.
2. Where it runs. Each command runs with `bash -c` in a scratch directory that looks like the
   repository root to it: a copy of the files git knows, with `build` a link to the build
   directory. Commands write where they would in a checkout (output/, a study's results/,
   jobs/scaling/example/), never into the source tree, and each starts afresh, as a reader
   would: a second run into one output directory is refused by design. An identical command in
   another doc shares the first one's result. A command that continues a run (`--restart`)
   runs where the newest earlier long run of its job was stopped; a scaling study's `collect`
   or `plot` where the last earlier command on that study ran; such a chain runs in doc order,
   and two chains run at a time (half of a run here is single-threaded: starting MPI and
   ParaView, a 1-rank study, CMake). `cmake -S . -B build` gets a scratch directory whose
   build/ is empty. An absolute path a command creates (--output /tmp/check) is removed after.
3. The machine. There is no display (DISPLAY unset, as on CI and on a cluster's nodes: a
   command whose job renders must bring its own X server, as jobs/run and with_display do).
   Stand-ins on PATH take the place of what a cluster has and this machine lacks: `module`
   accepts anything; `sbatch` runs the batch script at once and returns its status, with the
   SLURM_* variables run.sbatch and the array jobs read (the nodes and tasks of --nodes,
   --ntasks-per-node, --ntasks or the script's #SBATCH lines; array tasks one after another);
   `srun` is `mpiexec -n N --oversubscribe`, N from -n, else one rank per node of the
   allocation up to 2 (the cores here), else 1; `scontrol` records what it is asked. `mpiexec`
   is the one CMake found. jobs/run gets STABLEFLUIDS_EXECUTABLE, its documented way to run the
   built solver without its install-and-build step: that step is cmake/bootstrap.sh's
   sf_prepare, which tests/run (CI's command) has just run, and running it here would rebuild
   the tree under the tests that use it.
4. Short commands run to their end and must exit with 0. Long ones (a job of LONG_JOBS, a
   whole scaling study) run as written until they have started (the solver's banner, printed
   once the job, its flags, the ranks and the Catalyst scripts are accepted; a study's first
   step in its run's run.log), then are stopped the documented way: SIGTERM to jobs/run,
   SIGUSR1 to a bare mpiexec, SIGUSR1 to every process of the job step under srun and sbatch
   (as Slurm's --signal=USR1 does), SIGTERM to jobs/scaling/run. A solver run must then have
   taken a step and exit with status 3 (docs/running.md, "Stopping a run cleanly"), having
   written the checkpoint it names and printed the whole command that continues it (launcher,
   rank count, the program, the job, its --set flags and options, `--restart latest` once);
   under sbatch the job step must have run in the allocation asked for, and the script must
   have requeued the job. A study must exit with 143, saying so. Either way nothing may be left
   running in the scratch directory. This proves that the command parses, starts, steps and
   stops cleanly, within the time CI has for this test (a whole plume takes minutes).
5. Exceptions and substitutions (EXCEPTIONS, SUBSTITUTIONS below) name the doc and the command,
   with the reason. Every command they do not match must run; one that no longer matches any
   command of its doc fails the test, so that the lists cannot go stale. In block commands an
   optional part in brackets after a space ("[PETSc options]") is left out, and said so; a
   <placeholder> needs a substitution.
6. Commands in prose: inline code spans, and lines of indented code blocks, that start with
   `build/`, `jobs/`, `tests/`, `mpiexec`, `srun`, `sbatch`, `python3`, `ctest` or `cmake`. The
   program each names must exist (build/... in the build directory) and be executable when it
   is given arguments; a program named alone (no extension, or .py/.sh/.sbatch) must exist; a
   job file it names must exist. The cheap ones run: `--help` or `-h` must exit with 0 and
   print a help, a `ctest` selection must select tests (ctest -N in the build directory), and
   a launch of the solver (jobs/run, mpiexec) on at most 2 ranks of a job not in LONG_JOBS
   runs to its end, as a block's would. The others are not run: they repeat the blocks'
   launches with more ranks (oversubscribing the 2 cores here costs a block's time) or a long
   job, or run for minutes (tests/run, tests/bench/run, tests/validation/run), or need a run's
   files first.

usage: docs_commands_test.py <source dir> <build dir> [mpiexec] [--list] [--only TEXT] [--keep]
  --list       print every command found, how it will be treated, and stop
  --only TEXT  run only the commands whose text contains TEXT (the list checks still run)
  --keep       keep the scratch directories (their path is printed)
"""
import argparse
import concurrent.futures
import csv
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from source_tree import tree_files

SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}
THIRD_PARTY = {"third_party", "third-party", "thirdparty", "external", "vendor", "extern"}

# Jobs whose whole run is too long for this test: their commands are stopped once started.
LONG_JOBS = {
    "jobs/plume_3d.yaml": "1 min 9 s on 2 ranks (jobs/README.md), 12 s of it to its first step",
}

# (doc, the command as written; a text ending in "..." stands for every command that starts
# with it): why it is not run here. Whitespace runs count as one space.
EXCEPTIONS = {
    ("README.md", "tests/run"):
        "the command that runs this suite: CI runs it as written (.ci/run execs tests/run)",
    ("README.md", "cmake --build build -j 8"):
        "compiles the whole tree: minutes on 2 cores, which CI has no room for; tests/run "
        "compiles the sources with Catalyst ON; this Catalyst OFF tree is configured above but "
        "compiled nowhere",
    ("docs/running.md", "cmake --build build -j 8"):
        "compiles the whole tree: minutes; tests/run builds this configuration before the suite",
    ("docs/running.md", "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release"):
        "tests/run's configuration, made before the suite runs (Release; Catalyst AUTO, which "
        "is ON where ParaView is installed, as tests/run ensures, against its explicit ON); "
        "11 s here, the budget's for README.md's Catalyst OFF configure",
}

# (doc, the command as written, as in EXCEPTIONS):
#   (replacements [(old, new)...], setup command run before it in its scratch dir or None, why)
SUBSTITUTIONS = {
    ("docs/running.md", "mpiexec -n 512 build/stablefluids jobs/vortex_3d.yaml"): (
        [("-n 512", "-n 4")], None,
        "512 ranks do not fit on 2 cores (about 30 GB of processes); 4 oversubscribed ranks run "
        "the same job to its end"),
    ("jobs/README.md", "awk -F, -v until=1e30 '..."): (
        [("output/<name>_steps.csv", "output/sloshing_2d_steps.csv")],
        "mpiexec -n 2 build/stablefluids jobs/sloshing_2d.yaml --set time.end=0.1",
        "<name> is any liquid run's: a short run of sloshing_2d (a liquid, no images) makes one"),
    ("jobs/scaling/README.md", "jobs/scaling/run collect jobs/scaling/studies/plume_strong.yaml"): (
        [("plume_strong.yaml", "plume_strong.yaml --steps 2 --repetitions 1 --ranks 1,2")],
        "jobs/scaling/run run jobs/scaling/studies/plume_strong.yaml --slurm --steps 2 "
        "--repetitions 1 --ranks 1,2 && "
        "bash jobs/scaling/studies/results/plume_strong/slurm_submit.sh",
        "'after it ran': the study's 9 array tasks of 30 steps take minutes, so the array is "
        "written with the README's quick-check options (--steps, --repetitions, --ranks), "
        "submitted (sbatch stand-in), and collect gets the same options, as the README says"),
    ("jobs/scaling/README.md", "jobs/scaling/run plot jobs/scaling/studies/plume_strong.yaml"): (
        [("plume_strong.yaml", "plume_strong.yaml --steps 2 --repetitions 1 --ranks 1,2")],
        None,
        "plots what the collect above collected, so it gets the same quick-check values"),
}

FIRST_STEP_TIMEOUT = 180  # seconds for a long command to start (its banner, a study's step)
STOP_TIMEOUT = 90         # seconds from the stop signal to the end
SHORT_TIMEOUT = 180       # seconds for a command that runs to its end
WORKERS = 2               # chains run at once (run_all)
TEST_SECONDS = 240        # no command starts after this (CTest's TIMEOUT is 300)
STEP_LINE = re.compile(r"^step\s+\d+\s+t\s", re.M)
# The solver's banner: printed once the job, its --set flags, the ranks, the restart and the
# Catalyst scripts are accepted, before the first step. A stop requested from then on is
# carried out at the end of the first step.
BANNER = re.compile(r"^stablefluids \S+: job '", re.M)
STOPPED = re.compile(r"stablefluids: (SIG\w+) received; stopped after step (\d+) at t = \S+ "
                     r"Continue with:\n  (.+)\n")
CHECKPOINT = re.compile(r"checkpoint at step \d+ -> (\S+)")


def normal(text):
    return " ".join(text.split())


# --- finding the commands ------------------------------------------------------------------------
class Command:
    def __init__(self, doc, line, text, span=False, kind="block"):
        self.doc, self.line, self.text, self.span = doc, line, text, span
        self.kind = "span" if span and kind == "block" else kind
        self.run_text = text  # what runs: the text, substituted and without optional parts
        self.setup = self.skip = self.expect = self.same = self.after = self.scratch = None
        self.long = False
        self.ok = None
        self.notes = []

    def where(self):
        return "%s:%d" % (self.doc, self.line)

    def __str__(self):
        return "%s: %s" % (self.where(), normal(self.text))


class Lexer:
    """Shell text, fed line by line, cut into commands: comments dropped, backslash-newlines
    joined, newlines inside quotes kept. Enough of the shell's quoting for documentation."""

    def __init__(self):
        self.commands, self.text, self.start, self.quote, self.continued = [], "", None, None, False

    def pending(self):
        return bool(self.quote) or self.continued

    def feed(self, number, line):
        self.continued = False
        i = 0
        while i < len(line):
            c = line[i]
            if self.quote:
                self.text += c
                if self.quote == '"' and c == "\\" and i + 1 < len(line):
                    self.text += line[i + 1]
                    i += 1
                elif c == self.quote:
                    self.quote = None
            elif c in "'\"":
                self.quote = c
                self.text += c
            elif c == "\\":
                if i + 1 == len(line):
                    self.continued = True
                else:
                    self.text += line[i:i + 2]
                    i += 1
            elif c == "#" and (not self.text.strip() or self.text[-1] in " \t;|&("):
                break
            else:
                self.text += c
            if self.start is None and self.text.strip():
                self.start = number
            i += 1
        if self.quote:
            self.text += "\n"
        elif not self.continued:
            self.finish()

    def finish(self):
        if self.text.strip():
            self.commands.append((self.start, self.text.strip()))
        self.text, self.start, self.quote, self.continued = "", None, None, False


FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)  # within a paragraph


def read_doc(doc, text):
    """The block commands, and the command spans and indented-code commands, of one Markdown
    file."""
    blocks, spans = [], []
    lines = text.split("\n")
    paragraph = []  # (line number, text) of the prose paragraph being read

    def end_paragraph():
        joined = "\n".join(t for _, t in paragraph)
        for span in SPAN.finditer(joined):
            number = paragraph[0][0] + joined.count("\n", 0, span.start())
            spans.append(Command(doc, number, " ".join(span.group(2).split()), span=True))
        paragraph.clear()

    i = 0
    indented = None  # the Lexer of an indented code block being read
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        if indented and not (line.startswith(("    ", "\t")) or not line.strip()):
            indented.finish()
            spans += [Command(doc, n, t, span=True, kind="code") for n, t in
                      indented.commands if indented_command(t)]
            indented = None
        if fence:
            end_paragraph()
        elif indented or (line.startswith(("    ", "\t")) and not paragraph
                          and (i == 0 or not lines[i - 1].strip())):
            indented = indented or Lexer()
            indented.feed(i + 1, line.strip())
            i += 1
            continue
        elif not line.strip():
            end_paragraph()
            i += 1
            continue
        else:
            paragraph.append((i + 1, line))
            i += 1
            continue
        mark, info = fence.group(1), fence.group(2).strip()
        language = info.split()[0].lower() if info else ""
        close = re.compile(r"^ {0,3}%s%s*\s*$" % (re.escape(mark), re.escape(mark[0])))
        j = i + 1
        lexer = Lexer()
        while j < len(lines) and not close.match(lines[j]):
            line = lines[j]
            if language == "console":
                if line.startswith("$ "):
                    lexer.feed(j + 1, line[2:])
                elif lexer.pending():
                    lexer.feed(j + 1, line[2:] if line.startswith("> ") else line)
            elif language in SHELL_LANGUAGES:
                lexer.feed(j + 1, line)
            j += 1
        lexer.finish()
        blocks += [Command(doc, n, t) for n, t in lexer.commands]
        i = j + 1
    end_paragraph()
    if indented:
        indented.finish()
        spans += [Command(doc, n, t, span=True, kind="code") for n, t in indented.commands
                  if indented_command(t)]
    return blocks, spans


def indented_command(text):
    """Whether a line of an indented code block is a command: it starts with a launcher or a
    program of the tree (no extension, or .py, .sh, .sbatch)."""
    words = words_of(text)
    if not words:
        return False
    if words[0] in ("mpiexec", "srun", "sbatch", "python3", "/usr/bin/python3"):
        return True
    return bool(PATH_PROGRAM.match(words[0])) and os.path.splitext(words[0])[1] in (
        "", ".py", ".sh", ".sbatch")


def markdown_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z",
                              "--", "*.md"], check=True, capture_output=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for base, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
            files += [os.path.relpath(os.path.join(base, n), root)
                      for n in names if n.endswith(".md")]
    keep = []
    for f in sorted(files):
        parts = f.split("/")
        if parts[0].startswith("build") or THIRD_PARTY & set(parts[:-1]):
            continue
        if os.path.isfile(os.path.join(root, f)):
            keep.append(f)
    return keep


def is_simple(text):
    """Whether shell text is one simple command: no operator, redirection, substitution or
    newline outside quotes."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "|;&<>()`\n" or text[i:i + 2] == "$(":
            return False
    return quote is None


def words_of(text):
    try:
        return shlex.split(text, comments=False)
    except ValueError:
        return None


ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
PATH_PROGRAM = re.compile(r"^(build|jobs|tests)/")
TOOLS = ("mpiexec", "srun", "sbatch", "python3", "/usr/bin/python3", "ctest", "cmake")


def span_words(text):
    """The words of a span that is a command, or None."""
    words = words_of(text)
    if not words:
        return None
    while words and ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return None
    first = words[0]
    if first in TOOLS:
        return words if len(words) > 1 else None
    if not PATH_PROGRAM.match(first) or first.endswith("/") or "<" in first:
        return None
    if len(words) > 1 or os.path.splitext(first)[1] in ("", ".py", ".sh", ".sbatch"):
        return words
    return None


def program_of(words):
    """(the program a command runs, whether it must be executable), or (None, False)."""
    first = words[0]
    if PATH_PROGRAM.match(first):
        return first, len(words) > 1
    rest = words[1:]
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if first in ("mpiexec", "srun") and option in ("-n", "-np", "-N", "--ntasks", "-c"):
            rest = rest[1:]
    if not rest or first in ("ctest", "cmake"):
        return None, False
    return rest[0], first not in ("python3", "/usr/bin/python3")


def job_of(words):
    """The job (or study) file a command names: its first .yaml that is not a --set value."""
    for i, word in enumerate(words):
        if word.endswith((".yaml", ".yml")) and (i == 0 or words[i - 1] != "--set"):
            return os.path.normpath(word)
    return None


def is_long(words):
    """Rule 4: a whole scaling study, or a run of a job in LONG_JOBS."""
    if words[0] == "jobs/scaling/run":
        return (len(words) > 1 and words[1] in ("all", "run") and "--slurm" not in words
                and "--steps" not in words and "--dry-run" not in words)
    return is_solver_launch(words) and job_of(words) in LONG_JOBS


def cost(command):
    """A rough guess of a command's seconds here, to start the dearest chains first."""
    words = words_of(command.run_text) or [""]
    if command.span and span_action(words) != "run":
        return 1
    if command.long and is_solver_launch(words):
        return 8 if "--restart" in words else 20
    if command.long or command.setup:
        return 5
    if is_solver_launch(words) or words[0] == "cmake" or words[:2] == ["jobs/scaling/run", "all"]:
        return 8
    return 2


def is_solver_launch(words):
    if words[0] in ("jobs/run", "sbatch"):
        return True
    if words[0] in ("mpiexec", "srun"):
        return any(w.endswith("stablefluids") for w in words)
    return words[0].endswith("/stablefluids")


# --- the stand-ins -------------------------------------------------------------------------------
STANDINS = {
    "module": r"""#!/bin/bash
# Stand-in for Environment Modules / Lmod: the libraries are installed on this machine.
echo "$*" >> "$DOCS_STANDIN_LOG/module.args"
exit 0
""",
    "scontrol": r"""#!/bin/bash
# Stand-in for scontrol: records what it was asked (run.sbatch requeues a stopped job).
echo "$*" >> "$DOCS_STANDIN_LOG/scontrol.args"
exit 0
""",
    "srun": r"""#!/bin/bash
# Stand-in for srun: mpiexec -n N --oversubscribe <command>, N from -n/--ntasks, else one rank
# per node of the allocation (SLURM_NNODES) up to 2, the cores here, else 1. Its PID (that of
# mpiexec: it execs) is recorded, so that the test can signal every process of the step, as
# Slurm does, and so is the allocation it ran in.
n=""
while [ $# -gt 0 ]; do
  case $1 in
    -n | --ntasks) n=$2; shift 2 ;;
    -n*) n=${1#-n}; shift ;;
    --ntasks=*) n=${1#*=}; shift ;;
    -N | -c | -p | -t | -A | --nodes | --cpus-per-task | --partition | --time) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
nodes=${SLURM_NNODES:-1}
n=${n:-$((nodes < 2 ? nodes : 2))}
echo "$$" >> "$DOCS_STANDIN_LOG/srun.pids"
echo "-n $n nodes=${SLURM_NNODES:-} tasks=${SLURM_NTASKS:-} $*" >> "$DOCS_STANDIN_LOG/srun.args"
# Open MPI would take the sbatch stand-in's SLURM_* variables for an allocation to launch in.
export OMPI_MCA_ras=^slurm OMPI_MCA_plm=^slurm OMPI_MCA_ess=^slurm
exec mpiexec -n "$n" --oversubscribe "$@"
""",
    "sbatch": r"""#!/bin/bash
# Stand-in for sbatch: runs the batch script at once, in the foreground, from the directory it
# was submitted from, and returns its status (a real sbatch returns at once; the test reads the
# job's outcome here). Its output goes to stdout, not to the --output file. The SLURM_*
# variables are those run.sbatch and the array jobs read, with the nodes and tasks the options
# or the script's #SBATCH lines ask for (srun runs one rank per node of them, up to 2); an
# array job runs its tasks one after another.
nodes="" per_node="" ntasks="" array=""
while [ $# -gt 0 ]; do
  case $1 in
    --nodes=* | -N?*) nodes=${1#--nodes=}; nodes=${nodes#-N} ;;
    --nodes | -N) nodes=$2; shift ;;
    --ntasks-per-node=*) per_node=${1#*=} ;;
    --ntasks-per-node) per_node=$2; shift ;;
    --ntasks=*) ntasks=${1#*=} ;;
    --ntasks | -n) ntasks=$2; shift ;;
    --array=*) array=${1#*=} ;;
    --array | -a) array=$2; shift ;;
    -J | -t | -p | -A | -o | -e | -c | --job-name | --time | --partition | --account \
      | --output | --error) shift ;;
    -*) ;;
    *) break ;;
  esac
  shift
done
script=${1:?sbatch stand-in: no batch script}
shift
# The script's #SBATCH lines give what the options did not.
while read -r _ option _; do
  case $option in
    --nodes=*) nodes=${nodes:-${option#*=}} ;;
    --ntasks-per-node=*) per_node=${per_node:-${option#*=}} ;;
    --ntasks=*) ntasks=${ntasks:-${option#*=}} ;;
    --array=*) array=${array:-${option#*=}} ;;
  esac
done < <(grep '^#SBATCH ' "$script")
nodes=${nodes:-1}
[ -n "$ntasks" ] || ntasks=$((nodes * ${per_node:-1}))
submitted=$DOCS_STANDIN_LOG/sbatch.args
job_id=4200
[ -f "$submitted" ] && job_id=$((job_id + $(wc -l < "$submitted")))
echo "$script $*" >> "$submitted"
echo "Submitted batch job $job_id"
export SLURM_JOB_ID=$job_id SLURM_JOBID=$job_id SLURM_SUBMIT_DIR=$PWD SLURM_NNODES=$nodes \
  SLURM_JOB_NUM_NODES=$nodes SLURM_NTASKS=$ntasks SLURM_NPROCS=$ntasks \
  SLURM_RESTART_COUNT=${SLURM_RESTART_COUNT:-0}
if [ -z "$array" ]; then
  bash "$script" "$@"
  exit $?
fi
worst=0
for range in ${array//,/ }; do
  range=${range%%%*}
  for ((task = ${range%-*}; task <= ${range#*-}; task++)); do
    SLURM_ARRAY_JOB_ID=$job_id SLURM_ARRAY_TASK_ID=$task bash "$script" "$@"
    status=$?
    [ "$status" -gt "$worst" ] && worst=$status
  done
done
exit "$worst"
""",
}


# --- running them --------------------------------------------------------------------------------
def descendants(root_pids):
    """The PIDs given and every process below them."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), list(root_pids)
    while todo:
        pid = todo.pop()
        if pid in found:
            continue
        found.add(pid)
        todo += children.get(pid, [])
    return found


def processes_in(directory):
    """PIDs of the processes whose working directory is in `directory`."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cwd = os.readlink("/proc/%s/cwd" % entry)
            except OSError:
                continue
            if cwd == directory or cwd.startswith(directory + "/"):
                pids.append(int(entry))
    return pids


def tail(path, lines=25):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read().splitlines()[-lines:]
    except OSError:
        return ["(no output)"]
    return text


class Suite:
    def __init__(self, root, build, mpiexec, keep):
        self.root, self.build, self.keep = root, build, keep
        self.work = tempfile.mkdtemp(prefix="docs_commands_")
        self.passed = self.failed = 0
        self.started = time.monotonic()
        self.deadline = self.started + TEST_SECONDS
        self.lock = threading.Lock()
        self.count = 0
        self.bin = os.path.join(self.work, "bin")
        os.makedirs(self.bin)
        for name, text in STANDINS.items():
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        found = shutil.which(mpiexec) if not os.path.isabs(mpiexec) else mpiexec
        if not found:
            sys.exit("docs_commands_test: no mpiexec '%s'" % mpiexec)
        os.symlink(found, os.path.join(self.bin, "mpiexec"))
        self.pristine = os.path.join(self.work, "tree")
        for f in tree_files(root):
            target = os.path.join(self.pristine, f)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(os.path.join(root, f), target, follow_symlinks=False)

    def close(self):
        for pid in processes_in(self.work):  # only after a failure or an interruption
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self.keep:
            print("scratch directories kept in " + self.work)
        else:
            shutil.rmtree(self.work, ignore_errors=True)

    def say(self, text):
        with self.lock:
            print(text, flush=True)

    def check(self, what, ok, details=()):
        with self.lock:
            if ok:
                self.passed += 1
                return True
            self.failed += 1
            print("FAILED: " + what)
            for line in details:
                print("    " + line)
            sys.stdout.flush()
            return False

    def scratch(self, with_build=True):
        with self.lock:
            self.count += 1
            path = os.path.join(self.work, "run%02d" % self.count)
        shutil.copytree(self.pristine, path, symlinks=True)
        if with_build:
            os.symlink(self.build, os.path.join(path, "build"))
        os.makedirs(os.path.join(path, ".standin"))
        return path

    def environment(self, scratch):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("SLURM_", "STABLEFLUIDS", "PMI_", "OMPI_COMM_WORLD"))
               and k not in ("DISPLAY", "PYTHONHOME", "PYTHONPATH", "PETSC_OPTIONS", "MPIEXEC",
                             "XAUTHORITY")}
        env.update(PATH=self.bin + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
                   OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1", HWLOC_COMPONENTS="-gl",
                   STABLEFLUIDS_EXECUTABLE="build/stablefluids",
                   DOCS_STANDIN_LOG=os.path.join(scratch, ".standin"),
                   TMPDIR=os.path.join(scratch, ".standin"))
        return env

    def start(self, text, scratch, log):
        # A simple command is exec'd, so that the signals of rule 4 reach the program itself.
        argv = ["bash", "-c", ("exec " if is_simple(text) else "") + text]
        with open(log, "ab") as out:
            return subprocess.Popen(argv, cwd=scratch, env=self.environment(scratch),
                                    stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)

    def leftovers(self, scratch):
        """Processes still running in the scratch directory, ended (they are this test's)."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and processes_in(scratch):
            time.sleep(0.2)
        left = processes_in(scratch)
        described = []
        for pid in left:
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    described.append("%d %s" % (pid, f.read().replace(b"\0", b" ").decode()))
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        return described

    # -- one command ----------------------------------------------------------------------------
    def execute(self, command):
        """Runs a block command (rule 4) where rule 2 says; its success."""
        words = words_of(command.run_text)
        if words is None:
            return self.check("%s: its quoting does not close" % command, False)
        job = job_of(words)
        configure = words[0] == "cmake" and "-S" in words
        after = command.after
        if after is not None:
            if not after.ok or not after.scratch:
                what = ("continue: %s did not stop with a checkpoint" if "--restart" in words
                        else "go on from: %s failed")
                return self.check("%s: nothing to %s" % (command, what % after), False)
            scratch = after.scratch
        elif "--restart" in words:
            return self.check("%s: nothing to continue: no run of %s is stopped before it (put "
                              "the command that starts it first)" % (command, job), False)
        else:
            scratch = self.scratch(with_build=not configure)
        command.scratch = scratch
        log = os.path.join(scratch, ".standin", "output-%s-%d.log" % (
            command.doc.replace("/", "_"), command.line))
        begin = time.monotonic()
        if command.setup:
            setup = self.start(command.setup, scratch, log)
            try:
                status = setup.wait(timeout=SHORT_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(setup.pid, signal.SIGKILL)
                status = None
            if not self.check("%s: its setup `%s` exits with 0 (got %s)" % (
                    command, command.setup, status), status == 0, tail(log)):
                return False
        open(log, "w").close()
        for record in ("srun.pids", "srun.args", "scontrol.args"):
            if os.path.exists(os.path.join(scratch, ".standin", record)):
                os.remove(os.path.join(scratch, ".standin", record))
        # An absolute path the command names and creates (--output /tmp/check) is removed after
        # it; one that was there before is left alone.
        created = [w for w in words if os.path.isabs(w) and not os.path.exists(w)
                   and not w.startswith(self.work)]
        process = self.start(command.run_text, scratch, log)
        if is_long(words):
            ok = self.stop_after_first_step(command, words, process, scratch, log, job)
        else:
            ok = self.run_to_end(command, process, log)
        left = self.leftovers(scratch)
        ok &= self.check("%s: nothing left running after it" % command, not left, left)
        for path in created:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            elif os.path.lexists(path):
                os.remove(path)
        notes = "".join("; " + n for n in command.notes)
        self.say("%s %s (%.1f s from %.0f s%s)" % (
            "ok     " if ok else "FAILED ", command, time.monotonic() - begin,
            begin - self.started, notes))
        if configure and not self.keep:
            shutil.rmtree(scratch, ignore_errors=True)
        return ok

    def run_to_end(self, command, process, log):
        try:
            status = process.wait(timeout=SHORT_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return self.check("%s: ends within %d s (a long command: add its job to LONG_JOBS)"
                              % (command, SHORT_TIMEOUT), False, tail(log))
        ok = self.check("%s: exits with 0 (got %d)" % (command, status), status == 0, tail(log))
        if ok and command.expect:
            with open(log, encoding="utf-8", errors="replace") as f:
                problem = command.expect(f.read(), command.scratch)
            ok = self.check("%s: %s" % (command, problem), not problem, tail(log))
        return ok

    def seen(self, pattern, log, scratch):
        """Whether the command's output, or the run.log of a study's run, has the pattern."""
        files = [log] + glob.glob(os.path.join(scratch, "**", "runs", "*", "run.log"),
                                  recursive=True)
        for path in files:
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    if pattern.search(f.read()):
                        return True
            except OSError:
                pass
        return False

    def stop_after_first_step(self, command, words, process, scratch, log, job):
        # A study is stopped once its first run has stepped; a solver run from its banner on,
        # which ends it after its first step (the frames and images of its start are what a
        # plume's start costs: a later stop would only add steps).
        launcher = words[0]
        started = STEP_LINE if launcher == "jobs/scaling/run" else BANNER
        deadline = time.monotonic() + FIRST_STEP_TIMEOUT
        while process.poll() is None and not self.seen(started, log, scratch):
            if time.monotonic() > deadline:
                break
            time.sleep(0.2)
        if process.poll() is not None:
            return self.check("%s: still running at its start (it ended with status %d)"
                              % (command, process.returncode), False, tail(log))
        if not self.seen(started, log, scratch):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return self.check("%s: starts within %d s" % (command, FIRST_STEP_TIMEOUT), False,
                              tail(log))
        if launcher in ("jobs/run", "jobs/scaling/run"):
            how, targets = signal.SIGTERM, [process.pid]
        elif launcher in ("srun", "sbatch"):
            with open(os.path.join(scratch, ".standin", "srun.pids")) as f:
                steps = [int(p) for p in f.read().split()]
            # Every process of the step, as Slurm signals them; only this command's, in case a
            # PID was reused.
            mine = set(processes_in(scratch))
            how, targets = signal.SIGUSR1, sorted(descendants(steps) & mine)
        else:
            how, targets = signal.SIGUSR1, [process.pid]
        for pid in targets:
            try:
                os.kill(pid, how)
            except OSError:
                pass
        try:
            status = process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return self.check("%s: stops within %d s of %s" % (command, STOP_TIMEOUT, how.name),
                              False, tail(log))
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if launcher == "jobs/scaling/run":
            ok = self.check("%s: exits with 143 after SIGTERM (got %d)" % (command, status),
                            status == 128 + signal.SIGTERM, tail(log))
            if ok:
                command.notes.append("stopped by SIGTERM")
            return ok and self.check("%s: says it stopped" % command,
                                     "stopped by SIGTERM" in text, tail(log))
        ok = self.check("%s: exits with 3 after %s (got %d)" % (command, how.name, status),
                        status == 3, tail(log))
        ok &= self.check("%s: took a step before it stopped" % command, STEP_LINE.search(text),
                         tail(log))
        stopped = STOPPED.search(text)
        if not self.check("%s: prints where it stopped and the continue command" % command,
                          stopped, tail(log)):
            return False
        problem = continue_problem(words, stopped.group(3), job, self.ranks(words, scratch))
        ok &= self.check("%s: the continue command `%s`: %s" % (
            command, stopped.group(3), problem), not problem)
        checkpoints = CHECKPOINT.findall(text)
        ok &= self.check("%s: wrote the checkpoint it names (%s)" % (command, checkpoints),
                         checkpoints and os.path.isfile(os.path.join(scratch, checkpoints[-1])))
        if launcher == "sbatch":
            asked, got = allocation(words, scratch), self.step_allocation(scratch)
            ok &= self.check("%s: the job step ran in the allocation asked for (nodes, tasks: "
                             "%s, got %s)" % (command, asked, got), asked == got)
            try:
                with open(os.path.join(scratch, ".standin", "scontrol.args")) as f:
                    requeued = f.read().split()
            except OSError:
                requeued = []
            ok &= self.check("%s: the script requeued the job (scontrol %s)" % (
                command, " ".join(requeued)), requeued[:1] == ["requeue"], tail(log))
        if ok:
            command.notes.append("stopped after step %s by %s" % (stopped.group(2), how.name))
        return ok

    def step_allocation(self, scratch):
        """(nodes, tasks) the newest srun stand-in ran in."""
        try:
            with open(os.path.join(scratch, ".standin", "srun.args")) as f:
                fields = f.read().splitlines()[-1].split()
            return (int(fields[2].split("=")[1]), int(fields[3].split("=")[1]))
        except (OSError, IndexError, ValueError):
            return None

    def ranks(self, words, scratch):
        """The rank count a solver launch runs with here."""
        for option in ("-n", "-np", "--ntasks"):
            if option in words[:-1] and words[0] != "sbatch":
                return int(words[words.index(option) + 1])
        if words[0] == "jobs/run":
            return 2
        if words[0] in ("srun", "sbatch"):
            try:
                with open(os.path.join(scratch, ".standin", "srun.args")) as f:
                    return int(f.read().splitlines()[-1].split()[1])
            except (OSError, IndexError, ValueError):
                return None
        return 1

    # -- inline spans and indented code ---------------------------------------------------------
    def check_span(self, command):
        words = span_words(command.text)
        program, executable = program_of(words)
        if program and "<" not in program:
            path = (os.path.join(self.build, program[len("build/"):])
                    if program.startswith("build/") else os.path.join(self.root, program))
            if not self.check("%s: %s exists" % (command, program), os.path.exists(path)):
                return False
            if executable and not self.check("%s: %s is executable" % (command, program),
                                             os.path.isfile(path) and os.access(path, os.X_OK)):
                return False
        elif words[0] in TOOLS and words[0] not in ("srun", "sbatch"):  # not on this machine
            if not self.check("%s: %s is installed" % (command, words[0]),
                              shutil.which(words[0])):
                return False
        for word in words:
            if re.match(r"^(jobs|tests)/[^<>]*\.ya?ml$", word):
                if not self.check("%s: the job %s exists" % (command, word),
                                  os.path.isfile(os.path.join(self.root, word))):
                    return False
        action = span_action(words)
        if action == "help":
            scratch = self.scratch()
            result = subprocess.run(["bash", "-c", command.text], cwd=scratch,
                                    env=self.environment(scratch), capture_output=True,
                                    timeout=SHORT_TIMEOUT)
            return self.check("%s: exits with 0 and prints a help (status %d, %d bytes)" % (
                command, result.returncode, len(result.stdout)),
                result.returncode == 0 and len(result.stdout) > 100,
                result.stderr.decode(errors="replace").splitlines()[-10:])
        if action == "ctest":
            result = subprocess.run(["ctest", "-N"] + words[1:], cwd=self.build,
                                    capture_output=True, text=True, timeout=60)
            listed = re.search(r"Total Tests: (\d+)", result.stdout)
            return self.check("%s: selects tests of the suite (ctest -N in the build directory: "
                              "%s)" % (command, listed.group(0) if listed else "none"),
                              listed and int(listed.group(1)) > 0,
                              result.stdout.splitlines()[-5:])
        if action == "run":
            return self.execute(command)
        return True

    def run_all(self, commands):
        """Every command, in chains (rule 2's continuations after what they continue), two
        chains at a time: half of a run's time is single-threaded (starting MPI and ParaView,
        a 1-rank study, CMake), so two at a time fill the 2 cores."""
        chains, chain_of = [], {}
        for command in commands:
            if command.after is not None and id(command.after) in chain_of:
                chain = chain_of[id(command.after)]
            else:
                chain = []
                chains.append(chain)
            chain.append(command)
            chain_of[id(command)] = chain
        # The dearest chains first, so that the cheap ones fill the gaps at the end.
        chains.sort(key=lambda chain: -sum(cost(c) for c in chain))

        def run_chain(chain):
            for command in chain:
                if time.monotonic() > self.deadline:
                    command.ok = self.check("%s: not run: the test's %d s are up" % (
                        command, TEST_SECONDS), False)
                    continue
                try:
                    if command.span:
                        command.ok = self.check_span(command)
                    else:
                        command.ok = self.execute(command)
                except Exception as error:  # a bug of this test: say which command met it
                    command.ok = self.check("%s: the test failed on it: %r" % (command, error),
                                            False)

        with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
            for future in [pool.submit(run_chain, chain) for chain in chains]:
                future.result()


def allocation(words, scratch):
    """(nodes, tasks) an sbatch command asks for: its options, else the script's #SBATCH
    lines, else Slurm's defaults (1 node, 1 task per node)."""
    asked = {}
    i = 1
    while i < len(words) and words[i].startswith("-"):
        option = words[i]
        name, _, value = option.partition("=")
        if not value and name in ("-N", "--nodes", "--ntasks-per-node", "-n", "--ntasks"):
            i += 1
            value = words[i] if i < len(words) else ""
        asked.setdefault({"-N": "--nodes", "-n": "--ntasks"}.get(name, name), value)
        i += 1
    try:
        with open(os.path.join(scratch, words[i])) as f:
            for line in f:
                if line.startswith("#SBATCH "):
                    name, _, value = line.split()[1].partition("=")
                    asked.setdefault(name, value)
    except (OSError, IndexError):
        pass
    nodes = int(asked.get("--nodes", 1))
    tasks = int(asked.get("--ntasks") or nodes * int(asked.get("--ntasks-per-node", 1)))
    return (nodes, tasks)


def span_action(words):
    """What is done with a command in prose beyond checking its program: "help", "ctest",
    "run" (a solver launch of a job not in LONG_JOBS on at most 2 ranks, run to its end: more
    ranks oversubscribe the 2 cores here and cost what a block's run does) or None."""
    if len(words) == 1 or any(re.search(r"<[^>]*>|^\[|\]$", w) for w in words):
        return None
    if words[1:] in (["--help"], ["-h"]):
        return "help"
    if words[0] == "ctest":
        return "ctest"
    if (words[0] in ("jobs/run", "mpiexec") and is_solver_launch(words) and job_of(words)
            and not is_long(words)):
        ranks = words[words.index("-n") + 1] if "-n" in words[:-1] else "2"
        if ranks.isdigit() and int(ranks) <= 2:
            return "run"
    return None


def continue_problem(words, printed, job, ranks):
    """What is wrong with the continue command a stopped run printed, or None."""
    got = words_of(printed)
    if not got or len(got) < 4:
        return "not a command"
    # jobs/run continues through itself (it starts the display a rendering job needs); under
    # srun, jobs/slurm/with_display goes in front of the program, as run.sbatch put it.
    through_run = words[0].endswith("jobs/run")
    if through_run != got[0].endswith("jobs/run"):
        return "does not continue through %s" % ("jobs/run" if through_run else "a launcher")
    if not through_run and got[0] not in ("mpiexec", "srun"):
        return "does not start with its launcher"
    if got[1] != "-n":
        return "does not give the rank count"
    if ranks is not None and got[2] != str(ranks):
        return "says %s ranks, the run had %s" % (got[2], ranks)
    # (the srun stand-in is mpiexec, which the solver then names, with with_display still in
    # front of the program: a command that runs too, a display for each rank)
    program = got[3] if not got[3].endswith("with_display") else got[4]
    if not through_run and not program.endswith("stablefluids"):
        return "does not run stablefluids"
    if job not in [os.path.normpath(w) for w in got]:
        return "does not name the job %s" % job
    if got[-2:] != ["--restart", "latest"] or got.count("--restart") != 1:
        return "does not end with one --restart latest"
    for i, word in enumerate(words):
        if word == "--set" and i + 1 < len(words):
            pair = ["--set", words[i + 1]]
            if not any(got[k:k + 2] == pair for k in range(len(got) - 1)):
                return "lacks --set %s" % words[i + 1]
    # PETSc options: the words after the job that start with one dash.
    after = words[words.index(next(w for w in words if os.path.normpath(w) == job)) + 1:]
    for word in after:
        if re.match(r"^-[A-Za-z]", word) and word not in got:
            return "lacks the option %s" % word
    return None


def awk_volume_check(text, scratch):
    """The awk of jobs/README.md prints one line with the gain, the loss and the end, the end
    being the last liquid_volume_change of the CSV it read (so it found the column)."""
    line = re.fullmatch(r"to t = \S+: largest gain [+-]\d+\.\d\d %, largest loss [+-]\d+\.\d\d "
                        r"%, at the end ([+-]\d+\.\d\d) %\n", text)
    if not line:
        return "prints the volume line (got %r)" % text[-200:]
    with open(os.path.join(scratch, "output", "sloshing_2d_steps.csv")) as f:
        rows = list(csv.DictReader(f))
    last = "%+.2f" % float(rows[-1]["liquid_volume_change"])
    if line.group(1) != last:
        return "says the volume changed by %s %% at the end, the CSV by %s %%" % (
            line.group(1), last)
    return None


EXPECT = {("jobs/README.md", "awk -F, -v until=1e30 '..."): awk_volume_check}


def matches(rule, command):
    """Whether an exception's or substitution's (doc, command) is this command: the same text,
    or its start when the rule's text ends with "..."."""
    doc, text = rule
    if command.doc != doc:
        return False
    if text.endswith("..."):
        return normal(command.text).startswith(normal(text[:-3]))
    return normal(command.text) == normal(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source")
    parser.add_argument("build")
    parser.add_argument("mpiexec", nargs="?", default="mpiexec")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--only")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    root, build = os.path.abspath(args.source), os.path.abspath(args.build)
    begin = time.monotonic()

    commands = []
    docs = markdown_files(root)
    for doc in docs:
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            blocks, spans = read_doc(doc, f.read())
        commands += blocks + [c for c in spans if span_words(c.text)]
    commands.sort(key=lambda c: (docs.index(c.doc), c.line))

    problems, used = [], set()
    for command in commands:
        if command.span:
            continue
        for rule, reason in EXCEPTIONS.items():
            if matches(rule, command):
                command.skip = reason
                used.add(rule)
                break
        for rule, (replacements, setup, reason) in SUBSTITUTIONS.items():
            if matches(rule, command) and not command.skip:
                used.add(rule)
                for old, new in replacements:
                    if old not in command.run_text:
                        problems.append("%s: the substitution's '%s' is not in it" % (command, old))
                    command.run_text = command.run_text.replace(old, new)
                command.setup = setup
                command.notes.append("substituted: " + reason)
        for rule, expect in EXPECT.items():
            if matches(rule, command):
                command.expect = expect
        for part in re.findall(r"(?<=\s)\[[A-Za-z-][^\]\n]*\]", command.run_text):
            command.run_text = command.run_text.replace(" " + part, "")
            command.notes.append("optional %s left out" % part)
        if not command.skip and re.search(r"<[A-Za-z][^<>\n]*>", command.run_text):
            problems.append("%s: a placeholder without a substitution" % command)
    stale = [rule for rule in list(EXCEPTIONS) + list(SUBSTITUTIONS) if rule not in used]

    # What runs: one of each command (a later identical one shares its result), each
    # continuation after what it continues (rule 2).
    to_run, first = [], {}
    for command in commands:
        if command.skip or (args.only and args.only not in command.text):
            continue
        if not command.span or span_action(span_words(command.text)) == "run":
            key = normal(command.run_text)
            if key in first:
                command.same = first[key]
                continue
            first[key] = command
            words = words_of(command.run_text) or [""]
            command.long = is_long(words)
            job = job_of(words)
            for earlier in reversed(to_run):
                if earlier.span:
                    continue
                earlier_words = words_of(earlier.run_text) or [""]
                if "--restart" in words and job and earlier.long and job_of(earlier_words) == job:
                    command.after = earlier
                    break
                if (words[0] == "jobs/scaling/run" and len(words) > 1
                        and words[1] in ("collect", "plot")
                        and earlier_words[0] == "jobs/scaling/run"
                        and job_of(earlier_words) == job):
                    command.after = earlier
                    break
        to_run.append(command)

    if args.list:
        for command in commands:
            if command.span:
                action = span_action(span_words(command.text))
                state = {"help": "runs: its help", "ctest": "ctest -N: selects tests",
                         "run": "runs to its end"}.get(
                    action, "its program (and job file) is checked")
                if command.same:
                    state = "the same as " + command.same.where()
            elif command.skip:
                state = "EXCEPTION: " + command.skip
            elif command.same:
                state = "the same as " + command.same.where()
            else:
                state = ("runs%s%s: " % (" until its first step" if command.long else "",
                                         " after " + command.after.where() if command.after
                                         else "") + normal(command.run_text))
            print("%-5s %s\n        %s" % (command.kind, command, state))
        for rule in stale:
            print("STALE: %s: %s" % rule)
        return 0

    suite = Suite(root, build, args.mpiexec, args.keep)
    # Stopped from outside (CTest's timeout, Ctrl-C): the runs it started end with it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("docs_commands: stopped by SIGTERM"))
    try:
        blocks = [c for c in commands if not c.span]
        suite.check("the docs have shell blocks to run (%d commands in %d files)" % (
            len(blocks), len(docs)), len(blocks) >= 10)
        for problem in problems:
            suite.check(problem, False)
        for doc, start in stale:
            suite.check("%s: the exception or substitution for `%s` matches no command of it any "
                        "more: remove it" % (doc, start), False)
        suite.run_all(to_run)
        for command in commands:
            if command.skip:
                print("skip    %s (%s)" % (command, command.skip))
            elif command.same:
                print("same    %s (as %s%s)" % (command, command.same.where(),
                                                 "".join("; " + n for n in command.notes)))
                suite.check("%s: the same command as %s, which failed" % (
                    command, command.same.where()), command.same.ok)
    finally:
        suite.close()
    print("docs_commands: %d passed, %d failed, %.0f s" % (
        suite.passed, suite.failed, time.monotonic() - begin))
    return 1 if suite.failed else 0


if __name__ == "__main__":
    sys.exit(main())
