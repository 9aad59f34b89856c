#!/usr/bin/env bash
# One run per job name and directory (io/run_lock.hpp), through the executable at 2 and 4 ranks:
#   - a second run of the same job while the first is running is refused with status 2 on every
#     rank, naming the first run's host and PID, and so is one that shares only its checkpoint
#     directory; the first run goes on undisturbed and ends as it would have;
#   - a lock left by a run killed with SIGKILL is recognised as stale and taken over by
#     --restart latest, which says so and finishes the run;
#   - a new run (no --restart) over the output of a finished one is refused with status 2 and
#     leaves every file as it was; with output.overwrite: true it replaces that output.
# usage: output_lock_cli.sh <stablefluids executable> <mpiexec>
set -uo pipefail
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") mpiexec=$2
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'pkill -KILL -f "$work/" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cd "$work" || exit 1

source "$tests/rank_records.sh"

# job <file> <name> <output dir> <checkpoint dir> <end> [extra YAML...]: a 2D job whose steps
# take a few milliseconds, with a frame and a checkpoint every few steps.
job() {
  local file=$1 name=$2 out=$3 checkpoints=$4 end=$5; shift 5
  {
    echo "name: $name"
    echo "grid: {cells: [48, 48], halo: 2}"
    echo "boundary: {x: free-slip, y: free-slip}"
    echo "velocity: {initial: {type: vortex, center: [0.5, 0.5], radius: 0.2, strength: 1}}"
    echo "scalars: {dye: {initial: [{shape: sphere, center: [0.5, 0.5], radius: 0.2, value: 1.0}]}}"
    echo "time: {dt: 0.002, end: $end}"
    echo "output: {directory: $out, interval: 0.02}"
    echo "checkpoint: {directory: $checkpoints, every_steps: 10, keep: 2}"
    printf '%s\n' "$@"
  } > "$work/$file.yaml"
}

fingerprint() {  # fingerprint <dir...>: names and checksums of every file, sorted
  find "$@" -type f -print0 | sort -z | xargs -0 -r md5sum
}

# The PID of the rank-0 process of the run recorded in the lock file <file>.
holder_pid() { sed -n 's/.* pid=\([0-9]*\) .*/\1/p' "$1"; }

steps_logged() { echo $(($(wc -l < "$1") - 1)); }  # steps_logged <steps.csv>
last_time() { tail -n 1 "$1" | cut -d, -f2; }      # last_time <steps.csv>

signal_ranks() {  # signal_ranks <signal> <case>: to the solver processes of run_ranks' <case>
  pkill "-$1" -x stablefluids -P "$(pgrep -d, -f "$work/rank.sh $work/$2 ")"
}

