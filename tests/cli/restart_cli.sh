#!/usr/bin/env bash
# Batch-run survival, end to end through the executable:
#   - SIGTERM to the ranks, or SIGUSR1 to mpiexec (Slurm's --signal=USR1@120), at 2 and 4 ranks:
#     every rank stops at the next step boundary, a checkpoint is written, the exit status is 3,
#     nothing hangs, and the command the stop message prints finishes the run;
#   - Ctrl-C (SIGINT to its process group) and SIGTERM to jobs/run, at 2 and 4 ranks: the same;
#   - SIGKILL of the whole process group between steps, and while a checkpoint is being written:
#     the restart starts from the newest complete checkpoint, and the final frame equals, bit for
#     bit, that of a run that was never interrupted.
# usage: restart_cli.sh <stablefluids executable> <mpiexec>
set -uo pipefail
exe=$1 mpiexec=$2
runner=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/jobs/run
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'pkill -KILL -f "$work/" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1

source "$tests/cli_checks.sh"

# A 3D smoke job big enough that a checkpoint takes a moment to write and a step a few tens of
# milliseconds; `name` and the output directory vary per run.
job() {  # job <name> <end>
  cat > "$work/$1.yaml" <<YAML
name: $1
grid: {cells: [40, 48, 40], size: [1.0, 1.2, 1.0], halo: 2}
boundary: {x: free-slip, z: free-slip, y: {lower: no-slip, upper: outflow}}
scalars:
  density:
    sources: [{shape: sphere, center: [0.5, 0.2, 0.5], radius: 0.12, value: 1.0, velocity: [0, 0.5, 0]}]
forces: {buoyancy: {alpha: 0.0, beta: 1.0, temperature: density}}
time: {cfl: 2.0, dt_max: 0.02, end: $2}
output: {directory: $work/out_$1, interval: 0.1}
checkpoint: {every_steps: 2, keep: 2}
YAML
}

run() {  # run <ranks> <args...> (in the background with its own process group; sets $pid)
  local ranks=$1; shift
  setsid "$mpiexec" -n "$ranks" --oversubscribe "$exe" "$@" > "$work/log_$ranks.txt" 2>&1 &
  pid=$!
}

kill_job() {  # kill_job <pid> <name>: SIGKILL to mpiexec's group and to every rank, as a
              # scheduler's kill does (Open MPI gives ranks process groups of their own)
  kill -KILL -- -"$1" 2>/dev/null
  pkill -KILL -f "$work/$2.yaml"
  wait "$1" 2>/dev/null
  while pgrep -f "$work/$2.yaml" > /dev/null; do sleep 0.05; done
}

steps_done() {  # steps_done <name>: rows in the steps CSV so far
  local csv="$work/out_$1/$1_steps.csv"
  [ -f "$csv" ] && echo $(($(wc -l < "$csv") - 1)) || echo 0
}

