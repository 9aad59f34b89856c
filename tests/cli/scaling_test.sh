#!/usr/bin/env bash
# End-to-end checks of the scaling-study driver (jobs/scaling/stablefluids_scaling.py):
#   - `all` on the tiny strong and weak studies (2-D, 3 steps, 2 repetitions, 1/2/4 ranks) leaves
#     results.csv/.md and three PNGs, one CSV row per rank count, and seconds_per_step equal to
#     the median of the runs' timings JSON;
#   - the weak study needs grid.cells_per_rank in the solver: if the solver does not know the key
#     yet, this is reported as pending and counted as a FAILURE (never skipped silently);
#   - the README's study (the 3-D plume, whose base job renders with Catalyst) runs through
#     `all` with --steps 2 --repetitions 1, its runs without the catalyst section;
#   - `catalyst: keep` makes the base job's script paths absolute, so the run's job file, in
#     another directory, names the same script; anything but drop/keep is refused;
#   - `run --slurm` writes one array script per rank count that bash parses, each asking for
#     that many tasks, with the --array range of its (ranks, repetition) pairs, a script that
#     submits them all, and a task table naming every rank count and existing job file;
#   - each rank count's first run is preceded by a STREAM triad measurement on its ranks
#     (stream.log): results.csv has positive per-rank and total bandwidths, as recorded, and the
#     bandwidth bound of the efficiency (bound_efficiency, exactly 1 at the smallest rank count,
#     B_rank(N) / B_rank(N0) elsewhere), which results.md shows and explains; results.md names
#     the machine (this host, its CPU model and cores) and the launcher; the tiny studies run a
#     stand-in with exact bandwidths, whose strong and weak bounds are checked to the bit;
#   - an array task runs the STREAM program before the solver, both with srun (a stand-in here
#     that starts them with mpiexec), and the machine it records is the job's;
#   - the liquid study (dam_break_strong) passes --dry-run with its finer grid; a liquid job
#     (the dam break on a coarse grid, set: by a study) runs through `all`, with its surface
#     stage in the results;
#   - errors (no executable) end with a message and a non-zero status; --dry-run writes nothing.
# usage: scaling_test.sh <source dir> <stablefluids executable> [<stream_triad executable>]
# (stream_triad must be beside stablefluids, where the build puts it and the driver looks.)
set -uo pipefail
usage="usage: scaling_test.sh <source dir> <stablefluids executable> [<stream_triad executable>]"
src=$(cd "${1:?$usage}" && pwd)
exe=$(readlink -f "${2:?$usage}")
stream=$(readlink -f "${3:-$(dirname "$exe")/stream_triad}")
py=/usr/bin/python3
driver=("$py" "$src/jobs/scaling/stablefluids_scaling.py")
studies=$src/jobs/scaling/studies
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

source "$tests/cli_checks.sh"
is_png() {  # the 8-byte PNG signature, and more than the signature
  [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] &&
    [ "$(stat -c %s "$1")" -gt 100 ]
}
rows_match_ranks() {  # <results dir> <study>: one CSV row per ranks value, in order
  "$py" - "$1" "$2" <<'PY'
import csv, sys, yaml
rows = list(csv.DictReader(open(sys.argv[1] + "/results.csv")))
ranks = sorted(yaml.safe_load(open(sys.argv[2]))["ranks"])
sys.exit(0 if [int(r["ranks"]) for r in rows] == ranks else 1)
PY
}
medians_match() {  # <results dir> <column> <json key path> <repetitions>: CSV == median of the
                   # run JSONs, of which there are <repetitions> per rank count
  "$py" - "$1" "$2" "$3" "$4" <<'PY'
import csv, glob, json, statistics, sys
out, column, keys, reps = sys.argv[1], sys.argv[2], sys.argv[3].split("."), int(sys.argv[4])
ok = True
for row in csv.DictReader(open(out + "/results.csv")):
    values = []
    for path in sorted(glob.glob(f"{out}/runs/r{row['ranks']}_rep*/*_timings.json")):
        value = json.load(open(path))
        for key in keys:
            value = value[key]
        values.append(value)
    expected = statistics.median(values)
    if len(values) != reps or float(row[column]) != expected:
        print(f"  {column} on {row['ranks']} ranks: csv {row[column]}, "
              f"median of {values} = {expected!r}")
        ok = False
sys.exit(0 if ok else 1)
PY
}
stream_checks() {  # <results dir>: prints the name of every STREAM check that fails (see
                   # check_study), and why; one process for them all, as CI's time is short
  "$py" - "$1" <<'PY'
import csv, glob, json, statistics, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(out + "/results.csv")))
failed = set()
def fail(check, why):
    failed.add(check)
    print(f"  {check}: {why}", file=sys.stderr)
