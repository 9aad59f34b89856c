#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The run scripts around the solver, with a stand-in for stablefluids (and for srun/scontrol)
# that records the display it was given and whether an X server answers there:
#   - jobs/run --help prints the script's header as help, and nothing else; no job is an error;
#   - jobs/run gives a job whose Catalyst scripts render one virtual X server for all its ranks,
#     and a job that does not render none; Ctrl-C (SIGINT to the script's process group) leaves
#     the server running while the ranks finish their last step, and it is gone afterwards;
#   - jobs/slurm/run.sbatch starts every rank of a rendering job through with_display, which
#     gives it a server, and a non-rendering job, or one with DISPLAY set, without; SIGUSR1 sent
#     to every process of the step, as Slurm's --signal=USR1@120 does, reaches the rank but not
#     the server, and status 3 requeues the job;
#   - the scaling studies' array jobs do the same for a study that keeps a rendering Catalyst
#     section, and start the rank directly when the study drops it.
# usage: job_scripts_cli.sh <source dir> <mpiexec>
set -uo pipefail
src=$(cd "${1:?usage: job_scripts_cli.sh <source dir> <mpiexec>}" && pwd)
mpiexec=${2:-mpiexec}
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
runner_pid=""
cleanup() {
  if [ -n "$runner_pid" ]; then kill -KILL -- -"$runner_pid" 2> /dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
# shellcheck source=cli_checks.sh
source "$tests/cli_checks.sh"
unset DISPLAY
export FAKE_LOG=$work/records
mkdir -p "$FAKE_LOG" bin
# jobs/run runs `mpiexec` from PATH; the one the suite was configured with comes first.
ln -s "$(command -v "$mpiexec")" bin/mpiexec

# The stand-in for stablefluids: one record file per rank. With FAKE_MODE=signal it waits for
# SIGUSR1, as a rank finishing its step would, and looks at the display again a second later.
cat > bin/fake_rank <<'EOF'
#!/bin/bash
rank=${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:-0}}
out=$FAKE_LOG/rank$rank
x_answers() {
  [ -n "${DISPLAY:-}" ] && /usr/bin/python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).connect("/tmp/.X11-unix/X" + sys.argv[1][1:].split(".")[0])' \
    "$DISPLAY" 2> /dev/null
}
echo "display=${DISPLAY:-}" > "$out"
echo "lp_num_threads=${LP_NUM_THREADS:-}" >> "$out"
if x_answers; then echo "x=yes" >> "$out"; else echo "x=no" >> "$out"; fi
if [ "${FAKE_MODE:-}" = signal ]; then
  got=0
  trap 'got=1' USR1
  touch "$out.ready"
  for _ in $(seq 600); do [ "$got" = 1 ] && break; sleep 0.1; done
  sleep 1
  if x_answers; then echo "x_after_signal=yes" >> "$out"; else echo "x_after_signal=no" >> "$out"; fi
  exit 3
fi
exit 0
EOF
# srun: records its arguments and its PID (that of the step's first process: it execs the
# command) and runs the command as one task.
cat > bin/srun <<'EOF'
#!/bin/bash
echo "$*" >> "$FAKE_LOG/srun.args"
while [ $# -gt 0 ]; do
  case $1 in -n) shift 2 ;; -n* | --*) shift ;; *) break ;; esac
done
echo $$ > "$FAKE_LOG/srun.pid"
exec "$@"
EOF
cat > bin/scontrol <<'EOF'
#!/bin/bash
echo "$*" >> "$FAKE_LOG/scontrol.args"
EOF
chmod +x bin/fake_rank bin/srun bin/scontrol
export PATH=$work/bin:$PATH

