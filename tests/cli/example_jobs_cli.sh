#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# example_jobs_cli.sh <stablefluids> <source dir> <mpiexec> <catalyst ON|OFF> <job.yaml>...
#
# Every example job, as shipped, runs a few steps on 2 ranks (tests/CMakeLists.txt registers one
# test per file in jobs/ and jobs/validation/), and what it leaves is checked
# (tests/cli/example_job_check.py):
#   - the run exits with status 0 and says it reached the end time;
#   - its Catalyst scripts run, under a virtual X server when they render and there is no
#     display, and write their files (without Catalyst built, or without Xvfb, the job runs
#     without its scripts, and the output says so);
#   - every frame is HDF5 that h5py reads, with every dataset the job implies (velocity,
#     pressure, solid, the face velocities, each scalar, texture coordinates, strain, a liquid's
#     level set, fraction and marker particles), of the grid's shape and finite everywhere;
#   - the steps CSV has a row for every step, the columns the job implies (its scalars' totals,
#     a liquid's volume, probes, obstacle forces, spray counts), and finite values;
#   - a liquid's volume: with a height-field surface it is kept to rounding, as it must be
#     exactly; with a level set the steps CSV counts what the frames hold, and the count moves
#     by no more than the level set's tested error and the layer of cells along moving
#     obstacles (liquid sources and sinks change it by design);
#   - a run continued from the checkpoint of its first step reaches the same final frame bit for
#     bit, as docs/running.md ("Running on a cluster") says of every run on the same rank count (the
#     marker particles as a set: the order a frame lists them in is not part of the state).
# The runs are short: three of the job's fixed steps, or of its largest adaptive one
# (time.end), with the output (frames at the start and the end only) in a temporary directory.
# The grids are the jobs' own; the few steps keep the cost down, and a render happens once per
# script, on the initial state. Cost (2026-11-27, `time ctest -L example_jobs -j2` in the build
# directory; the tests ask for 2 processors each, so they run one after another): 7 min 45 s and
# 9 min 34 s of wall clock on a 2-core machine that other builds and tests loaded to a load
# average of 5 to 9, 7.4 min of processor time. Two thirds of it are the first runs of the 18
# jobs with Catalyst scripts (14 to 35 s each, nearly all of it ParaView's start and the one
# render; their steps take 1 to 4 s), against 1 to 8 s for each of the others.
set -uo pipefail
exe=$1 src=$2 mpiexec=$3 catalyst=$4
shift 4
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
work=$(mktemp -d)
# shellcheck source=../../jobs/catalyst/virtual_display.sh
source "$src/jobs/catalyst/virtual_display.sh"
trap 'sf_display_stop; rm -rf "$work"' EXIT
# shellcheck source=cli_checks.sh
source "$tests/cli_checks.sh"
unset PYTHONHOME PYTHONPATH
# No __pycache__ in the source tree from the checks run here.
export PYTHONDONTWRITEBYTECODE=1
# Mesa's software renderer starts a thread per core in every rank unless told otherwise.
export LP_NUM_THREADS=1

run() {  # run <log> <args...>: the solver on 2 ranks with a hang guard
  local log=$1; shift
  timeout 600 "$mpiexec" -n 2 --oversubscribe "$exe" "$@" < /dev/null > "$log" 2>&1
}

for job in "$@"; do
  file=$src/$job
  plan=$("$python" "$tests/example_job_check.py" plan "$file") || {
    check "$job: its plan can be read" false; continue; }
  name='' end=''
  eval "$plan"
  out=$work/$name
  mkdir -p "$out"
  options=(--set "time.end=$end" --set "output.interval=$end" --set output.initial_frame=true)
  # No checkpoint of the job's own (wall-clock ones would make the run's files depend on the
  # machine's speed): one after every step, every one kept, for the restart below.
  options+=(--set "checkpoint={every_steps: 1, keep: 100}")

  scripts=$(grep -c '^ *- *script:' "$file")
  renders=false
  if [ "$scripts" -gt 0 ]; then
    if [ "$catalyst" != ON ]; then
      echo "$job: Catalyst is not built: running without its $scripts scripts"
      options+=(--set "catalyst.scripts=[]")
      scripts=0
    elif sf_display_needed "$file"; then
      if command -v Xvfb > /dev/null && sf_display_start; then
        renders=true
      else
        echo "$job: no display and no virtual one: running without its $scripts scripts"
        options+=(--set "catalyst.scripts=[]")
        scripts=0
      fi
    fi
    options+=(--set "catalyst.directory=$out/a/catalyst")
  fi

  start=$EPOCHREALTIME
  run "$out/a.log" "$file" "${options[@]}" --set "output.directory=$out/a"
  status=$?
  seconds=$(awk "BEGIN {print $EPOCHREALTIME - $start}")
  check "$job runs to its end (status $status)" test "$status" -eq 0
  if [ "$status" -ne 0 ]; then tail -20 "$out/a.log"; sf_display_stop; continue; fi
  check "$job says it reached t = $end" grep -qF "stablefluids: reached t = $end after " \
    "$out/a.log"
  printf '%s: %s steps in %.1f s on 2 ranks%s\n' "$job" \
    "$(($(wc -l < "$out/a/${name}_steps.csv") - 1))" "$seconds" \
    "$([ "$renders" = true ] && echo ", rendering")"
  if [ "$scripts" -gt 0 ]; then
    made=$(find "$out/a/catalyst" -type f 2> /dev/null | wc -l)
    # Each script runs on the initial state, and writes at least one file when it does.
    check "$job: its $scripts Catalyst scripts wrote files (found $made)" \
      test "$made" -ge "$scripts"
  fi
  sf_display_stop
  check "$job: frames, steps CSV and invariants" \
    "$python" "$tests/example_job_check.py" check "$file" "$out/a" "$end"

  # The continuation from the checkpoint after step 1 (without Catalyst: the render is not what
  # is compared) must reach the same final frame, bit for bit.
  first=$(find "$out/a" -name "${name}_checkpoint_00000001.h5" | head -n 1)
  check "$job wrote a checkpoint after step 1" test -n "$first"
  [ -n "$first" ] || continue
  restart=(--set "time.end=$end" --set "output.interval=$end" --set "output.directory=$out/b"
           --set "checkpoint={every_steps: 0}")
  [ "$(grep -c '^ *- *script:' "$file")" -gt 0 ] && restart+=(--set "catalyst.scripts=[]")
  run "$out/b.log" "$file" --restart "$first" "${restart[@]}"
  status=$?
  check "$job continues from its checkpoint (status $status)" test "$status" -eq 0
  if [ "$status" -ne 0 ]; then tail -20 "$out/b.log"; continue; fi
  last_a=$(find "$out/a" -name "${name}_[0-9][0-9][0-9][0-9][0-9][0-9].h5" | sort | tail -n 1)
  last_b=$(find "$out/b" -name "${name}_[0-9][0-9][0-9][0-9][0-9][0-9].h5" | sort | tail -n 1)
  check "$job: the continued run's last frame is the uninterrupted one's, bit for bit" \
    "$python" "$tests/example_job_check.py" same "$last_a" "$last_b"
  rm -rf "$out"
done

echo "example_jobs_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