columns = ("stream_gb_per_s_per_rank", "stream_gb_per_s_total", "bound_speedup",
           "bound_efficiency", "host", "cpu_model", "cores", "launcher")
missing = [c for c in columns if not rows or c not in rows[0]]
if missing:
    for check in ("columns", "medians", "bound", "md_bound"):
        fail(check, f"no column {', '.join(missing)}")
    for check in sorted(failed):
        print(check)
    sys.exit(0)
for row in rows:
    n = int(row["ranks"])
    records = []
    for path in sorted(glob.glob(f"{out}/runs/r{n}_rep*/stream.log")):
        lines = [l for l in open(path) if l.startswith('{"program": "stream_triad"')]
        records.append(json.loads(lines[-1]))
    per_rank, total = float(row["stream_gb_per_s_per_rank"]), float(row["stream_gb_per_s_total"])
    expected = statistics.median(r["bytes_per_second_per_rank"] for r in records) / 1e9
    # Run locally, a study measures once per rank count, before its first repetition.
    if (len(records) != 1 or records[0]["ranks"] != n
            or not glob.glob(f"{out}/runs/r{n}_rep1/stream.log")):
        fail("medians", f"{n} ranks: {len(records)} STREAM records, expected 1 of {n} ranks "
                        "in the first repetition's run")
    elif not (per_rank > 0 and total > 0) or per_rank != expected:
        fail("medians", f"{n} ranks: {per_rank} GB/s per rank, {total} in all; median of the "
                        f"runs {expected}")
    elif abs(total - n * per_rank) > 1e-9 * total:
        fail("medians", f"{n} ranks: {total} GB/s in all is not {n} x {per_rank}")
# The bound: exactly 1 at N0, B_rank(N) / B_rank(N0) elsewhere.
b0 = float(rows[0]["stream_gb_per_s_per_rank"])
bounds = [r["bound_efficiency"] for r in rows]
if bounds[0] != "1.0" or any(
        not (float(r["bound_efficiency"]) > 0
             and abs(float(r["bound_efficiency"]) - float(r["stream_gb_per_s_per_rank"]) / b0)
             < 1e-12) for r in rows[1:]):
    fail("bound", f"bound_efficiency {bounds}")
# results.md: its "bandwidth bound" column, 100.0 % in the first row.
table = [l.strip().strip("|").split(" | ") for l in open(out + "/results.md")
         if l.startswith("| ")]
head = [h.strip() for h in table[0]]
shown = [row[head.index("bandwidth bound")].strip() if "bandwidth bound" in head else ""
         for row in table[1:]]
if not shown or shown[0] != "100.0 %" or not all(b.endswith(" %") for b in shown):
    fail("md_bound", f"results.md's bandwidth bound column: {shown}")
for check in sorted(failed):
    print(check)
