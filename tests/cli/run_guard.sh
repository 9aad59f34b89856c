# shellcheck shell=bash
# Runs of the solver with a deadline, for the CLI tests that drive it through mpiexec (sourced,
# not run). The caller sets exe (the solver) and mpiexec.
#
# A run still going at its deadline hangs, which is a defect, not a flake: guard prints the stack
# of every rank (gdb), kills the run and returns 124, so that the test always ends, with the
# evidence in its output. A run here takes seconds; on a loaded machine ten times as many.
deadline=${STABLEFLUIDS_RUN_DEADLINE:-120}

stacks() {  # stacks <job file>: every thread's backtrace of every solver process of that job
  local p solver
  solver=$(basename "$exe")
  for p in $(pgrep -f "$1"); do
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = "${solver:0:15}" ] || continue
    echo "--- $solver pid $p ($(tr '\0' ' ' < /proc/"$p"/cmdline 2>/dev/null))"
    if command -v gdb > /dev/null; then
      timeout 60 gdb -p "$p" -batch -ex 'thread apply all bt' 2>/dev/null | grep -E '^(#|Thread)'
    else
      cat /proc/"$p"/stack 2>/dev/null || echo "(no gdb here: no stack)"
    fi
  done
}

# Waits count the clock ($SECONDS), not their turns: on a loaded machine each `sleep` itself can
# take several times as long as it asks for.
guard() {  # guard <pid> <job file>: waits for mpiexec <pid>; its status, or 124 after a hang
  local pid=$1 job=$2 start=$SECONDS
  while kill -0 "$pid" 2>/dev/null; do
    if [ $((SECONDS - start)) -ge "$deadline" ]; then
      echo "HANG: the run of $job did not end within $deadline s; every rank's stack:"
      stacks "$job"
      pkill -KILL -f "$job" 2>/dev/null
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      return 124
    fi
    sleep 0.1
  done
  wait "$pid"
}

run() {  # run <log> <job file> <args...>: 2 ranks under the guard; returns the exit status
  local log=$1 job=$2
  shift
  "$mpiexec" -n 2 --oversubscribe "$exe" "$@" > "$log" 2>&1 &
  guard $! "$job"
}
