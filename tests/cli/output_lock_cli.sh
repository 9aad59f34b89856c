#!/usr/bin/env bash
# One run per job name and directory (io/run_lock.hpp), through the executable at 2 and 4 ranks:
#   - a second run of the same job while the first is running is refused with status 2 on every
#     rank, naming the first run's host and PID, and so is one that shares only its checkpoint
#     directory; the first run goes on undisturbed and ends as it would have;
#   - a lock left by a run killed with SIGKILL is recognised as stale and taken over by
#     --restart latest, which says so and finishes the run;
#   - a new run (no --restart) over the output of a finished one is refused with status 2 and
#     leaves every file as it was; with output.overwrite: true it replaces that output;
#   - the lock file removed under a running run: a second run with output.overwrite: true is
#     still refused with status 2 (the first run's steps CSV is locked too) and changes nothing;
#     the first run then stops with status 1 at its next step, naming its lock file, and writes
#     nothing more;
#   - (at 2 ranks) the lock file and the steps CSV both removed: a second run can take the
#     directory (what is not guarded); the first run stops with status 1, saying its lock file
#     was replaced and by whom (or, stopped while writing a frame, a checkpoint, the index or
#     the timings, naming the file whose temporary the second run removed), and leaves the
#     second run's lock file alone;
#   - (at 2 ranks) the steps CSV removed under a running run: status 1 naming it; a frame
#     removed before the run's end: status 1 naming the frame, not 0.
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

