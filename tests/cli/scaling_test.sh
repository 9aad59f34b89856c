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
#   - errors (no executable) end with a message and a non-zero status; --dry-run writes nothing.
# usage: scaling_test.sh <source dir> <stablefluids executable>
set -uo pipefail
src=$(cd "${1:?usage: scaling_test.sh <source dir> <stablefluids executable>}" && pwd)
exe=$(readlink -f "${2:?usage: scaling_test.sh <source dir> <stablefluids executable>}")
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
}

# --- strong ---------------------------------------------------------------------------------
"${driver[@]}" all "$studies/tiny_strong.yaml" --exe "$exe" --output "$work/strong" \
  > strong.log 2>&1
status=$?
check "tiny_strong: 'all' succeeds (status $status)" test "$status" -eq 0
[ "$status" -eq 0 ] || tail -n 30 strong.log
check_study tiny_strong "$work/strong"

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
  "${driver[@]}" all "$studies/tiny_weak.yaml" --exe "$exe" --output "$work/weak" \
    > weak.log 2>&1
  status=$?
  check "tiny_weak: 'all' succeeds (status $status)" test "$status" -eq 0
  [ "$status" -eq 0 ] || tail -n 30 weak.log
  check_study tiny_weak "$work/weak"
  check "tiny_weak: 16 x 16 = 256 cells per rank on every rank count" \
    constant_cells_per_rank "$work/weak" 256
fi

# --- the README's study ---------------------------------------------------------------------
# jobs/scaling/README.md's example, the 3-D plume on 1, 2 and 4 ranks, as a user runs it but
# with 2 steps and one repetition (--steps, --repetitions). Its base job renders with Catalyst;
# the study drops that section, so it runs whether or not the solver has Catalyst.
"${driver[@]}" all "$studies/plume_strong.yaml" --steps 2 --repetitions 1 --exe "$exe" \
  --output "$work/plume" > plume.log 2>&1
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

# --- errors and dry runs --------------------------------------------------------------------
"${driver[@]}" run "$studies/tiny_strong.yaml" --exe "$work/no-such-exe" --output "$work/bad" \
  > bad.log 2>&1
status=$?
check "a missing executable fails (status $status)" test "$status" -ne 0
check "a missing executable is named" grep -q "no stablefluids executable" bad.log
"${driver[@]}" run "$studies/tiny_strong.yaml" --dry-run --exe "$exe" --output "$work/dry" \
  > dry.log 2>&1
check "--dry-run prints the runs" test "$(grep -c 'mpiexec' dry.log)" -eq 6
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
"${driver[@]}" run bad_study.yaml --exe "$exe" > failing.log 2>&1
status=$?
check "a failing run stops the study (status $status)" test "$status" -ne 0
check "a failing run is reported with its log" \
  bash -c "grep -q 'failed with status 2' failing.log &&
           grep -q 'grid.cels: unknown key' failing.log"

echo "scaling: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