wait_for_steps() {  # wait_for_steps <name> <n>: until n steps are logged (at most 60 s)
  for _ in $(seq 600); do
    [ "$(steps_done "$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

wait_exit() {  # wait_exit <pid> <seconds>: the exit status, or 124 if still running (then killed)
  local p=$1 limit=$2
  for _ in $(seq $((limit * 10))); do
    if ! kill -0 "$p" 2>/dev/null; then
      wait "$p"
      return $?
    fi
    sleep 0.1
  done
  kill -KILL -- -"$p" 2>/dev/null
  return 124
}

# The uninterrupted reference: the final frame of a run that never stopped.
job reference 0.6
"$mpiexec" -n 2 --oversubscribe "$exe" "$work/reference.yaml" > reference.log 2>&1
check "reference run completes" test $? -eq 0
reference_final="$work/out_reference/reference_000006.h5"

same_final_frame() {  # same_final_frame <name>: final frame equals the reference's bit for bit
  local frame="$work/out_$1/$1_000006.h5"
  for dataset in /velocity /density /pressure; do
    h5diff -q "$reference_final" "$frame" "$dataset" "$dataset" > /dev/null 2>&1 || return 1
  done
}

for ranks in 2 4; do
  for how in TERM USR1; do
    name="signal_${how}_$ranks"
    job "$name" 0.6
    run "$ranks" "$work/$name.yaml" --set time.end=0.6
    wait_for_steps "$name" 3
    if [ "$how" = TERM ]; then
      # The ranks themselves, as a scheduler does (not mpiexec, whose command line matches too).
      for p in $(pgrep -f "$work/$name.yaml"); do
        [ "$(cat /proc/"$p"/comm 2>/dev/null)" = stablefluids ] && kill -TERM "$p"
      done
    else
      kill -USR1 "$pid"                       # mpiexec, which forwards it to every rank
    fi
    wait_exit "$pid" 60
    status=$?
    check "SIG$how at $ranks ranks: exit status 3 (got $status)" test "$status" -eq 3
    check "SIG$how at $ranks ranks: says where it stopped" \
      grep -q "SIG$how received; stopped after step" "$work/log_$ranks.txt"
    check "SIG$how at $ranks ranks: a checkpoint exists" \
      bash -c "ls $work/out_$name/${name}_checkpoint_*.h5 > /dev/null 2>&1"
    # The stop message's command, run as printed: launcher, ranks, job and --set flags.
    hint=$(grep -A1 "Continue with:" "$work/log_$ranks.txt" | tail -n 1)
    check "SIG$how at $ranks ranks: the continue command is whole (got '$hint')" test \
      "$hint" = "  mpiexec -n $ranks $exe $work/$name.yaml --set time.end=0.6 --restart latest"
    OMPI_MCA_rmaps_base_oversubscribe=1 bash -c "$hint" > "$work/restart_$name.log" 2>&1
    check "SIG$how at $ranks ranks: the printed command completes the run" test $? -eq 0
    if [ "$ranks" -eq 2 ]; then
      check "SIG$how at 2 ranks: final frame equals the uninterrupted run's" same_final_frame "$name"
    fi
  done
done

# Ctrl-C and SIGTERM to jobs/run, as a user at a terminal or a scheduler sends them: the script
# keeps mpiexec away from them (Open MPI would kill the ranks a second later and exit 1) and asks
# the ranks for a clean stop instead; every rank checkpoints and the run exits with 3. Ctrl-C
# reaches the terminal's whole foreground process group, so it is sent to the script's group;
# job control (set -m) gives the script a group of its own. A shell started with SIGINT ignored
# cannot trap it (as a background job of a script without job control is, and what this test
# runs under may be), so the script starts with SIGINT at its default, as at a terminal.
for ranks in 2 4; do
  for how in INT TERM; do
    name="runner_${how}_$ranks"
    job "$name" 0.6
    set -m
    STABLEFLUIDS_EXECUTABLE="$exe" env --default-signal=INT "$runner" -n "$ranks" \
      "$work/$name.yaml" > "$work/log_$name.txt" 2>&1 &
    pid=$!
    set +m
    wait_for_steps "$name" 3
    if [ "$how" = INT ]; then kill -INT -- -"$pid"; else kill -TERM "$pid"; fi
    wait_exit "$pid" 60
    status=$?
    check "SIG$how to jobs/run at $ranks ranks: exit status 3 (got $status)" test "$status" -eq 3
    check "SIG$how to jobs/run at $ranks ranks: the script says what it does" \
      grep -q "jobs/run: SIG$how received" "$work/log_$name.txt"
    check "SIG$how to jobs/run at $ranks ranks: the ranks stopped with a checkpoint" \
      grep -q "received; stopped after step" "$work/log_$name.txt"
    STABLEFLUIDS_EXECUTABLE="$exe" "$runner" -n "$ranks" "$work/$name.yaml" --restart latest \
      > "$work/restart_$name.log" 2>&1
    check "SIG$how to jobs/run at $ranks ranks: jobs/run ... --restart latest completes" test $? -eq 0
    if [ "$ranks" -eq 2 ]; then
      check "SIG$how to jobs/run at 2 ranks: final frame equals the uninterrupted run's" \
        same_final_frame "$name"
    fi
  done
done

# SIGKILL between steps: the whole process group, no chance to clean up.
name=killed_between
job "$name" 0.6
run 2 "$work/$name.yaml"
wait_for_steps "$name" 7
kill_job "$pid" "$name"
"$mpiexec" -n 2 --oversubscribe "$exe" "$work/$name.yaml" --restart latest > "$work/restart_$name.log" 2>&1
check "SIGKILL between steps: restart completes" test $? -eq 0
check "SIGKILL between steps: final frame equals the uninterrupted run's" same_final_frame "$name"

# SIGKILL while a checkpoint is being written: the writer's test hook holds every checkpoint
# open for a second with its data written, so the kill lands inside a write every time.
name=killed_writing
job "$name" 0.6
STABLEFLUIDS_TEST_CHECKPOINT_PAUSE=1 run 2 "$work/$name.yaml"
caught=0
for _ in $(seq 6000); do
  if ls "$work/out_$name"/*_checkpoint_*.h5.tmp > /dev/null 2>&1 && \
     ls "$work/out_$name"/*_checkpoint_*.h5 > /dev/null 2>&1; then
    kill_job "$pid" "$name"
    caught=1
    break
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.005
done
[ "$caught" -eq 1 ] || wait "$pid" 2>/dev/null
check "caught a checkpoint being written" test "$caught" -eq 1
check "the test hook says it is in effect, once" \
  test "$(grep -c "warning: test hook STABLEFLUIDS_TEST_CHECKPOINT_PAUSE" "$work/log_2.txt")" -eq 1
newest=$(ls "$work/out_$name"/${name}_checkpoint_*.h5 2>/dev/null | tail -n 1)
check "the newest complete checkpoint is readable" bash -c "h5ls \"$newest\" > /dev/null"
"$mpiexec" -n 2 --oversubscribe "$exe" "$work/$name.yaml" --restart latest > "$work/restart_$name.log" 2>&1
check "SIGKILL during a checkpoint: restart completes" test $? -eq 0
check "SIGKILL during a checkpoint: restarted from the newest complete one" \
  grep -q "restarting from $newest" "$work/restart_$name.log"
check "SIGKILL during a checkpoint: final frame equals the uninterrupted run's" same_final_frame "$name"

echo "restart_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