# kept <before> <now>: every line of the fingerprint <before> is in the fingerprint <now>.
kept() { [ -z "$(comm -23 <(sort <<< "$1") <(sort <<< "$2"))" ]; }

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

  # The lock file removed under a running run. The run is stopped (SIGSTOP) while the lock file
  # goes and a second run tries, so that the second one certainly meets it still running.
  out=$work/gone_$ranks lock=$work/gone_$ranks/flow.lock
  mkdir -p "$out"
  job "gone_$ranks" flow "$out" "$out" 1000
  job "gone_overwrite_$ranks" flow "$out" "$out" 1000 \
    "output: {directory: $out, interval: 0.02, overwrite: true}"
  sed -i '0,/^output:/{/^output:/d}' "$work/gone_overwrite_$ranks.yaml"
  run_ranks "gone_$ranks" "$ranks" "$work/gone_$ranks.yaml"
  gone=$pid
  wait_for_steps "$out/flow_steps.csv" 12
  holder=$(holder_pid "$lock")
  signal_ranks STOP "gone_$ranks"
  rm "$lock"
  before=$(fingerprint "$out")
  case_ "gone_overwrite_$ranks" "$ranks" 2 \
    "^stablefluids: error: directory '$out' is in use by another run of job 'flow': its lock file $lock was missing or not held, but that run \(pid $holder\) still writes $out/flow_steps.csv; wait for that run to end" \
    "$work/gone_overwrite_$ranks.yaml"
  check "lock file removed at $ranks ranks: the refused run changed no file" \
    test "$before" = "$(fingerprint "$out")"
  check "lock file removed at $ranks ranks: the refused run left no lock file" test ! -e "$lock"
  frames=$(fingerprint "$out" | grep -E '_[0-9]{6}\.h5$')
  signal_ranks CONT "gone_$ranks"
  wait "$gone"
  expect "gone_$ranks" "$ranks" 1 \
    "^stablefluids: error: lock file '$lock' was removed while this run held it, so another run of job 'flow' could take the directory and delete this run's files; the run stops here and writes nothing more"
  # Stopped anywhere in a step, it may finish that step's frame; none written before changes.
  check "lock file removed at $ranks ranks: the first run's frames are intact" \
    kept "$frames" "$(fingerprint "$out")"

  # The cases below stop a run through the same check and broadcast as the one above, which has
  # shown it at 4 ranks; at 2 ranks only, as 4 oversubscribed ranks are slow on a small machine.
  [ "$ranks" = 2 ] || continue

  # The lock file and the steps CSV both removed: nothing is left to show that the first run is
  # alive, and a second run takes the directory. The first stops at its next step.
  out=$work/taken_$ranks lock=$work/taken_$ranks/flow.lock
  mkdir -p "$out"
  job "taken_$ranks" flow "$out" "$out" 1000
  job "taker_$ranks" flow "$out" "$out" 1000 \
    "output: {directory: $out, interval: 0.02, overwrite: true}"
  sed -i '0,/^output:/{/^output:/d}' "$work/taker_$ranks.yaml"
  run_ranks "taken_$ranks" "$ranks" "$work/taken_$ranks.yaml"
  taken=$pid
  wait_for_steps "$out/flow_steps.csv" 12
  signal_ranks STOP "taken_$ranks"
  rm "$lock" "$out/flow_steps.csv"
  run_ranks "taker_$ranks" "$ranks" "$work/taker_$ranks.yaml"
  taker=$pid
  wait_for_steps "$out/flow_steps.csv" 3
  new_holder=$(holder_pid "$lock")
  signal_ranks CONT "taken_$ranks"
  wait "$taken"
  # Stopped between creating a temporary file and renaming it (a frame, a checkpoint, the XDMF
  # index or the timings), the run may instead find that file gone (the second run removed the
  # first one's files): it stops on that write, naming it.
  lost="(output frame '$out/flow_[0-9]{6}\.h5': rename from $out/flow_[0-9]{6}\.h5\.tmp"
  checkpoint="$out/flow_checkpoint_[0-9]{8}\.h5"
  lost+="|checkpoint '$checkpoint': rename from $checkpoint\.tmp"
  lost+="|'$out/flow(\.xmf|_timings\.json)'): No such file or directory"
  expect "taken_$ranks" "$ranks" 1 \
    "^stablefluids: error: (lock file '$lock' was replaced while this run held it \(now host=$(hostname) pid=$new_holder .*job=$work/taker_$ranks.yaml\): another run may have taken the directory; the run stops here|cannot write $lost)"
  check "lock file taken at $ranks ranks: the second run's lock file is still there" \
    test "$(holder_pid "$lock")" = "$new_holder"
  check "lock file taken at $ranks ranks: the second run goes on" kill -0 "$taker"
  signal_ranks TERM "taker_$ranks"
  wait "$taker"
  expect "taker_$ranks" "$ranks" 3

  # The steps CSV removed under a running run.
  out=$work/csv_$ranks
  mkdir -p "$out"
  job "csv_$ranks" flow "$out" "$out" 1000
  run_ranks "csv_$ranks" "$ranks" "$work/csv_$ranks.yaml"
  csv=$pid
  wait_for_steps "$out/flow_steps.csv" 5
  rm "$out/flow_steps.csv"
  wait "$csv"
  expect "csv_$ranks" "$ranks" 1 \
    "^stablefluids: error: '$out/flow_steps.csv' was removed while the run was writing it; the run stops here and writes nothing more"
  check "steps CSV removed at $ranks ranks: the lock file is released" test ! -e "$out/flow.lock"

  # A frame removed before the run's end: the run ends with 1, naming it, not with 0. The run is
  # stopped (SIGSTOP) while its first frame goes, which must happen before its end: a run that
  # got there first is tried again ten times as long (a fast machine does a few hundred steps
  # of this job per second; a loaded one, a few).
  caught=0
  for end in 0.1 1 10; do
    out=$work/frame_${ranks}_$end
    mkdir -p "$out"
    job "frame_$ranks" flow "$out" "$out" "$end"
    run_ranks "frame_$ranks" "$ranks" "$work/frame_$ranks.yaml"
    ended=$pid
    for _ in $(seq 1200); do [ -e "$out/flow_000000.h5" ] && break; sleep 0.05; done
    signal_ranks STOP "frame_$ranks"
    # Caught only if stopped before its last step: the run checks its frames after that step,
    # and a run stopped between that check and its exit is still alive, but past it. The steps
    # CSV gets each step's row before the next step starts (dt 0.002, so half of it is margin).
    logged=$(last_time "$out/flow_steps.csv" 2> /dev/null)
    [[ $logged =~ ^[0-9] ]] || logged=0  # only the header: no step yet
    if kill -0 "$ended" 2> /dev/null && ! compgen -G "$work/frame_$ranks/status.*" > /dev/null &&
       awk -v t="$logged" -v e="$end" 'BEGIN { exit !(t < e - 0.001) }'
    then
      caught=1
      break
    fi
    signal_ranks CONT "frame_$ranks"
    wait "$ended"
  done
  check "frame removed at $ranks ranks: the run was caught before its end" test "$caught" = 1
  rm "$out/flow_000000.h5"
  signal_ranks CONT "frame_$ranks"
  wait "$ended"
  expect "frame_$ranks" "$ranks" 1 \
    "^stablefluids: error: '$out/flow_000000.h5' was removed while the run went on"
done

echo "output_lock_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