PY
}
# What results.md must say about this machine: its host name, CPU model and cores.
host=$(hostname)
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
machine_line_ok() {  # <results.md>
  grep -F "Machine: host \`$host\` (${cpu_model:-CPU unknown}, " "$1" |
    grep -qE " [0-9]+ cores\), ranks started with \`[^\`]*mpiexec[^\`]*\`"
}
constant_cells_per_rank() {  # <results dir> <cells per rank>
  "$py" -c "import csv,sys; rows=list(csv.DictReader(open(sys.argv[1]+'/results.csv')));
sys.exit(0 if rows and all(float(r['cells_per_rank'])==float(sys.argv[2]) for r in rows) else 1)" \
    "$1" "$2"
}
check_study() {  # <name> <results dir> [<repetitions>]: the outputs of `all`
  local name=$1 out=$2 reps=${3:-2}
  check "$name: results.csv exists" test -s "$out/results.csv"
  check "$name: results.md exists" test -s "$out/results.md"
  check "$name: results.md is a Markdown table" grep -q '^| ranks |' "$out/results.md"
  for png in time_per_step speedup stages; do
    check "$name: $png.png is a PNG" is_png "$out/$png.png"
  done
  check "$name: one CSV row per ranks value" rows_match_ranks "$out" "$studies/$name.yaml"
  check "$name: seconds_per_step is the median of the runs" \
    medians_match "$out" seconds_per_step seconds_per_step "$reps"
  check "$name: project seconds_per_step is the median of the runs" \
    medians_match "$out" project_seconds_per_step stages.project.seconds_per_step "$reps"
  stream_checks "$out" > "$out.stream_failures"
  check "$name: results.csv has the STREAM, bound and machine columns" \
    bash -c "! grep -qx columns '$out.stream_failures'"
  check "$name: STREAM bandwidths per rank and in all, positive, as measured before rep 1" \
    bash -c "! grep -qx medians '$out.stream_failures'"
  check "$name: bound_efficiency is 1 at N0 and B_rank(N) / B_rank(N0) elsewhere" \
    bash -c "! grep -qx bound '$out.stream_failures'"
  check "$name: results.md shows the bound, 100.0 % at N0" \
    bash -c "! grep -qx md_bound '$out.stream_failures'"
  check "$name: results.md says what the bandwidth bound means" \
    grep -q "^STREAM: .*Bandwidth bound = B_rank(N) / B_rank(N0)" "$out/results.md"
  check "$name: results.md names the machine and the launcher" machine_line_ok "$out/results.md"
}

# The driver finds the STREAM program beside the solver, as the build puts them.
check "stream_triad is beside stablefluids ($stream)" \
  bash -c "[ -x '$stream' ] && [ '$stream' -ef '$(dirname "$exe")/stream_triad' ]"
# A stand-in for it (--stream-exe) in the tiny studies, which check the driver's plumbing and
# arithmetic, not the bandwidth (the plume, the array task and the liquid below run the real
# program): it starts in a fifth of the time an MPI program takes here, and its bandwidth is
# exact, 12 GB/s in all on any rank count, so that the bounds come out exactly.
cat > fake_stream <<'EOF'
#!/bin/bash
[ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ] || exit 0
n=${OMPI_COMM_WORLD_SIZE:-1}
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
printf '{"program": "stream_triad", "ranks": %d, "bytes_per_second_per_rank": %s, %s, %s}\n' \
  "$n" "$(awk -v n="$n" 'BEGIN { printf "%.17g", 12e9 / n }')" \
  '"bytes_per_second_total": 12e9' \
  "\"host\": \"$(hostname)\", \"cpu_model\": \"$cpu\", \"cores\": $(nproc), \"launcher\": \"$2\""
EOF
chmod +x fake_stream

# --- strong ---------------------------------------------------------------------------------
"${driver[@]}" all "$studies/tiny_strong.yaml" --exe "$exe" --stream-exe fake_stream \
  --output "$work/strong" > strong.log 2>&1
status=$?
check "tiny_strong: 'all' succeeds (status $status)" test "$status" -eq 0
[ "$status" -eq 0 ] || tail -n 30 strong.log
check_study tiny_strong "$work/strong"
check "tiny_strong: the bound is N * B_rank(N) / B_rank(1) = 1 as speed-up, 1 / N as efficiency" \
  "$py" -c "import csv,sys; rows=list(csv.DictReader(open(sys.argv[1])));
sys.exit(0 if [(r['ranks'], r['bound_speedup'], r['bound_efficiency']) for r in rows] ==
         [('1', '1.0', '1.0'), ('2', '1.0', '0.5'), ('4', '1.0', '0.25')] else 1)" \
  "$work/strong/results.csv"

# --- weak -----------------------------------------------------------------------------------
# A dry parse: does this solver accept grid.cells_per_rank?
mkdir -p preflight
(cd preflight && timeout 60 mpiexec -n 1 --oversubscribe "$exe" "$studies/tiny_weak_job.yaml") \
  > preflight.log 2>&1
