#!/usr/bin/env bash
# End-to-end fuzz of job rejection through the executable: mutants of a valid job, each made
# invalid on purpose (unknown key, negative cell count, NaN number, YAML truncated inside a map,
# wrong type for a known key, duplicate key), are run on 2 ranks, each in a fresh empty
# directory. Every run must exit with status 2 (a job error) well before the timeout, print
# exactly one "stablefluids: error:" line naming the job file, and create neither the output
# nor the checkpoint directory the mutant names. Mutants are generated deterministically (fixed
# seed, Python standard library only), so a failure reproduces. After them come fixed cases, each
# with the exact start of its message: values beyond the limits of jobs/README.md ("Limits"); job
# files that are not regular files (a FIFO, /dev/zero, a directory) or exceed 1 MiB, which must be
# refused without being read (the timeout turns a hang there into a failure); and 1 MiB of unknown
# keys, which must be refused at the first.
# usage: fuzz_cli.sh <stablefluids executable> <mpiexec>   (FUZZ_CLI_COUNT=N to change the 40)
set -uo pipefail
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") mpiexec=$2  # runs happen elsewhere
count=${FUZZ_CLI_COUNT:-40}
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One directory per mutant, holding only mutant.yaml; its output.directory and
# checkpoint.directory point inside that directory. kind.txt says which mutation was applied.
"$python" - "$work" "$count" <<'PY' || { echo "fuzz_cli: generator failed"; exit 1; }
import os, random, sys

work, count = sys.argv[1], int(sys.argv[2])
# Output first, so that a truncation further down still leaves the directories named.
BASE = """output:
  directory: @DIR@/out
  interval: 0.1
checkpoint:
  directory: @DIR@/checkpoints
  every_steps: 5
  keep: 2
grid:
  cells: [16, 16]
  size: [1.0, 1.0]
boundary:
  x:
    lower: {type: inflow, velocity: [1.0, 0.0], scalars: {smoke: 1.0}}
    upper: outflow
  y: free-slip
scalars:
  smoke:
    background: 0.0
    sources:
      - {shape: sphere, center: [0.2, 0.5], radius: 0.1, value: 1.0}
fluid:
  viscosity: 0.001
forces:
  gravity: [0.0, -1.0]
obstacles:
  - {shape: box, lower: [0.5, 0.4], upper: [0.6, 0.6]}
time:
  dt: 0.01
  end: 0.1
debug:
  dump_on_failure: false
"""

rng = random.Random(20240611)
lines = BASE.splitlines()

def block_keys(skip_output=True):
    """Indices of block-style 'key: value' or 'key:' lines (not list items)."""
    out = []
    for i, line in enumerate(lines):
        s = line.lstrip()
        if not s or s.startswith("-") or ":" not in s:
            continue
        if skip_output and "@DIR@" in line:
            continue
        out.append(i)
    return out

def unknown_key():
    i = rng.choice(block_keys(False))
    indent = len(lines[i]) - len(lines[i].lstrip())
    if lines[i].rstrip().endswith(":"):  # a section header: put the key inside it
        indent = len(lines[i + 1]) - len(lines[i + 1].lstrip())
    new = lines[:i + 1] + [" " * indent + "unknwon_%d: 1" % rng.randrange(100)] + lines[i + 1:]
    return "\n".join(new) + "\n"

def negative_cells():
    n = rng.choice(["-1", "-16", "0", "-99999999999"])
    cells = rng.choice(["[%s, 16]" % n, "[16, %s]" % n, "[16, 16, %s]" % n])
    return BASE.replace("cells: [16, 16]", "cells: " + cells)

NUMERIC = ["interval: 0.1", "every_steps: 5", "viscosity: 0.001", "dt: 0.01", "end: 0.1",
           "background: 0.0", "radius: 0.1", "size: [1.0, 1.0]", "gravity: [0.0, -1.0]"]

def nan_number():
    target = rng.choice(NUMERIC)
    key, value = target.split(": ", 1)
    bad = rng.choice([".nan", "NaN", ".inf", "-.inf", "1e400"])
    if value.startswith("["):
        value = "[%s, 1.0]" % bad
    else:
        value = bad
    return BASE.replace(target, key + ": " + value)

