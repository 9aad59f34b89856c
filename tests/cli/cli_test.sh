#!/usr/bin/env bash
# End-to-end checks of the executable, as a user runs it:
#   - each example job runs on 2 ranks and leaves frames and an .xmf that h5ls/h5dump read, and
#     its last line gives the end time as a plain number ("t = 1", not PETSc's "t = 1.");
#   - a malformed job, and a missing one, stop every rank with exit status 2 and one message
#     naming the file, the line and the key, well before the timeout (no rank hangs);
#   - the command line: --help, --version, PETSc options before the job, unused options named,
#     --set overrides of job keys;
#   - provenance in the timings JSON, and frames that explain themselves under `h5dump -H`.
# usage: cli_test.sh <stablefluids executable> <source dir> <mpiexec>
set -uo pipefail
exe=$1 src=$2 mpiexec=$3
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

source "$tests/cli_checks.sh"
run() {  # run <ranks> <args...>: the solver under mpiexec with a hang guard
  local ranks=$1; shift
  timeout 120 "$mpiexec" -n "$ranks" --oversubscribe "$exe" "$@"
}

for job in vortex_2d vortex_3d; do
  run 2 "$src/jobs/$job.yaml" > "$job.log" 2>&1
  status=$?
  check "$job runs (status $status)" test "$status" -eq 0
  check "$job writes its index" test -s "output/$job.xmf"
  # Both jobs end at t = 1 after 100 steps of 0.01: the last line says so as a number is written.
  check "$job reports 't = 1' at the end" \
    grep -q "^stablefluids: reached t = 1 after 100 steps;" "$job.log"
  check "$job leaves no temporary files" test -z "$(find output -name '*.tmp')"
  frames=$(find output -name "${job}_*.h5" | wc -l)
  check "$job writes 11 frames (found $frames)" test "$frames" -eq 11
  check "h5ls reads the last frame of $job" \
    bash -c "h5ls -r output/${job}_000010.h5 | grep -q '^/velocity .*Dataset'"
  check "h5dump reads the time attribute of $job" \
    bash -c "h5dump -a /time output/${job}_000010.h5 | grep -q '1$\|(0): 1'"
done

# A malformed job: an unknown key on line 3.
cat > bad.yaml <<'YAML'
grid:
  cells: [16, 16]
  cels: 4
time: {dt: 0.1, end: 1.0}
YAML
start=$(date +%s)
run 3 bad.yaml > bad.log 2>&1
status=$?
check "malformed job exits with status 2 (got $status)" test "$status" -eq 2
check "malformed job names file, line and key" grep -q "bad.yaml:3: grid.cels: unknown key" bad.log
check "the message is printed once, by rank 0" test "$(grep -c 'unknown key' bad.log)" -eq 1
check "malformed job fails fast" test $(($(date +%s) - start)) -lt 60
check "malformed job creates no output" test ! -e output/bad.xmf

run 3 does-not-exist.yaml > missing.log 2>&1
status=$?
check "missing job exits with status 2 (got $status)" test "$status" -eq 2
check "missing job is named" grep -q "cannot read job file 'does-not-exist.yaml'" missing.log

# The command line (src/app/command_line.hpp).
"$exe" --help > help.out 2> help.err
status=$?
check "--help exits 0 (got $status)" test "$status" -eq 0
for part in "usage: mpiexec -n <ranks> stablefluids <job.yaml>" "--restart <checkpoint.h5|latest>" \
            "--set <key>=<value>" "--version" "-help " "jobs/README.md" "exit status"; do
  check "--help mentions '$part'" grep -qF -- "$part" help.out
done
check "--help writes nothing to stderr" test ! -s help.err

"$exe" --version > version.out 2>&1
status=$?
check "--version exits 0 (got $status)" test "$status" -eq 0
for part in "stablefluids " "(commit " "PETSc 3." "HDF5 1." "MPI: " "yaml-cpp " "ParaView Catalyst"; do
  check "--version names '$part'" grep -qF "$part" version.out
done
if commit=$(git -C "$src" rev-parse --short=12 HEAD 2> /dev/null); then
  check "--version names the commit built, $commit" grep -q "(commit $commit" version.out
fi

# A small job: 2-D, 5 steps, a frame every step.
sed -e 's/^  end: 1.0/  end: 0.05/' -e 's/^  interval: 0.1/  interval: 0.01/' \
    -e "s|^  directory: .*|  directory: $work/small|" "$src/jobs/vortex_2d.yaml" > small.yaml
check "the small job was made" grep -q "end: 0.05" small.yaml

# A PETSc option before the job used to take the job file as its value ("Unsupported viewer").
run 2 -log_view small.yaml -pressure_ksp_rtol 1e-9 --set output.overwrite=true \
  > log_view.out 2> log_view.err
