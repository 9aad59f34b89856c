#!/usr/bin/env bash
# Every way a run stops, seen from every rank (docs/running.md "What stops a run"): each rank must
# exit by itself with the documented status, all of them within 2 s of one another (no rank
# sleeping, none left in a collective), with the message printed once, as one line on rank 0's
# stderr, and nothing on the other ranks' stdout or stderr.
#
# Each rank runs under a wrapper that records its own exit status and the time it ended
# (rank_records.sh); mpiexec's own status, the one users see, is checked separately at 2 ranks
# with its defaults.
#
# Paths: the NaN/Inf stop (a velocity that has blown up, with its dump), a pressure and
# a diffusion solve that hit their iteration cap, a checkpoint that cannot be created (permission
# denied, named as such), an unreadable checkpoint given to --restart, a halo wider than a rank's
# slab and a grid that cannot be divided among the ranks (status 2), a malformed job (2), a
# floating body that reaches the floor during the run (1) or starts against it (2), and SIGTERM
# delivered to every rank (3); a valid job that must run to its end (0) where a false NaN once
# stopped it; and a frame, a checkpoint or a restart's checkpoint that one
# rank cannot open while rank 0 can (a file removed between their opens, as refuse_open.c makes
# it happen on purpose: with Open MPI's OMPIO the collective open then succeeded on rank 0 alone,
# which left rank 0 in HDF5's next collective call and the others in ours, for ever; the solver
# now runs with ROMIO, whose open is all or nothing: choose_mpi_io() in io/collective_file.hpp).
# usage: exit_status_cli.sh <stablefluids executable> <mpiexec> <refuse_open.so>
set -uo pipefail
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") mpiexec=$2 refuse_open=$3
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'pkill -KILL -f "$work/" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
chmod 755 "$work"
cd "$work" || exit 1

source "$tests/rank_records.sh"

job() {  # job <file> <extra YAML...>: a small 2D job writing into $work/out_<file>
  local name=$1; shift
  {
    echo "name: $name"
    echo "grid: {cells: [24, 24], halo: 2}"
    echo "boundary: {x: free-slip, y: free-slip}"
    echo "scalars: {dye: {initial: [{shape: sphere, center: [0.5, 0.5], radius: 0.2, value: 1.0}]}}"
    echo "output: {directory: $work/out_$name, interval: 0, overwrite: true}"
    printf '%s\n' "$@"
  } > "$work/$name.yaml"
}

# A velocity that has blown up (vortex and confinement at the largest values a job may give):
# stopped before advection, which once traced its departure points to nowhere and reported them
# as lost, with no dump. An infinite one takes the same path (tests/mac/test_health.cpp).
job inf "velocity: {initial: {type: vortex, center: [0.4, 0.5], radius: 0.2, strength: 1e30}}" \
        "forces: {vorticity_confinement: 1e30}" "time: {dt: 1e29, end: 1e30}" \
        "debug: {dump_on_failure: true}"
# A solve capped at one iteration.
job pressure_cap "velocity: {initial: {type: vortex, center: [0.4, 0.5], radius: 0.2, strength: 1}}" \
                 "forces: {gravity: [0, -1]}" "time: {dt: 0.01, end: 0.1}"
job diffusion_cap "velocity: {initial: {type: vortex, center: [0.4, 0.5], radius: 0.2, strength: 1}}" \
                  "fluid: {viscosity: 0.1}" "time: {dt: 0.01, end: 0.1}"
# A checkpoint directory that stops being writable while the run goes on (its permissions are
# taken away once the steps are under way; the first checkpoint is due after 4 s of wall time).
job no_permission "time: {dt: 0.001, end: 1000}" \
                  "checkpoint: {directory: $work/shared, every_wall_seconds: 4}"