def truncated_map():
    flow = [i for i, line in enumerate(lines) if "{" in line]
    i = rng.choice(flow)
    line = lines[i]
    start = line.index("{") + 1
    cut = rng.randrange(start, len(line) - 1)  # stop before the closing brace
    return "\n".join(lines[:i] + [line[:cut]]) + "\n" * rng.randrange(2)

WRONG = [("  dt: 0.01", "  dt: [0.01]"), ("  end: 0.1", "  end: {t: 1}"),
         ("  cells: [16, 16]", "  cells: sixteen"), ("  keep: 2", "  keep: two"),
         ("  every_steps: 5", "  every_steps: 2.5"), ("  viscosity: 0.001", "  viscosity: thick"),
         ("  dump_on_failure: false", "  dump_on_failure: maybe"), ("  y: free-slip", "  y: 3"),
         ("  interval: 0.1", "  interval: [0.1]"), ("  gravity: [0.0, -1.0]", "  gravity: down"),
         ("fluid:\n  viscosity: 0.001", "fluid: [viscosity]"),
         ("time:\n  dt: 0.01\n  end: 0.1", "time: 0.1")]

def wrong_type():
    old, new = rng.choice(WRONG)
    assert old in BASE, old
    return BASE.replace(old, new, 1)

def duplicate_key():
    i = rng.choice(block_keys())
    return "\n".join(lines[:i + 1] + [lines[i]] + lines[i + 1:]) + "\n"

MUTATIONS = [("unknown key", unknown_key), ("negative cell count", negative_cells),
             ("NaN or infinite number", nan_number), ("truncated inside a map", truncated_map),
             ("wrong type", wrong_type), ("duplicate key", duplicate_key)]

def case(d, kind, expect):
    os.makedirs(os.path.join(d, "run"))
    with open(os.path.join(d, "kind.txt"), "w") as f:
        f.write(kind + "\n")
    with open(os.path.join(d, "expect.txt"), "w") as f:
        f.write("stablefluids: error: " + expect + "\n")
    return os.path.join(d, "run", "mutant.yaml")

for n in range(count):
    name, mutate = MUTATIONS[n % len(MUTATIONS)]
    text = mutate()
    d = os.path.join(work, "%03d" % n)
    with open(case(d, name, "mutant.yaml"), "w") as f:
        f.write(text.replace("@DIR@", os.path.join(d, "run")))

# Fixed cases: (what, the change to BASE, the start of the message).
LIMITS = [
    ("viscosity of 1e308", ("viscosity: 0.001", "viscosity: 1e308"),
     "mutant.yaml:22: fluid.viscosity: must be at most 1e+30 in magnitude"),
    ("gravity of -1e308", ("gravity: [0.0, -1.0]", "gravity: [0.0, -1e308]"),
     "mutant.yaml:24: forces.gravity[1]: must be at most 1e+30 in magnitude"),
    ("subnormal dt", ("dt: 0.01", "dt: 4.9e-324"),
     "mutant.yaml:28: time.dt: must be at least 1e-30"),
    ("subnormal size", ("size: [1.0, 1.0]", "size: [1.0, 4.9e-324]"),
     "mutant.yaml:10: grid.size[1]: must be at least 1e-30"),
    ("output interval of 1e-300", ("interval: 0.1", "interval: 1e-300"),
     "mutant.yaml:3: output.interval: must be 0 or at least 1e-30"),
    ("10^8 frames", ("interval: 0.1", "interval: 1e-9"),
     "mutant.yaml:3: output.interval: time.end / output.interval gives "),
    ("10^9 steps", ("dt: 0.01", "dt: 1e-10"),
     "mutant.yaml:28: time.dt: time.end / time.dt gives "),
    ("origin too far out for the cells",
     ("size: [1.0, 1.0]", "size: [1.0, 1.0]\n  origin: [1e20, 0.0]"),
     "mutant.yaml:11: grid.origin[0]: the cells along x are 0.0625 wide"),
    ("name of 230 characters", ("debug:\n", "name: %s\ndebug:\n" % ("n" * 230)),
     "mutant.yaml:30: name: is 230 characters long, more than 219"),
]
for i, (kind, (old, new), expect) in enumerate(LIMITS):
    assert old in BASE, old
    d = os.path.join(work, "limit_%02d" % i)
    with open(case(d, kind, expect), "w") as f:
        f.write(BASE.replace(old, new, 1).replace("@DIR@", os.path.join(d, "run")))