for ranks in 2 4; do
  out=$work/out_$ranks checkpoints=$work/checkpoints_$ranks
  mkdir -p "$out" "$checkpoints" "$work/elsewhere_$ranks"
  job "first_$ranks" flow "$out" "$checkpoints" 1000
  job "same_checkpoints_$ranks" flow "$work/elsewhere_$ranks" "$checkpoints" 1000

  # The first run, left running.
  run_ranks "first_$ranks" "$ranks" "$work/first_$ranks.yaml"
  first=$pid
  wait_for_steps "$out/flow_steps.csv" 5
  lock=$out/flow.lock
  check "first run at $ranks ranks: holds $lock" test -s "$lock"
  holder=$(holder_pid "$lock")
  check "first run at $ranks ranks: the lock names its rank 0 (pid ${holder:-none})" \
    grep -q stablefluids "/proc/${holder:-0}/cmdline"
  check "first run at $ranks ranks: the checkpoint directory is locked too" \
    test -s "$checkpoints/flow.lock"

  # A second run of the same job, and one that shares only the checkpoint directory.
  case_ "second_$ranks" "$ranks" 2 \
    "^stablefluids: error: directory '$out' is in use by another run of job 'flow': lock file $lock held by host=$(hostname) pid=$holder started=[^ ]+ job=$work/first_$ranks.yaml; wait for that run to end" \
    "$work/first_$ranks.yaml"
  case_ "second_restart_$ranks" "$ranks" 2 "is in use by another run of job 'flow'.*pid=$holder " \
    "$work/first_$ranks.yaml" --restart latest
  case_ "same_checkpoints_$ranks" "$ranks" 2 \
    "^stablefluids: error: directory '$checkpoints' is in use by another run of job 'flow': lock file $checkpoints/flow.lock held by host=$(hostname) pid=$holder " \
    "$work/same_checkpoints_$ranks.yaml"
  check "refused runs at $ranks ranks: nothing written beside the shared checkpoint directory" \
    test -z "$(ls -A "$work/elsewhere_$ranks")"

  # The first run is undisturbed: it goes on stepping, then stops cleanly when asked to.
  wait_for_steps "$out/flow_steps.csv" $(($(steps_logged "$out/flow_steps.csv") + 5))
  check "first run at $ranks ranks: still running after the refusals" kill -0 "$first"
  signal_ranks TERM "first_$ranks"
  wait "$first"
  expect "first_$ranks" "$ranks" 3
  check "first run at $ranks ranks: its lock files are gone after it ends" \
    test ! -e "$lock" -a ! -e "$checkpoints/flow.lock"
  check "first run at $ranks ranks: its index survived the refusals" test -s "$out/flow.xmf"

  # SIGKILL leaves the lock file behind, unlocked; --restart latest takes it over.
  run_ranks "killed_$ranks" "$ranks" "$work/first_$ranks.yaml" --restart latest
  killed=$pid
  wait_for_steps "$out/flow_steps.csv" $(($(steps_logged "$out/flow_steps.csv") + 12))
  signal_ranks KILL "killed_$ranks"
  wait "$killed" 2> /dev/null
  check "killed run at $ranks ranks: its lock file is left behind" test -s "$lock"
  stale=$(holder_pid "$lock")
  # The restart runs a few more steps, to an end just past where the killed run got to.
  end=$(awk "BEGIN{print $(last_time "$out/flow_steps.csv") + 0.02}")
  job "finish_$ranks" flow "$out" "$checkpoints" "$end"
  case_ "finish_$ranks" "$ranks" 0 "" "$work/finish_$ranks.yaml" --restart latest
  check "restart at $ranks ranks: says it took over the stale lock of pid $stale" \
    grep -q "$lock: took over the stale lock of a run that ended without releasing it (host=$(hostname) pid=$stale " \
    "$(rank_output "finish_$ranks" 0 stdout)"
  check "restart at $ranks ranks: reached the end" grep -q "stablefluids: reached t = " \
    "$(rank_output "finish_$ranks" 0 stdout)"
  check "restart at $ranks ranks: released the locks" test ! -e "$lock" -a ! -e "$checkpoints/flow.lock"

  # A new run over the finished one: refused, nothing changed.
  before=$(fingerprint "$out" "$checkpoints")
  case_ "new_$ranks" "$ranks" 2 \
    "^stablefluids: error: the output of an earlier run named 'flow' is in the way \($checkpoints/flow_checkpoint_[0-9]{8}\.h5, .* and [0-9]+ more\); continue that run with --restart latest, or set output.overwrite: true" \
    "$work/finish_$ranks.yaml"
  check "new run at $ranks ranks: the earlier run's files are unchanged" \
    test "$before" = "$(fingerprint "$out" "$checkpoints")"

  # With output.overwrite: true it replaces them: a shorter run leaves only its own frames.
  job "overwrite_$ranks" flow "$out" "$checkpoints" 0.04 "output: {directory: $out, interval: 0.02, overwrite: true}"
  sed -i '0,/^output:/{/^output:/d}' "$work/overwrite_$ranks.yaml"
  case_ "overwrite_$ranks" "$ranks" 0 "" "$work/overwrite_$ranks.yaml"
  check "overwrite at $ranks ranks: says how many files it removed" \
    grep -qE "^stablefluids: output.overwrite: removed [0-9]+ files of an earlier run named 'flow'" \
    "$(rank_output "overwrite_$ranks" 0 stdout)"
  frames=$(find "$out" -name 'flow_[0-9][0-9][0-9][0-9][0-9][0-9].h5' | wc -l)
  check "overwrite at $ranks ranks: only the new run's 3 frames are left (got $frames)" \
    test "$frames" -eq 3
  check "overwrite at $ranks ranks: the steps CSV is the new run's (20 steps)" \
    test "$(steps_logged "$out/flow_steps.csv")" -eq 20
done

echo "output_lock_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