if grep -q "cells_per_rank: unknown key" preflight.log; then
  echo "PENDING: the solver does not accept grid.cells_per_rank yet; the weak study cannot run"
  echo "         ($(grep -m1 'cells_per_rank' preflight.log))"
  failed=$((failed + 1))
  echo "FAILED: tiny_weak: weak scaling pending (grid.cells_per_rank unknown to the solver)"
else
  "${driver[@]}" all "$studies/tiny_weak.yaml" --exe "$exe" --stream-exe fake_stream \
    --output "$work/weak" > weak.log 2>&1
  status=$?
  check "tiny_weak: 'all' succeeds (status $status)" test "$status" -eq 0
  [ "$status" -eq 0 ] || tail -n 30 weak.log
  check_study tiny_weak "$work/weak"
  check "tiny_weak: 16 x 16 = 256 cells per rank on every rank count" \
    constant_cells_per_rank "$work/weak" 256
  check "tiny_weak: the bound is B_rank(N) / B_rank(1) = 1 / N, as speed-up and efficiency" \
    "$py" -c "import csv,sys; rows=list(csv.DictReader(open(sys.argv[1])));
sys.exit(0 if [(r['ranks'], r['bound_speedup'], r['bound_efficiency']) for r in rows] ==
         [('1', '1.0', '1.0'), ('2', '0.5', '0.5'), ('4', '0.25', '0.25')] else 1)" \
    "$work/weak/results.csv"
fi

# --- the README's study ---------------------------------------------------------------------
# jobs/scaling/README.md's example, the 3-D plume on 1, 2 and 4 ranks, as a user runs it but
# with 2 steps and one repetition (--steps, --repetitions). Its base job renders with Catalyst;
# the study drops that section, so it runs whether or not the solver has Catalyst.
"${driver[@]}" all "$studies/plume_strong.yaml" --steps 2 --repetitions 1 --exe "$exe" \
  --stream-elements 65536 --output "$work/plume" > plume.log 2>&1
status=$?
check "plume_strong: 'all' succeeds (status $status)" test "$status" -eq 0
[ "$status" -eq 0 ] || tail -n 30 plume.log
check_study plume_strong "$work/plume" 1
check "plume_strong: every run took the 2 steps asked for" \
  "$py" -c "import csv,sys; rows=list(csv.DictReader(open(sys.argv[1])));
sys.exit(0 if len(rows) == 3 and all(r['steps'] == '2' for r in rows) else 1)" \
  "$work/plume/results.csv"
check "plume_strong: the runs' jobs have no catalyst section" \
  bash -c "ls '$work'/plume/runs/r*_rep1/job.yaml > /dev/null &&
           ! grep -l '^catalyst:' '$work'/plume/runs/r*_rep1/job.yaml"
check "plume_strong: the base job does have one (so the check above means something)" \
  grep -q '^catalyst:' "$src/jobs/plume_3d.yaml"

# --- catalyst: keep -------------------------------------------------------------------------
# A base job in another directory naming its script relatively: the run's job file (in the
# run directory) must name the script where the base job finds it, and keep the images per run.
mkdir -p keep/jobdir/scripts
cp "$studies/tiny_job.yaml" keep/jobdir/job.yaml
cat >> keep/jobdir/job.yaml <<'YAML'
catalyst:
  directory: images
  scripts:
    - {script: scripts/render.py, every_steps: 2, args: [--field, density]}
YAML
echo "# a stand-in: only its path is checked here" > keep/jobdir/scripts/render.py
keep_study() {  # <file> <catalyst value or ""> : a one-run study of keep/jobdir/job.yaml
  {
    echo "{name: keep, base_job: jobdir/job.yaml, kind: strong, ranks: [2], steps: 2,"
    echo " repetitions: 1, output: out_$1${2:+, catalyst: $2}}"
  } > "keep/$1.yaml"
}
keep_study kept keep
keep_study dropped ""
keep_study wrong maybe
for study in kept dropped; do
  "${driver[@]}" run "keep/$study.yaml" --slurm --exe "$exe" > "keep_$study.log" 2>&1
  check "catalyst study '$study': the job files are written" \
    test -s "keep/out_$study/runs/r2_rep1/job.yaml"