refused = "cannot read job file 'mutant.yaml': "
os.mkfifo(case(os.path.join(work, "file_fifo"), "a FIFO",
               refused + "it is a FIFO, not a regular file"))
os.symlink("/dev/zero", case(os.path.join(work, "file_zero"), "/dev/zero",
                             refused + "it is a character device, not a regular file"))
os.mkdir(case(os.path.join(work, "file_directory"), "a directory",
              refused + "it is a directory, not a regular file"))
d = os.path.join(work, "file_large")
with open(case(d, "1 MiB + 1 byte", refused + "it is 1048577 bytes, more than the 1048576 "
               "bytes (1 MiB) a job file may have"), "w") as f:
    text = BASE.replace("@DIR@", os.path.join(d, "run"))
    f.write(text + "#" * ((1 << 20) - len(text)) + "\n")
keys = "".join("k%07d: 1\n" % i for i in range((1 << 20) // 12))
with open(case(os.path.join(work, "file_keys"), "1 MiB of unknown keys",
               "mutant.yaml:1: k0000000: unknown key"), "w") as f:
    f.write(keys + "#" * ((1 << 20) - len(keys) - 1) + "\n")
PY

# A rejected job costs little CPU but a second or two of MPI and PETSc start-up, so a few runs
# go at once (FUZZ_CLI_PARALLEL, default 4) to keep the whole test well under a minute.
parallel=${FUZZ_CLI_PARALLEL:-4}
run_one() {  # run_one <dir>: the mutant under mpiexec with a hang guard; status to <dir>/status
  (cd "$1/run" && timeout 20 "$mpiexec" -n 2 --oversubscribe "$exe" mutant.yaml) > "$1/log" 2>&1
  echo $? > "$1/status"
}
start=$(date +%s)
running=0
for dir in "$work"/*/; do
  run_one "${dir%/}" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then wait -n; running=$((running - 1)); fi
done
wait

passed=0 failed=0
for dir in "$work"/*/; do
  dir=${dir%/}
  kind=$(cat "$dir/kind.txt")
  log="$dir/log"
  status=$(cat "$dir/status")
  problems=()
  [ "$status" -eq 124 ] && problems+=("timed out (a rank hung)")
  [ "$status" -ne 2 ] && [ "$status" -ne 124 ] && problems+=("exit status $status, expected 2")
  errors=$(grep -c '^stablefluids: error:' "$log")
  [ "$errors" -ne 1 ] && problems+=("$errors 'stablefluids: error:' lines, expected 1")
  expect=$(cat "$dir/expect.txt")
  awk -v want="$expect" 'index($0, want) == 1 { found = 1 } END { exit !found }' "$log" ||
    problems+=("no error line starts with '$expect'")
  [ -e "$dir/run/out" ] && problems+=("the output directory was created")
  [ -e "$dir/run/checkpoints" ] && problems+=("the checkpoint directory was created")
  if [ ${#problems[@]} -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: mutant $(basename "$dir") ($kind): $(IFS=';'; echo "${problems[*]}")"
    echo "--- job ---"
    # Only a small regular file is shown: reading the FIFO or /dev/zero cases would never end.
    if [ -f "$dir/run/mutant.yaml" ] && [ "$(stat -Lc %s "$dir/run/mutant.yaml")" -lt 10000 ]; then
      cat "$dir/run/mutant.yaml"
    else
      echo "($(stat -Lc '%F, %s bytes' "$dir/run/mutant.yaml"), not shown)"
    fi
    echo "--- output ---"; head -20 "$log" | cut -c1-300
    echo "---"
  fi
done
total=$(ls -d "$work"/*/ | wc -l)
echo "fuzz_cli: $count mutants and $((total - count)) fixed cases in $(($(date +%s) - start)) s"
echo "fuzz_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -eq "$total" ] && [ "$total" -gt "$count" ]
