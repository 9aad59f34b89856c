#!/usr/bin/env bash
# The output directory removed at every moment of a short run, one moment per run: just before
# the k-th call that names a file in it (open, stat, statfs, statvfs, access, rename) on rank 0,
# then on rank 1, for every k the run makes (counted first, with nothing removed; vanish_at.c
# renames the directory away). A user's `rm -rf` can fall between any two file operations of any
# rank; disk_cli.sh tries one such moment a time, by chance, where this tries each once.
# Every run ends by itself, on every rank (mpiexec would otherwise wait: run_guard.sh reports a
# hang with every rank's stack), either
#   - with status 1 and one message naming a file in the directory; or
#   - with status 0 and all its output complete (2 frames, the index, the steps CSV and the
#     timings): where it made the directory again, the removal having come before the run took
#     it (setting up), or where the directory was moved to, the removal having come after the
#     run's last check of its files (its very end).
# usage: vanish_sweep_cli.sh <stablefluids executable> <mpiexec> <vanish_at.so>
set -uo pipefail
exe=$1 mpiexec=$2 vanish_at=$3
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'pkill -KILL -f "$work/" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1

source "$tests/cli_checks.sh"
source "$tests/run_guard.sh"

# One step between two frames, a checkpoint after it: every kind of file the run writes, once.
cat > "$work/sweep.yaml" <<YAML
name: sweep
grid: {cells: [32, 32], halo: 2}
boundary: {x: free-slip, y: free-slip}
velocity: {initial: {type: vortex, center: [0.5, 0.5], radius: 0.2, strength: 1}}
scalars: {dye: {initial: [{shape: sphere, center: [0.5, 0.5], radius: 0.2, value: 1.0}]}}
time: {dt: 0.01, end: 0.01}
output: {directory: $work/sweep, interval: 0.01}
checkpoint: {every_steps: 1, keep: 1}
YAML

sweep() {  # sweep <rank> <k>: one run, the directory removed before that rank's k-th call
  rm -rf "$work/sweep" "$work/sweep.removed"
  mkdir -p "$work/sweep"
  LD_PRELOAD=$vanish_at VANISH_DIR=$work/sweep VANISH_RANK=$1 VANISH_AT=$2 \
    VANISH_COUNT=$work/sweep.count run sweep.log "$work/sweep.yaml"
}

complete() {  # complete <dir>: the run's output, all of it, in <dir>
  local f
  [ -s "$1/sweep.xmf" ] && [ -s "$1/sweep_steps.csv" ] && [ -s "$1/sweep_timings.json" ] &&
    [ "$(find "$1" -maxdepth 1 -name 'sweep_[0-9]*.h5' | wc -l)" -eq 2 ] || return 1
  for f in "$1"/sweep_[0-9]*.h5; do h5ls "$f" > /dev/null 2>&1 || return 1; done
}

for rank in 0 1; do
  sweep "$rank" 0
  calls=$(cat "$work/sweep.count" 2>/dev/null || echo 0)
  check "rank $rank: the run ends with its output complete when nothing is removed" \
    complete "$work/sweep"
  # Rank 0 takes the lock, opens, checks and renames every file; rank 1 opens each collective
  # file (3 here) with MPI-IO: a statfs and an open each.
  check "rank $rank: the shim sees the run's file calls ($calls)" test "$calls" -ge 6
  ones=0 zeros=0 wrong=""
  for ((k = 1; k <= calls; ++k)); do
    sweep "$rank" "$k"
    status=$?
    if [ "$status" -eq 1 ] && [ "$(grep -c "^stablefluids: error" sweep.log)" -eq 1 ] &&
      grep -q "^stablefluids: error: .*'$work/sweep/" sweep.log; then
      ones=$((ones + 1))
    elif [ "$status" -eq 0 ] && { complete "$work/sweep" || complete "$work/sweep.removed"; }
    then
      zeros=$((zeros + 1))
    else
      wrong+=" $k"
      echo "--- rank $rank, call $k: status $status"
      grep -v "^step \|^  frame \|^  checkpoint " sweep.log | head -n 20
    fi
  done
  echo "rank $rank: $calls removals: $ones ended with status 1, $zeros with 0 and all output"
  check "rank $rank: each of $calls removals ends with 1 naming the file, or 0 complete" \
    test -z "$wrong"
  [ -n "$wrong" ] && echo "rank $rank: the removals before calls$wrong went wrong (above)"
  # Between taking the directory and its last check the run must fail: that is most of it.
  check "rank $rank: most removals fail the run ($ones with status 1, $zeros with 0)" \
    test "$ones" -gt "$zeros"
done

echo "vanish_sweep_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