record() {  # record <rank> <key>: a value from a rank's record
  sed -n "s/^$2=//p" "$FAKE_LOG/rank$1" 2> /dev/null
}
x_gone() {  # x_gone <display>: no X server answers on it
  ! /usr/bin/python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).connect("/tmp/.X11-unix/X" + sys.argv[1][1:])' "$1" 2> /dev/null
}
fresh() { rm -rf "$FAKE_LOG"; mkdir -p "$FAKE_LOG"; }
wait_for() {  # wait_for <file>: at most 60 s
  for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done
  return 1
}
descendants() {  # descendants <pid>: the PID and every process below it
  ps -e -o pid=,ppid= | awk -v root="$1" '
    { parent[$1] = $2 }
    END {
      keep[root] = 1; grew = 1
      while (grew) { grew = 0; for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; grew = 1 } }
      for (p in keep) print p
    }'
}

# A job whose Catalyst script renders, and one without Catalyst: only needs_display.py reads
# them (the stand-in ignores its arguments).
cat > render.yaml <<EOF
grid: {cells: [16, 16]}
time: {dt: 0.1, end: 1}
catalyst: {scripts: [{script: $src/jobs/catalyst/slice_png.py}]}
EOF
cat > plain.yaml <<'EOF'
grid: {cells: [16, 16]}
time: {dt: 0.1, end: 1}
EOF

# --- jobs/run --help --------------------------------------------------------------------------
"$src/jobs/run" --help > help.txt 2> help.err
status=$?
check "jobs/run --help: status 0 (got $status)" test "$status" -eq 0
check "jobs/run --help: starts with the usage line" \
  bash -c "head -n 1 help.txt | grep -q '^usage: jobs/run \[-n RANKS\] <job.yaml>'"
check "jobs/run --help: the whole header (the last line names STABLEFLUIDS_EXECUTABLE)" \
  bash -c "tail -n 1 help.txt | grep -q '^STABLEFLUIDS_EXECUTABLE=<path> runs'"
check "jobs/run --help: no comment marks, directives or code" \
  bash -c "! grep -E '^#|shellcheck|^set |^ranks=' help.txt"
check "jobs/run --help: nothing on stderr" test ! -s help.err
check "jobs/run -h is the same" bash -c "'$src/jobs/run' -h | cmp -s - help.txt"
"$src/jobs/run" > noargs.txt 2> noargs.err
status=$?
check "jobs/run without a job: status 2 (got $status), the help on stderr only" \
  bash -c "[ $status -eq 2 ] && [ ! -s noargs.txt ] && cmp -s noargs.err help.txt"

# --- jobs/run: one virtual display for the ranks of a rendering job ---------------------------
export STABLEFLUIDS_EXECUTABLE=$work/bin/fake_rank
fresh
"$src/jobs/run" -n 2 render.yaml > run_render.log 2>&1
status=$?
check "jobs/run, rendering job: status 0 (got $status)" test "$status" -eq 0
display=$(record 0 display)
check "jobs/run, rendering job: rank 0 has a display ('$display')" test -n "$display"
check "jobs/run, rendering job: both ranks share it" test "$(record 1 display)" = "$display"
check "jobs/run, rendering job: an X server answers there" \
  bash -c "[ '$(record 0 x)' = yes ] && [ '$(record 1 x)' = yes ]"
check "jobs/run, rendering job: the server is gone afterwards" x_gone "$display"
fresh
"$src/jobs/run" -n 2 plain.yaml > run_plain.log 2>&1
check "jobs/run, job without Catalyst: no display" \
  bash -c "[ -z '$(record 0 display)' ] && [ -z '$(record 1 display)' ] && [ -s '$FAKE_LOG/rank1' ]"

# Ctrl-C reaches the script's whole process group (job control gives it one; SIGINT at its
# default, as at a terminal). The ranks are asked to stop after their step, which may render:
# the server must still be there.
fresh
set -m
FAKE_MODE=signal env --default-signal=INT "$src/jobs/run" -n 2 render.yaml > run_int.log 2>&1 &
runner_pid=$!
set +m
wait_for "$FAKE_LOG/rank0.ready" && wait_for "$FAKE_LOG/rank1.ready"
kill -INT -- -"$runner_pid"
wait "$runner_pid"
status=$?
runner_pid=""
check "jobs/run, Ctrl-C: status 3 (got $status)" test "$status" -eq 3
check "jobs/run, Ctrl-C: the server still answered as the ranks finished" \
  bash -c "[ '$(record 0 x_after_signal)' = yes ] && [ '$(record 1 x_after_signal)' = yes ]"