status=$?
check "-log_view before the job runs it (status $status)" test "$status" -eq 0
check "-log_view before the job prints PETSc's summary" \
  grep -q "PETSc Performance Summary" log_view.out
check "a run with only used options warns of none" test ! -s log_view.err

# A mistyped option is named at the end, once, on stderr; the run itself is not affected.
run 2 small.yaml -pressure_ksp_rtoll 1e-9 -diffusion_ksp_type cg --set output.overwrite=true \
  > typo.out 2> typo.err
status=$?
check "a mistyped option does not fail the run (status $status)" test "$status" -eq 0
check "the unused options are listed in one warning" \
  test "$(grep -c "warning: 2 PETSc options no solver read" typo.err)" -eq 1
check "the warning names the mistyped option and its value" grep -q -- "-pressure_ksp_rtoll 1e-9" typo.err
check "the warning names the option of a solver this job lacks (no viscosity)" \
  grep -q -- "-diffusion_ksp_type cg" typo.err
check "the warning is not on stdout" bash -c "! grep -q warning typo.out"

# --set overrides job keys, checked like the file.
run 2 small.yaml --set time.end=0.02 --set "output.directory=$work/set" > set.out 2>&1
status=$?
frames=$(find "$work/set" -name 'vortex_2d_*.h5' | wc -l)
check "--set runs (status $status)" test "$status" -eq 0
check "--set time.end=0.02 and the directory: 3 frames there (found $frames)" test "$frames" -eq 3
run 2 small.yaml --set time.end=-1 > set_bad.out 2>&1
status=$?
check "--set with a bad value exits 2 (got $status)" test "$status" -eq 2
check "--set with a bad value is named once" \
  test "$(grep -c "small.yaml: --set time.end=-1: time.end: must be > 0" set_bad.out)" -eq 1
run 2 small.yaml --set > set_missing.out 2>&1
status=$?
check "--set without a value exits 2 (got $status)" test "$status" -eq 2
check "--set without a value says what it needs" grep -q -- "--set needs <key>=<value>" set_missing.out
run 2 -log_view > no_job.out 2>&1
status=$?
check "no job file exits 2 (got $status)" test "$status" -eq 2
check "no job file is said" grep -q "no job file given" no_job.out

# Progress: every output.progress_every steps and the last, with the share of time.end, the
# output and in-situ time, the rate and an ETA.
run 2 small.yaml --set output.progress_every=2 --set "output.directory=$work/progress" \
  > progress.out 2>&1
status=$?
check "progress_every runs (status $status)" test "$status" -eq 0
check "progress_every=2 prints steps 2, 4 and the last, 5" \
  test "$(grep -oE '^step +[0-9]+' progress.out | awk '{printf "%s ", $2}')" = "2 4 5 "
check "the progress line has the share of time.end, output time, rate and ETA" \
  grep -qE '^step +5 +t 0.05 +100.0%.* s \+ out [0-9.]+ \+ insitu [0-9.]+ +[0-9.e+]+ steps/s +ETA 0:00$' \
  progress.out
check "the steps CSV still has every step" \
  test "$(($(wc -l < "$work/progress/vortex_2d_steps.csv") - 1))" -eq 5

# A liquid's progress line and summary show its volume change; a level set carried by linear
# interpolation is warned about, once, and the default interface (vof) is not.
cat > liquid.yaml <<'YAML'
name: liquid
grid: {cells: [16, 16], size: [1.0, 1.0]}
boundary: {x: free-slip, y: free-slip}
forces: {gravity: [0, -9.81]}
liquid: {initial: [{shape: box, lower: [0, 0], upper: [0.4, 0.5]}]}
time: {cfl: 1.0, dt_max: 0.01, end: 0.03}
YAML
run 2 liquid.yaml --set "output.directory=$work/liquid_vof" > liquid_vof.out 2>&1
status=$?
check "a liquid job runs (status $status)" test "$status" -eq 0
check "a liquid's progress line ends with its volume change" \
  grep -qE '^step +[0-9]+ .*ETA [0-9:]+  liquid volume [-+][0-9.e+-]+%$' liquid_vof.out
check "the summary gives the liquid's volume change" \
  grep -qE '^liquid volume: changed by [-+][0-9.e+-]+ % since the start; largest change' \
  liquid_vof.out
check "vof with linear interpolation is not warned about" \
  bash -c "! grep -q 'warning: the liquid' liquid_vof.out"
run 2 liquid.yaml --set liquid.interface=level_set --set "output.directory=$work/liquid_ls" \
  > liquid_ls.out 2>&1