done
kept=keep/out_kept/runs/r2_rep1/job.yaml
check "catalyst: keep names the script by its path from the base job" \
  grep -qx "  - script: $work/keep/jobdir/scripts/render.py" "$kept"
check "catalyst: keep keeps the schedule and arguments" \
  bash -c "grep -qx '    every_steps: 2' '$kept' && grep -qx '    args: \[--field, density\]' '$kept'"
check "catalyst: keep puts a relative image directory under the run's" \
  grep -qx "  directory: $work/keep/out_kept/runs/r2_rep1/images" "$kept"
check "catalyst left out drops the section" \
  bash -c "! grep -q catalyst keep/out_dropped/runs/r2_rep1/job.yaml"
"${driver[@]}" run keep/wrong.yaml --dry-run --exe "$exe" > keep_wrong.log 2>&1
status=$?
check "catalyst: maybe is refused (status $status)" \
  bash -c "[ $status -eq 1 ] && grep -q \"catalyst must be 'drop' or 'keep'\" keep_wrong.log"

# --- Slurm ----------------------------------------------------------------------------------
mkdir -p nosbatch
ln -s "$py" nosbatch/python3
PATH="$work/nosbatch:/usr/bin:/bin" "${driver[@]}" run "$studies/tiny_strong.yaml" --slurm \
  --exe "$exe" --output "$work/slurm" > slurm.log 2>&1