check "jobs/run, Ctrl-C: the server is gone afterwards" x_gone "$(record 0 display)"
unset STABLEFLUIDS_EXECUTABLE

# --- jobs/slurm/run.sbatch --------------------------------------------------------------------
sbatch_run() {  # sbatch_run <job> [env...]: the script as a batch job would run it
  env -u LP_NUM_THREADS SLURM_JOB_ID=4242 SLURM_SUBMIT_DIR="$src" \
    STABLEFLUIDS="$work/bin/fake_rank" "${@:2}" bash "$src/jobs/slurm/run.sbatch" "$1"
}
fresh
sbatch_run render.yaml > sbatch_render.log 2>&1
status=$?
check "run.sbatch, rendering job: status 0 (got $status)" test "$status" -eq 0
check "run.sbatch, rendering job: srun starts the rank through with_display" \
  grep -q "^$src/jobs/slurm/with_display $work/bin/fake_rank render.yaml" "$FAKE_LOG/srun.args"
display=$(record 0 display)
check "run.sbatch, rendering job: the rank has a display ('$display') that answers" \
  bash -c "[ -n '$display' ] && [ '$(record 0 x)' = yes ]"
check "run.sbatch, rendering job: the server is gone afterwards" x_gone "$display"
check "run.sbatch, rendering job: one llvmpipe thread per rank" \
  test "$(record 0 lp_num_threads)" = 1
fresh
sbatch_run plain.yaml > sbatch_plain.log 2>&1
check "run.sbatch, job without Catalyst: srun starts the rank itself" \
  grep -q "^$work/bin/fake_rank plain.yaml" "$FAKE_LOG/srun.args"
check "run.sbatch, job without Catalyst: no display" \
  bash -c "[ -s '$FAKE_LOG/rank0' ] && [ -z '$(record 0 display)' ]"
fresh
sbatch_run render.yaml DISPLAY=:77 > sbatch_display.log 2>&1
check "run.sbatch, DISPLAY already set: srun starts the rank itself, with that display" \
  bash -c "grep -q '^$work/bin/fake_rank render.yaml' '$FAKE_LOG/srun.args' &&
           [ '$(record 0 display)' = :77 ]"

# Every argument after the job reaches stablefluids unchanged (--set flags, PETSc options); the
# earlier form `run.sbatch <job> latest` still means --restart latest; a requeued job continues
# from its newest checkpoint whatever --restart it was submitted with.
sbatch_args() {  # sbatch_args <env assignment> <arguments...>: the srun line it gives
  fresh
  env -u LP_NUM_THREADS SLURM_JOB_ID=4242 SLURM_SUBMIT_DIR="$src" \
    STABLEFLUIDS="$work/bin/fake_rank" "$1" bash "$src/jobs/slurm/run.sbatch" "${@:2}" \
    > sbatch_args.log 2>&1 && cat "$FAKE_LOG/srun.args"
}
log_view="-log_view :stablefluids-4242.log_view"
got=$(sbatch_args SLURM_RESTART_COUNT=0 plain.yaml --set time.end=1 --set 'name=a b' \
      -pressure_ksp_rtol 1e-9)
check "run.sbatch passes every argument after the job through (got '$got')" test "$got" = \
  "$work/bin/fake_rank plain.yaml --set time.end=1 --set name=a b -pressure_ksp_rtol 1e-9 $log_view"
got=$(sbatch_args SLURM_RESTART_COUNT=0 plain.yaml latest)
check "run.sbatch <job> latest means --restart latest (got '$got')" test "$got" = \
  "$work/bin/fake_rank plain.yaml --restart latest $log_view"
