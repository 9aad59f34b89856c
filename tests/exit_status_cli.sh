#!/usr/bin/env bash
# Every way a run stops, seen from every rank (README "What stops a run"): each rank must exit by
# itself with the documented status, all of them within 2 s of one another (no rank sleeping,
# none left in a collective), with the message printed once, as one line on rank 0's stderr, and
# nothing on the other ranks' stdout or stderr.
#
# Each rank runs under a small wrapper that records its own exit status and the time it ended,
# and mpiexec keeps every rank's output apart (--output-filename). mpiexec is told not to kill
# the remaining ranks when the first one exits with a non-zero status
# (orte_abort_on_non_zero_status 0), so that what is recorded is what each rank did by itself;
# mpiexec's own status, the one users see, is checked separately at 2 ranks with its defaults.
#
# Paths: the NaN/Inf stop (a velocity that has blown up, with its dump), a pressure and
# a diffusion solve that hit their iteration cap, a checkpoint that cannot be created (permission
# denied, named as such), an unreadable checkpoint given to --restart, a halo wider than a rank's
# slab and a grid that cannot be divided among the ranks (status 2), a malformed job (2), and
# SIGTERM delivered to every rank (3).
# usage: exit_status_cli.sh <stablefluids executable> <mpiexec>
set -uo pipefail
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") mpiexec=$2
work=$(mktemp -d)
trap 'pkill -KILL -f "$work/" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
chmod 755 "$work"
cd "$work" || exit 1

passed=0 failed=0
check() {  # check <description> <command...>
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $what"; fi
}

# The per-rank wrapper: bash builtins only after the rank ends, so nothing it starts can be slow.
cat > "$work/rank.sh" <<'SH'
#!/usr/bin/env bash
dir=$1; shift
"$@"
status=$?
rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-0}}}
printf '%s %s\n' "$status" "$EPOCHREALTIME" > "$dir/status.$rank"
exit "$status"
SH
chmod 755 "$work/rank.sh"

# run_ranks <case> <ranks> <args...>: the solver on <ranks> ranks, each under the wrapper; its
# records go to $work/<case>/. Runs in the background; sets $pid.
run_ranks() {
  local case=$1 ranks=$2; shift 2
  rm -rf "$work/$case"
  mkdir -p "$work/$case"
  chmod 777 "$work/$case"
  "${launch_prefix[@]}" timeout 120 "$mpiexec" -n "$ranks" --oversubscribe \
    --mca orte_abort_on_non_zero_status 0 --output-filename "$work/$case/output" \
    "$work/rank.sh" "$work/$case" "$exe" "$@" > "$work/$case/mpiexec.log" 2>&1 &
  pid=$!
}
launch_prefix=()

# expect <case> <ranks> <status> [<pattern>]: every rank exited with <status> within 2 s of the
# others; rank 0's stderr is one line matching <pattern> (grep -E), or empty without a pattern;
# the other ranks said nothing at all.
expect() {
  local case=$1 ranks=$2 status=$3 pattern=${4:-} r
  local what="$case at $ranks ranks"
  local first="" last="" missing=0 wrong=""
  for ((r = 0; r < ranks; ++r)); do
    local record="$work/$case/status.$r"
    if [ ! -s "$record" ]; then missing=$((missing + 1)); continue; fi
    read -r s t < "$record"
    [ "$s" = "$status" ] || wrong+=" rank $r: $s"
    if [ -z "$first" ] || awk "BEGIN{exit !($t < $first)}"; then first=$t; fi
    if [ -z "$last" ] || awk "BEGIN{exit !($t > $last)}"; then last=$t; fi
  done
  check "$what: every rank recorded its exit ($missing missing)" test "$missing" -eq 0
  check "$what: every rank exits with status $status (got:${wrong:- all $status})" test -z "$wrong"
  if [ "$missing" -eq 0 ]; then
    local spread
    spread=$(awk "BEGIN{printf \"%.2f\", $last - $first}")
    check "$what: all ranks exit within 2 s of one another (spread $spread s)" \
      awk "BEGIN{exit !($spread <= 2.0)}"
  fi
  local out="$work/$case/output/1"
  local lines expected=1
  [ -z "$pattern" ] && expected=0
  lines=$(cat "$out/rank.0/stderr" 2>/dev/null | wc -l)
  check "$what: rank 0 prints $expected error line(s) (got $lines)" test "$lines" -eq "$expected"
  [ -n "$pattern" ] &&
    check "$what: the message says what happened" grep -qE "$pattern" "$out/rank.0/stderr"
  local noisy=""
  for ((r = 1; r < ranks; ++r)); do
    [ -s "$out/rank.$r/stderr" ] && noisy+=" $r(stderr)"
    [ -s "$out/rank.$r/stdout" ] && noisy+=" $r(stdout)"
  done
  check "$what: the other ranks print nothing (printed:${noisy:- none})" test -z "$noisy"
  if [ -n "$noisy$wrong" ] || [ "$lines" -ne "$expected" ]; then
    echo "--- $case: rank 0 stderr"; head -c 2000 "$out/rank.0/stderr" 2>/dev/null
    for ((r = 1; r < ranks; ++r)); do head -c 500 "$out/rank.$r/stderr" 2>/dev/null; done
  fi
}

# case <name> <ranks> <status> <pattern> <args...>: one run to its end, then the checks.
case_() {
  local case=$1 ranks=$2 status=$3 pattern=$4; shift 4
  run_ranks "$case" "$ranks" "$@"
  wait "$pid"
  expect "$case" "$ranks" "$status" "$pattern"
}

wait_for_steps() {  # wait_for_steps <steps.csv> <n>: until n steps are logged (at most 60 s)
  for _ in $(seq 600); do
    [ -s "$1" ] && [ "$(($(wc -l < "$1") - 1))" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

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
# as lost, with no dump. An infinite one takes the same path (tests/test_health.cpp).
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

# A grid that PETSc cannot divide among 8 ranks at all.
case_ too_fine_8 8 2 "^stablefluids: error: a grid of 2 x 2 x 1 cells cannot be divided among 8 ranks" \
  "$work/too_fine.yaml"

# What users see: mpiexec's own status, with its defaults, is the documented one.
for spec in "inf 1" "pressure_cap 1 -pressure_ksp_max_it 1 -pressure_ksp_rtol 1e-14" "narrow 2" \
            "malformed 2"; do
  set -- $spec
  name=$1 status=$2; shift 2
  timeout 120 "$mpiexec" -n 2 --oversubscribe "$exe" "$work/$name.yaml" "$@" > "$work/plain_$name.log" 2>&1
  got=$?
  check "mpiexec's own status for $name is $status (got $got)" test "$got" -eq "$status"
done

echo "exit_status_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