status=$?
check "--slurm succeeds without sbatch (status $status)" test "$status" -eq 0
submit=$work/slurm/slurm_submit.sh
tasks=$work/slurm/slurm_tasks.txt
check "--slurm prints how to submit" grep -q "^  .*slurm_submit.sh$" slurm.log
check "bash -n jobs/slurm/run.sbatch" bash -n "$src/jobs/slurm/run.sbatch"
check "bash -n slurm_submit.sh" bash -n "$submit"
pairs=$("$py" -c "import sys, yaml; s = yaml.safe_load(open(sys.argv[1]))
print(len(s['ranks']) * s['repetitions'])" "$studies/tiny_strong.yaml")
# One array job per rank count, sized for it: tasks 0-1 are the 1-rank runs, 2-3 the 2-rank
# ones, 4-5 the 4-rank ones (the task table's order), and each script asks for its ranks only.
first=0
for n in 1 2 4; do
  script=$work/slurm/slurm_r$n.sbatch
  check "slurm_r$n.sbatch: bash -n" bash -n "$script"
  check "slurm_r$n.sbatch: no template placeholders left" \
    bash -c "! grep -q '@[A-Z_]*@' '$script'"
  check "slurm_r$n.sbatch: --ntasks=$n" grep -qx "#SBATCH --ntasks=$n" "$script"
  check "slurm_r$n.sbatch: --array=$first-$((first + 1))" \
    grep -qx "#SBATCH --array=$first-$((first + 1))" "$script"
  check "slurm_r$n.sbatch: --signal=USR1@120" grep -qx "#SBATCH --signal=USR1@120" "$script"
  check "slurm_r$n.sbatch: --open-mode=append" grep -qx "#SBATCH --open-mode=append" "$script"
  check "slurm_r$n.sbatch: srun -n per task" grep -q 'srun -n "$ranks"' "$script"
  check "slurm_r$n.sbatch: module lines are commented" \
    bash -c "grep -q '^# module load' '$script' && ! grep -q '^module' '$script'"
  check "slurm_submit.sh submits slurm_r$n.sbatch" grep -qx "sbatch $script" "$submit"
  if command -v shellcheck > /dev/null; then
    # The template, whose source line shellcheck follows, is checked by the shellcheck test;
    # from the results directory the sourced file is out of its reach.
    check "slurm_r$n.sbatch passes shellcheck" shellcheck -e SC1091 "$script"
  fi
  first=$((first + 2))
done
check "slurm_submit.sh submits nothing else" test "$(grep -c '^sbatch' "$submit")" -eq 3
check "no other array scripts" test "$(find "$work/slurm" -name '*.sbatch' | wc -l)" -eq 3
check "the task table has one line per pair" test "$(grep -vc '^#' "$tasks")" -eq "$pairs"
for n in 1 2 4; do
  check "the task table lists $n ranks" \
    bash -c "awk '\$1 !~ /^#/ && \$2 == $n' '$tasks' | grep -q 'runs/r${n}_rep[12]/job.yaml'"
done
while read -r task ranks rep dir job; do
  case $task in \#*) continue ;; esac
  check "task $task: job file $job exists" test -s "$job"
  check "task $task: job file is named for $ranks ranks, repetition $rep" \
    grep -q "^name: tiny_strong_r${ranks}_rep${rep}$" "$job"
done < "$tasks"
for n in 1 2 4; do
  script=$work/slurm/slurm_r$n.sbatch
  check "slurm_r$n.sbatch: names the STREAM program beside the solver" \
    grep -qx "stream=\${STABLEFLUIDS_STREAM:-$stream}" "$script"
  check "slurm_r$n.sbatch: srun runs the STREAM program, then the solver" \
    bash -c "s=\$(grep -n '^  srun -n \"\$ranks\" \"\$stream\"' '$script' | cut -d: -f1)
             x=\$(grep -n '^srun -n \"\$ranks\" .*\"\$exe\"' '$script' | cut -d: -f1)
             [ -n \"\$s\" ] && [ -n \"\$x\" ] && [ \"\$s\" -lt \"\$x\" ]"
done
# Task 0 (1 rank) as Slurm would run it, with an srun that records its commands and starts them
# with mpiexec: the STREAM record is made inside the job, before the solver's run.
mkdir -p fakeslurm
cat > fakeslurm/srun <<'EOF'
#!/bin/bash
echo "$*" >> "$SRUN_LOG"
[ "$1" = -n ] || exit 99
n=$2; shift 2
exec mpiexec -n "$n" --oversubscribe "$@"
EOF
chmod +x fakeslurm/srun
SRUN_LOG=$work/srun.log SLURM_ARRAY_TASK_ID=0 PATH="$work/fakeslurm:$PATH" \
  bash "$work/slurm/slurm_r1.sbatch" > slurm_task0.log 2>&1
status=$?
check "array task 0 succeeds (status $status)" test "$status" -eq 0
[ "$status" -eq 0 ] || tail -n 20 slurm_task0.log
check "array task 0: srun -n 1 ran the STREAM program, then the solver" \
  bash -c "sed -n 1p srun.log | grep -q '^-n 1 $stream --launcher srun' &&
           sed -n 2p srun.log | grep -q '^-n 1 $exe $work/slurm/runs/r1_rep1/job.yaml' &&
           [ \$(wc -l < srun.log) -eq 2 ]"
check "array task 0: stream.log records 1 rank on this host, launched by srun" \
  "$py" -c "import json, sys; r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
sys.exit(0 if (r['ranks'], r['host'], r['launcher']) == (1, sys.argv[2], 'srun')
         and r['bytes_per_second_per_rank'] > 0 else 1)" \
  "$work/slurm/runs/r1_rep1/stream.log" "$host"
check "array task 0: the solver ran after it" test -s "$work/slurm/runs/r1_rep1/run.log"

# --- a liquid --------------------------------------------------------------------------------
# The dam-break study as shipped: its runs, on the finer grid its `set` gives, without running.
"${driver[@]}" run "$studies/dam_break_strong.yaml" --dry-run --exe "$exe" \
  --output "$work/dam_dry" > dam_dry.log 2>&1
status=$?
check "dam_break_strong: --dry-run succeeds (status $status)" test "$status" -eq 0
check "dam_break_strong: --dry-run lists 9 runs on 128 x 48 x 48 cells" \
  bash -c "[ \$(grep -c 'stablefluids .*job.yaml > run.log' dam_dry.log) -eq 9 ] &&
           grep -q 'grid.cells = \[128, 48, 48\]' dam_dry.log"
check "dam_break_strong: --dry-run writes nothing" test ! -e "$work/dam_dry"
# A liquid job through `all`: the dam break coarsened by a study's set, 1 rank, 2 steps (the
# driver does not care how many ranks; CI's time does). Its timings have a surface stage (the
# level set), which the smoke studies leave at zero.
cat > liquid.yaml <<YAML
{name: liquid, base_job: $src/jobs/dam_break_3d.yaml, kind: strong, ranks: [1], steps: 2,
 repetitions: 1, set: {grid.cells: [32, 12, 12]}, stream_elements: 65536}
YAML
"${driver[@]}" all liquid.yaml --exe "$exe" --output "$work/liquid" > liquid.log 2>&1
status=$?
check "liquid: 'all' succeeds (status $status)" test "$status" -eq 0
[ "$status" -eq 0 ] || tail -n 30 liquid.log
check "liquid: the runs' jobs have the study's grid" \
  grep -qx "  cells: \[32, 12, 12\]" "$work/liquid/runs/r1_rep1/job.yaml"
check "liquid: a positive surface stage in the results" \
  "$py" -c "import csv,sys; rows=list(csv.DictReader(open(sys.argv[1])));
sys.exit(0 if len(rows) == 1 and float(rows[0]['surface_seconds_per_step']) > 0 else 1)" \
  "$work/liquid/results.csv"
for png in time_per_step speedup stages; do
  check "liquid: $png.png is a PNG" is_png "$work/liquid/$png.png"
done
stream_checks "$work/liquid" > liquid.stream_failures
check "liquid: STREAM bandwidths and the bound" test ! -s liquid.stream_failures
sed 's/set: {grid.cells: \[32, 12, 12\]}/set: {time.end: 5}/' liquid.yaml > liquid_bad.yaml
"${driver[@]}" run liquid_bad.yaml --dry-run --exe "$exe" > liquid_bad.log 2>&1
status=$?
check "a study cannot set what the driver sets (status $status)" \
  bash -c "[ $status -eq 1 ] && grep -q \"set: 'time.end' is the driver's\" liquid_bad.log"

# --- errors and dry runs --------------------------------------------------------------------
"${driver[@]}" run "$studies/tiny_strong.yaml" --exe "$work/no-such-exe" --output "$work/bad" \
  > bad.log 2>&1
status=$?
check "a missing executable fails (status $status)" test "$status" -ne 0
check "a missing executable is named" grep -q "no stablefluids executable" bad.log
"${driver[@]}" run "$studies/tiny_strong.yaml" --exe "$exe" --stream-exe "$work/no-stream" \
  --output "$work/bad_stream" > bad_stream.log 2>&1
status=$?
check "a missing STREAM program fails and is named (status $status)" \
  bash -c "[ $status -eq 1 ] && grep -q \"no stream_triad executable at '$work/no-stream'\" \
           bad_stream.log"
"${driver[@]}" run "$studies/tiny_strong.yaml" --dry-run --exe "$exe" --output "$work/dry" \
  > dry.log 2>&1
check "--dry-run prints the runs" test "$(grep -c 'mpiexec' dry.log)" -eq 6
check "--dry-run: a STREAM measurement on its ranks before each rank count's first run" \
  bash -c "[ \$(grep -cE -- '_rep1 && .*-n ([124]) $stream .*> stream.log 2>&1 && .* -n \1 $exe ' \
                dry.log) -eq 3 ] && [ \$(grep -c stream_triad dry.log) -eq 3 ]"
check "--dry-run writes nothing" test ! -e "$work/dry"
"${driver[@]}" collect "$studies/tiny_strong.yaml" --output "$work/empty" > empty.log 2>&1
status=$?
check "collect without runs fails clearly (status $status)" \
  bash -c "[ $status -ne 0 ] && grep -q 'run the study first' empty.log"

# A run that fails (a malformed job) stops the study with the tail of its log.
cat > bad_job.yaml <<'YAML'
grid: {cells: [16, 16], cels: 4}
time: {dt: 0.1, end: 1.0}
YAML
cat > bad_study.yaml <<'YAML'
{name: bad, base_job: bad_job.yaml, kind: strong, ranks: [1], steps: 2, repetitions: 1}
YAML
"${driver[@]}" run bad_study.yaml --exe "$exe" --stream-exe fake_stream > failing.log 2>&1
status=$?
check "a failing run stops the study (status $status)" test "$status" -ne 0
check "a failing run is reported with its log" \
  bash -c "grep -q 'failed with status 2' failing.log &&
           grep -q 'grid.cels: unknown key' failing.log"

echo "scaling: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