got=$(sbatch_args SLURM_RESTART_COUNT=0 plain.yaml --restart old.h5 --set a=1)
check "run.sbatch --restart <file> on the first run (got '$got')" test "$got" = \
  "$work/bin/fake_rank plain.yaml --restart old.h5 --set a=1 $log_view"
got=$(sbatch_args SLURM_RESTART_COUNT=1 plain.yaml --restart old.h5 --set a=1)
check "run.sbatch, requeued: --restart latest in place of the one submitted (got '$got')" \
  test "$got" = "$work/bin/fake_rank plain.yaml --set a=1 --restart latest $log_view"
got=$(sbatch_args SLURM_RESTART_COUNT=2 plain.yaml)
check "run.sbatch, requeued without --restart: --restart latest (got '$got')" test "$got" = \
  "$work/bin/fake_rank plain.yaml --restart latest $log_view"

# Slurm's --signal=USR1@120 goes to every process of the step: the rank, with_display, the
# server and its parent. The rank stops with status 3 after its step, and the job is requeued.
fresh
FAKE_MODE=signal sbatch_run render.yaml > sbatch_usr1.log 2>&1 &
batch=$!
wait_for "$FAKE_LOG/rank0.ready"
step=$(cat "$FAKE_LOG/srun.pid")
processes=$(descendants "$step" | wc -l)
check "run.sbatch, SIGUSR1: the step has the rank, with_display and the server ($processes)" \
  test "$processes" -ge 4
for pid in $(descendants "$step"); do kill -USR1 "$pid" 2> /dev/null; done
wait "$batch"
status=$?
check "run.sbatch, SIGUSR1 to the step: status 3 (got $status)" test "$status" -eq 3
check "run.sbatch, SIGUSR1 to the step: the server still answered as the rank finished" \
  test "$(record 0 x_after_signal)" = yes
check "run.sbatch, status 3: the job is requeued" grep -qx "requeue 4242" "$FAKE_LOG/scontrol.args"
check "run.sbatch, SIGUSR1: the server is gone afterwards" x_gone "$(record 0 display)"

# --- the scaling studies' array jobs ----------------------------------------------------------
# A study of a rendering job that keeps its Catalyst section, and one that drops it (default).
mkdir -p study/scripts
cp plain.yaml study/job.yaml
echo "view = CreateView('RenderView')  # a stand-in: needs_display.py looks for this" \
  > study/scripts/render.py
echo "catalyst: {scripts: [{script: scripts/render.py}]}" >> study/job.yaml
for catalyst in keep drop; do
  echo "{name: s_$catalyst, base_job: job.yaml, kind: strong, ranks: [1, 2], steps: 1," \
       " repetitions: 1, catalyst: $catalyst}" > "study/$catalyst.yaml"
  /usr/bin/python3 "$src/jobs/scaling/stablefluids_scaling.py" run "study/$catalyst.yaml" \
    --slurm --exe "$work/bin/fake_rank" --output "$work/out_$catalyst" > "study_$catalyst.log" 2>&1
done
fresh
env SLURM_ARRAY_TASK_ID=1 bash "$work/out_keep/slurm_r2.sbatch" > array_keep.log 2>&1
status=$?
check "array job, catalyst kept: task 1 succeeds (status $status)" test "$status" -eq 0
check "array job, catalyst kept: srun -n 2 through with_display" \
  grep -q "^-n 2 $src/jobs/slurm/with_display $work/bin/fake_rank " "$FAKE_LOG/srun.args"
check "array job, catalyst kept: the rank has a display that answers" \
  bash -c "[ -n '$(record 0 display)' ] && [ '$(record 0 x)' = yes ]"
fresh
env SLURM_ARRAY_TASK_ID=1 bash "$work/out_drop/slurm_r2.sbatch" > array_drop.log 2>&1
check "array job, catalyst dropped: srun -n 2 starts the rank itself, without a display" \
  bash -c "grep -q '^-n 2 $work/bin/fake_rank ' '$FAKE_LOG/srun.args' &&
           [ -s '$FAKE_LOG/rank0' ] && [ -z '$(record 0 display)' ]"

echo "job_scripts_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