job restart "time: {dt: 0.01, end: 0.1}"
head -c 4096 /dev/urandom > "$work/garbage.h5"
job narrow "grid: {cells: [4, 4], halo: 3}" "time: {dt: 0.01, end: 0.1}"
sed -i '/^grid: {cells: \[24, 24\]/d' "$work/narrow.yaml"
job too_fine "grid: {cells: [2, 2], halo: 1}" "time: {dt: 0.01, end: 0.1}"
sed -i '/^grid: {cells: \[24, 24\]/d' "$work/too_fine.yaml"
printf 'grid: {cells: [8, 8]}\ntime: {dt: 0.1, end: 1}\nbogus: 1\n' > "$work/malformed.yaml"
job signal "time: {dt: 0.001, end: 1000}" "checkpoint: {every_steps: 0}"
sed -i 's/cells: \[24, 24\]/cells: [64, 64]/' "$work/signal.yaml"
# Floating bodies in a tank: a heavy ball that sinks to the floor (contact is not modelled) stops
# the run when it gets there, a failure of the run (1) in a valid job; one that the job places
# against the floor is the job's error (2), before the first step.
body_job() {  # body_job <name> <centre y>
  cat > "$work/$1.yaml" <<YAML
name: $1
grid: {cells: [32, 24], size: [2, 1.5]}
boundary: {x: no-slip, y: no-slip}
forces: {gravity: [0, -1]}
liquid:
  initial: [{shape: box, lower: [-1, -1], upper: [3, 0.75]}]
  interface: level_set
  particles: {per_cell: 0}
obstacles: [{shape: sphere, center: [1, $2], radius: 0.12, floating: {density: 3}}]
time: {dt: 0.02, end: 8}
output: {directory: $work/out_$1, interval: 0, overwrite: true}
YAML
}
body_job sinking 0.2
body_job on_floor 0.1
# A valid job that once stopped with a false "NaN in dye": the monotone cubic's slope ratios
# overflowed where the dye had decayed to subnormal values beside normal ones. It runs to its end.
jobs_dir=$(cd "$tests/../../jobs" && pwd)
subnormal_dye=("$jobs_dir/taylor_green_2d.yaml" --set "grid.cells=[32, 32]" --set grid.halo=2
               --set advection.interpolation=monotone_cubic --set time.dt=1e-6
               --set time.end=4e-5 --set "output.directory=$work/out_subnormal_dye"
               --set output.overwrite=true)

# Root passes every permission check: the permission case runs as nobody where it can (the
# whole job, mpiexec included: ranks of another user than mpiexec's cannot start).
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  if command -v setpriv > /dev/null; then
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  fi
fi