status=$?
check "a level-set liquid job runs (status $status)" test "$status" -eq 0
check "a level set with linear interpolation is warned about, once, naming the fix" \
  test "$(grep -c 'warning: .*linear interpolation.*advection.interpolation: monotone_cubic' \
          liquid_ls.out)" -eq 1

# Timings after a restart count only the steps this process ran, and the earlier segment is kept
# (a restart used to divide by the absolute step number).
run 2 small.yaml --set "checkpoint={every_steps: 5}" --set "output.directory=$work/segments" \
  > first.out 2>&1
run 2 small.yaml --set "checkpoint={every_steps: 5}" --set "output.directory=$work/segments" \
  --set time.end=0.1 --restart latest > second.out 2>&1
status=$?
check "the restarted run continues to t = 0.1 (status $status)" test "$status" -eq 0
check "the restarted run's table counts its own 5 steps" \
  grep -q "share   (5 steps, 5 to 10)" second.out
timings_after_restart() {
  python3 - "$work/segments/vortex_2d_timings.json" "$work/segments/vortex_2d_steps.csv" <<'PY'
import csv, json, math, sys
t = json.load(open(sys.argv[1]))
rows = [int(r["step"]) for r in csv.DictReader(open(sys.argv[2]))]
segments = t["segments"]
ok = (t["first_step"] == 5 and t["last_step"] == 10 and t["steps"] == 5
      and math.isclose(t["seconds_per_step"] * 5, t["total_seconds"], rel_tol=1e-6)
      and [(s["first_step"], s["last_step"], s["steps"]) for s in segments] == [(0, 5, 5), (5, 10, 5)]
      and math.isclose(t["job_total_seconds"], sum(s["total_seconds"] for s in segments), rel_tol=1e-6)
      and t["job_steps_run"] == 10 and rows == list(range(1, 11)))
print(json.dumps({k: t[k] for k in ("first_step", "last_step", "steps", "total_seconds",
                                    "seconds_per_step", "segments")}), "csv steps", rows)
sys.exit(0 if ok else 1)
PY
}
check "the timings JSON after a restart: this segment's steps, both segments, CSV steps once" \
  timings_after_restart

# Provenance: the timings JSON says which program ran, how and with which options, and each
# segment its own command line.
provenance_in_timings() {
  python3 - "$work/segments/vortex_2d_timings.json" "$("$exe" --version | head -1)" <<'PY'
import json, re, sys
t = json.load(open(sys.argv[1]))
p, segments = t["provenance"], t["segments"]
ok = (p["program"] == sys.argv[2] and p["ranks"] == 2
      and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", p["written"]) is not None
      and "--restart latest" in p["command_line"] and "time.end=0.1" in p["command_line"]
      and "PETSc 3." in p["libraries"]
      and "--restart" not in segments[0]["command_line"]
      and "--restart latest" in segments[1]["command_line"]
      and all(s["program"] == sys.argv[2] for s in segments))
print(json.dumps(p), [s["command_line"] for s in segments])
sys.exit(0 if ok else 1)
PY
}
check "the timings JSON carries the provenance, and each segment its command line" \
  provenance_in_timings

# What `h5dump -H` shows a stranger: a comment on the root (what the frame is, who wrote it, axis
# order, units) and on every dataset (centring, axes, units), text as HDF5 strings (never int8).
frame=$work/segments/vortex_2d_000001.h5
header=$(h5dump -H "$frame")
check "h5dump -H: the root says what the frame is and who wrote it" \
  grep -qE '^   COMMENT "frame 1 at t = 0.01, step 1, of job vortex_2d, written by stablefluids .* on 2 ranks at .*x, y, z order.*Units: the job.s own units.*density 1, so the pressure is kinematic' <<< "$header"
check "h5dump -H: every dataset has a comment ($(grep -c 'DATASET "' <<< "$header") datasets)" \
  test "$(grep -A1 'DATASET "' <<< "$header" | grep -c 'COMMENT "')" -eq "$(grep -c 'DATASET "' <<< "$header")"
check "h5dump -H: the velocity says its centring, axes and units" \
  grep -q 'COMMENT "velocity at cell centres.* cell-centred; axes y, x, component (u, v, w .*); units: length / time"' <<< "$header"
solid_is_bytes() { grep -A2 'DATASET "solid"' <<< "$header" | grep -q H5T_STD_U8LE; }
no_int8_text() { ! grep -q H5T_STD_I8 <<< "$header"; }
check "h5dump -H: the solid mask is there, a byte per cell" solid_is_bytes
check "h5dump -H: no text stored as int8 arrays" no_int8_text
check "h5dump: the command line is a string attribute" \
  bash -c "h5dump -a /command_line '$frame' | grep -q 'STRING'"

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