for ranks in 2 4; do
  case_ "inf_$ranks" "$ranks" 1 \
    "^stablefluids: error: velocity component [01] = .* at face .* after the sources and forces of step 1 .* the flow has blown up.*The failing state is in" \
    "$work/inf.yaml"
  check "inf at $ranks ranks: the failing state is dumped" test -s "$work/out_inf/inf_failed_step1_000000.h5"
  case_ "pressure_cap_$ranks" "$ranks" 1 \
    "^stablefluids: error: the pressure solve did not converge: DIVERGED_ITS after 1 iterations" \
    "$work/pressure_cap.yaml" -pressure_ksp_max_it 1 -pressure_ksp_rtol 1e-14
  case_ "diffusion_cap_$ranks" "$ranks" 1 \
    "^stablefluids: error: diffusion of 'velocity' \(component 0\) did not converge: DIVERGED_ITS after 1 iterations" \
    "$work/diffusion_cap.yaml" -diffusion_ksp_max_it 1 -diffusion_ksp_rtol 1e-14
  if [ "$(id -u)" -ne 0 ] || [ ${#as_user[@]} -gt 0 ]; then
    launch_prefix=("${as_user[@]}")
    chmod 777 "$work"
    rm -rf "$work/shared" "$work/out_no_permission"
    mkdir "$work/shared" && chmod 777 "$work/shared"
    run_ranks "no_permission_$ranks" "$ranks" "$work/no_permission.yaml"
    wait_for_steps "$work/out_no_permission/no_permission_steps.csv" 2
    chmod 555 "$work/shared"
    wait "$pid"
    expect "no_permission_$ranks" "$ranks" 1 \
      "^stablefluids: error: cannot create checkpoint '$work/shared/no_permission_checkpoint_[0-9]{8}.h5.tmp': Permission denied"
    chmod 755 "$work"
    launch_prefix=()
  else
    check "the permission case needs setpriv to run as another user" false
  fi
  case_ "restart_$ranks" "$ranks" 1 "^stablefluids: error: .*checkpoint '$work/garbage.h5'" \
    "$work/restart.yaml" --restart "$work/garbage.h5"
  case_ "narrow_$ranks" "$ranks" 2 \
    "^stablefluids: error: halo 3 is wider than the [0-9]+ cells some rank owns along [xy]" \
    "$work/narrow.yaml"
  case_ "malformed_$ranks" "$ranks" 2 "^stablefluids: error: $work/malformed.yaml:3: bogus: unknown key" \
    "$work/malformed.yaml"

  # SIGTERM to every rank, as a scheduler delivers it: each rank stops at the step boundary, the
  # ranks write a checkpoint and each exits with 3. Sent once the steps are under way, so that
  # every rank has its handler (it is installed before MPI starts).
  run_ranks "signal_$ranks" "$ranks" "$work/signal.yaml"
  wait_for_steps "$work/out_signal/signal_steps.csv" 2
  pkill -TERM -x stablefluids -P "$(pgrep -d, -f "$work/rank.sh $work/signal_$ranks")"
  wait "$pid"
  expect "signal_$ranks" "$ranks" 3   # a signal is no error: reported on stdout
  check "signal at $ranks ranks: says where it stopped" \
    grep -q "SIGTERM received; stopped after step" "$work/signal_$ranks/output/1/rank.0/stdout"
  rm -rf "$work/out_signal"
done

# A file that rank 0 opens and the last rank cannot: every rank stops with 1, the message names
# the file, and what was written before is intact.
job vanishing_frame "time: {dt: 0.01, end: 0.1}" "checkpoint: {every_steps: 0}"
sed -i "s|interval: 0,|interval: 0.02,|" "$work/vanishing_frame.yaml"
job vanishing_checkpoint "time: {dt: 0.01, end: 0.1}" \
                         "checkpoint: {directory: $work/vanishing_checkpoints, every_steps: 2}"
refuse() {  # refuse <case> <ranks> <suffix> <status> <pattern> <args...>: case_ with the shim
  local case=$1 ranks=$2 suffix=$3; shift 3
  LD_PRELOAD=$refuse_open REFUSE_OPEN_RANK=$((ranks - 1)) REFUSE_OPEN_SUFFIX=$suffix \
    case_ "$case" "$ranks" "$@"
}
readable() { h5ls "$1" > /dev/null 2>&1; }
frames_readable() {  # every final-named frame in <dir> opens
  local f
  for f in "$1"/*_[0-9][0-9][0-9][0-9][0-9][0-9].h5; do readable "$f" || return 1; done
}
for ranks in 2 3; do
  rm -rf "$work/out_vanishing_frame" "$work/vanishing_checkpoints"
  refuse "vanishing_frame_$ranks" "$ranks" _000002.h5.tmp 1 \
    "^stablefluids: error: cannot create output frame '$work/out_vanishing_frame/vanishing_frame_000002.h5.tmp': " \
    "$work/vanishing_frame.yaml"
  check "vanishing frame at $ranks ranks: frames 0 and 1 are intact" frames_readable "$work/out_vanishing_frame"
  check "vanishing frame at $ranks ranks: no temporary file is left" \
    test -z "$(find "$work/out_vanishing_frame" -name '*.tmp')"
  refuse "vanishing_checkpoint_$ranks" "$ranks" _checkpoint_00000004.h5.tmp 1 \
    "^stablefluids: error: cannot create checkpoint '$work/vanishing_checkpoints/vanishing_checkpoint_checkpoint_00000004.h5.tmp': " \
    "$work/vanishing_checkpoint.yaml"
  check "vanishing checkpoint at $ranks ranks: the one before is intact" \
    readable "$work/vanishing_checkpoints/vanishing_checkpoint_checkpoint_00000002.h5"
  refuse "vanishing_restart_$ranks" "$ranks" _checkpoint_00000002.h5 1 \
    "^stablefluids: error: .*checkpoint '$work/vanishing_checkpoints/vanishing_checkpoint_checkpoint_00000002.h5'" \
    "$work/vanishing_checkpoint.yaml" --restart "$work/vanishing_checkpoints/vanishing_checkpoint_checkpoint_00000002.h5"
done

# A floating body's contact, at 3 ranks (mpiexec's own status at 2 ranks is checked below; a
# liquid step with a body is slow enough that one run per case is kept).
case_ sinking_3 3 1 \
  "^stablefluids: error: floating obstacle 0 reached the y lower side of the domain: contact is" \
  "$work/sinking.yaml"
check "sinking at 3 ranks: stopped during the run, after steps were taken" \
  test "$(wc -l < "$work/out_sinking/sinking_steps.csv")" -gt 2
case_ on_floor_3 3 2 \
  "^stablefluids: error: floating obstacle 0 starts next to the y lower side of the domain" \
  "$work/on_floor.yaml"

# The valid job that once stopped with a false NaN, on 1 and 2 ranks: done (0), nothing on stderr.
for ranks in 1 2; do
  case_ "subnormal_dye_$ranks" "$ranks" 0 "" "${subnormal_dye[@]}"
  check "subnormal dye at $ranks ranks: reached the end" \
    grep -q "reached t = 4e-05 after 40 steps" "$work/subnormal_dye_$ranks/output/1/rank.0/stdout"
done

# A grid that PETSc cannot divide among 8 ranks at all.
case_ too_fine_8 8 2 "^stablefluids: error: a grid of 2 x 2 x 1 cells cannot be divided among 8 ranks" \
  "$work/too_fine.yaml"

# What users see: mpiexec's own status, with its defaults, is the documented one. The last case
# fails in PETSc's own start-up (an -options_file that does not open), which once made the
# solver exit with PETSc's error code, 83, a status no table listed.
for spec in "inf 1" "pressure_cap 1 -pressure_ksp_max_it 1 -pressure_ksp_rtol 1e-14" "narrow 2" \
            "malformed 2" "sinking 1" "on_floor 2" "restart 1 -options_file $work/absent"; do
  set -- $spec
  name=$1 status=$2; shift 2
  timeout 120 "$mpiexec" -n 2 --oversubscribe "$exe" "$work/$name.yaml" "$@" > "$work/plain_$name.log" 2>&1
  got=$?
  check "mpiexec's own status for $name is $status (got $got)" test "$got" -eq "$status"
done

echo "exit_status_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
