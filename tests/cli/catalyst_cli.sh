#!/usr/bin/env bash
# catalyst_cli.sh <stablefluids> <source dir> <mpiexec>
#
# ParaView Catalyst through the executable:
#   1. a .pvti data extract (no X) at 1, 2 and 4 ranks equals the solver's own frame of the
#      same step, with the grid's whole extent and pieces that tile it (tests/cli/compare_pvti.py);
#   2. under Xvfb, the slice, contour and volume scripts write PNGs that are not all background;
#   3. a script that raises (at import, in catalyst_initialize, in catalyst_execute) stops the
#      run with a message naming it and a non-zero exit status on every rank; a job naming a
#      script that does not exist is refused with exit status 2;
#   4. with a Catalyst Live script and no GUI listening, the run does not wait for one: it
#      finishes every step with status 0. Its median time per step (step + in-situ) beside the
#      same run without Catalyst is printed, as a measurement: a bound on it failed under load
#      (9.0 ms against 1.8 ms while other tests ran beside it), and timings are no test;
#      With a real Live client (tests/cli/live_client.py) listening, every update brings it the
#      whole grid with every field; every_wall_seconds thins the updates out by rank 0's clock;
#   5. a job whose script renders (a file, or a package of files) is refused before the first
#      step, with exit status 2 on every rank and one line saying how to run it, when there is no
#      display or only an 8-bit one
#      (VTK aborted with status 134 and a 50-line trace); under an X server that resets when
#      its last client leaves (xvfb-run), it renders every time (3 of 4 runs aborted before);
#   6. jobs/catalyst/render_frames.py renders the saved frames as the run rendered them in situ,
#      obstacle included, for a 3D and a 2D job whose output directory was set with --set (given
#      to render_frames.py as --set or --output): the replayed image of each frame matches the
#      in-situ image of its step (grey obstacle pixels in both), and has its name; its mistakes
#      (frames not found, a missing script, no job) end with a message, not a traceback.
#   7. Catalyst is a module loaded only for jobs that name scripts: the executable links no
#      ParaView library, a run without scripts loads none (the dynamic loader's own list, LD_DEBUG)
#      and a run with one loads the module and ParaView; the memory report names Catalyst's
#      share; a module that cannot be loaded, or a library that is no Catalyst module, stops
#      every rank with status 1 and the reason.
set -uo pipefail
exe=$1 source_dir=$2 mpiexec=$3
scripts=$source_dir/jobs/catalyst
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
unset PYTHONHOME PYTHONPATH
# Data extracts and Live need no display: every run here has none unless it starts its own.
unset DISPLAY
export LP_NUM_THREADS=1

# make_job <name> <end time> [lines of the catalyst.scripts list...]
make_job() {
  local name=$1 end=$2
  shift 2
  cat > "$work/$name.yaml" <<JOB
name: $name
grid: {cells: [12, 10, 8], size: [1.2, 1.0, 0.8]}
boundary: {x: no-slip, y: free-slip, z: periodic}
scalars:
  density: {initial: [{shape: sphere, center: [0.5, 0.5, 0.4], radius: 0.3, value: 1.0}]}
  temperature: {initial: [{shape: box, lower: [0.2, 0.1, 0.0], upper: [0.7, 0.4, 0.8], value: 1.0}]}
velocity: {initial: {type: vortex, center: [0.6, 0.5, 0.4], radius: 0.25, strength: 1.0}}
obstacles: [{shape: sphere, center: [0.9, 0.7, 0.4], radius: 0.15}]
time: {dt: 0.02, end: $end}
output: {directory: $work/out_$name, interval: $end, initial_frame: false}
JOB
  if [ $# -gt 0 ]; then printf '%s\n' "catalyst:" "  scripts:" "$@" >> "$work/$name.yaml"; fi
}

# run_ranks <ranks> <job>: runs the job, each rank reporting its own exit status as a line
# "rank-exit N"; output in $work/<job>.log. Returns mpiexec's status.
run_ranks() {
  # shellcheck disable=SC2016 # $0 and $1 are the inner shell's
  timeout 300 "$mpiexec" -n "$1" sh -c '"$0" "$1"; echo "rank-exit $?"' "$exe" "$work/$2.yaml" \
    > "$work/$2.log" 2>&1 && ! grep -q '^rank-exit [1-9]' "$work/$2.log"
}

# 1. Data extract equals the solver's fields, at several rank counts.
for ranks in 1 2 4; do
  name=pvti_np$ranks
  make_job "$name" 0.06 "    - {script: $scripts/extract_pvti.py, every_steps: 3}"
  if ! run_ranks "$ranks" "$name"; then
    fail "extract at $ranks ranks: the run failed"; tail -20 "$work/$name.log"; continue
  fi
  solid=$(sed -n 's/.*, \([0-9]*\) solid cells$/\1/p' "$work/$name.log")
  if "$python" "$source_dir/tests/cli/compare_pvti.py" \
       "$work/out_$name/catalyst/fields_000003.pvti" "$work/out_$name/${name}_000000.h5" \
       "$ranks" "$solid"; then
    pass "extract at $ranks ranks equals the frame"
  else
    fail "extract at $ranks ranks"
  fi
done

# 2. Rendering under Xvfb: pixels other than the background, and colour from the colour map.
make_job render 0.04 \
  "    - {script: $scripts/slice_png.py, every_steps: 2, args: [--field, temperature]}" \
  "    - {script: $scripts/contour_png.py, every_steps: 2, args: [--value, '0.5']}" \
  "    - {script: $scripts/volume_png.py, every_steps: 2, args: [--size, '300', '300']}"
if timeout 300 xvfb-run -a -s "-screen 0 1280x1024x24" "$mpiexec" -n 2 "$exe" "$work/render.yaml" \
     > "$work/render.log" 2>&1; then
  for image in slice_temperature_000002.png contour_density_000002.png \
               volume_density_000002.png; do
    if "$python" - "$work/out_render/catalyst/$image" <<'PY'
import sys
import matplotlib.image
import numpy
pixels = matplotlib.image.imread(sys.argv[1])[:, :, :3]
background = pixels[0, 0]
differ = numpy.any(numpy.abs(pixels - background) > 0.02, axis=2).mean()
coloured = (numpy.ptp(pixels, axis=2) > 0.1).mean()  # not grey: the colour map at work
print(f"{sys.argv[1]}: {100 * differ:.1f}% not background, {100 * coloured:.1f}% coloured")
sys.exit(0 if differ > 0.05 and coloured > 0.01 else 1)
PY
    then pass "$image is rendered"; else fail "$image is blank or missing"; fi
  done
else
  fail "rendering run failed"; tail -20 "$work/render.log"
fi

# 3. Broken scripts stop every rank with a message naming the script.
broken() {  # broken <name> <python body>
  printf '%s\n' "from paraview.simple import *" "from paraview import catalyst" \
    "input = PVTrivialProducer(registrationName='input')" "$2" > "$work/$1.py"
}
broken at_import "raise RuntimeError('deliberately broken at import')"
broken in_initialize "def catalyst_initialize():
    raise RuntimeError('deliberately broken in catalyst_initialize')"
broken in_execute "def catalyst_execute(info):
    if info.timestep >= 2:
        raise RuntimeError('deliberately broken in catalyst_execute')"
for case in at_import:imported in_initialize:catalyst_initialize in_execute:catalyst_execute; do
  script=${case%%:*} stage=${case#*:}
  make_job "broken_$script" 0.06 "    - {script: $work/$script.py}"
  run_ranks 2 "broken_$script"
  log=$work/broken_$script.log
  statuses=$(sed -n 's/^rank-exit //p' "$log" | sort | tr '\n' ' ')
  if [ "$statuses" = "1 1 " ] && grep -q "Catalyst script $work/$script.py .*$stage" "$log" &&
     grep -q "deliberately broken" "$log"; then
    pass "a script broken in $stage stops both ranks with status 1 and names the script"
  else
    fail "script broken in $stage: rank statuses '$statuses'"; tail -15 "$log"
  fi
done
make_job missing 0.06 "    - {script: $work/no_such_script.py}"
run_ranks 2 missing
statuses=$(sed -n 's/^rank-exit //p' "$work/missing.log" | sort | tr '\n' ' ')
if [ "$statuses" = "2 2 " ] && grep -q "missing.yaml:.*cannot read Catalyst script" "$work/missing.log"
then pass "a missing script is a job error on every rank"
else fail "missing script: statuses '$statuses'"; cat "$work/missing.log"; fi

# 4. Live with no GUI: finishes. Nothing listens on port 1 of localhost, so each connection
# attempt is refused at once.
make_job base 0.8
make_job live 0.8 "    - {script: $scripts/live.py, args: [--url, 'localhost:1']}"
if run_ranks 2 base && run_ranks 2 live; then
  if "$python" - "$work/out_base/base_steps.csv" "$work/out_live/live_steps.csv" <<'PY'
import csv, statistics, sys
def rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))
base, live = rows(sys.argv[1]), rows(sys.argv[2])
def per_step(rows):
    return statistics.median(float(r["wall_seconds"]) + float(r["insitu_seconds"]) for r in rows)
print(f"median seconds per step: {per_step(base):.4f} without Catalyst, "
      f"{per_step(live):.4f} with Live and no GUI (a measurement, not a check)")
sys.exit(0 if len(live) == len(base) and float(live[-1]["time"]) == float(base[-1]["time"]) else 1)
PY
  then pass "Live without a GUI runs every step to the end"
  else fail "Live without a GUI stopped early"; fi
else
  fail "Live run failed"; tail -20 "$work/live.log"
fi

# 4b. Live with a real client (tests/cli/live_client.py, a pvpython client written as ParaView's
# own Live tests write one): every update delivers the whole grid (12 x 10 x 8 = 960 cells) with
# every field, from the initial state on; with every_wall_seconds longer than the run, the client
# gets the initial state only and the job still runs every step.
free_port() {
  "$python" -c 'import socket; s = socket.socket(); s.bind(("localhost", 0)); print(s.getsockname()[1])'
}
# live_with_client <job>: runs the job at 2 ranks with a client listening on a free port; the
# client's record is $work/<job>_client.json.
live_with_client() {
  local port record=$work/$1_client.json client status
  port=$(free_port)
  sed -i "s|localhost:PORT|localhost:$port|" "$work/$1.yaml"
  timeout 280 "$python" "$source_dir/tests/cli/live_client.py" --port "$port" --channel owned \
    --out "$record" > "$work/$1_client.log" 2>&1 &
  client=$!
  for _ in $(seq 300); do [ -e "$record.listening" ] && break; sleep 0.1; done
  run_ranks 2 "$1"
  status=$?
  if [ "$status" -ne 0 ]; then kill "$client" 2> /dev/null; fi
  wait "$client"
  return "$status"
}
# check_client <job> <expected steps, Python list>: what the client received.
check_client() {
  "$python" - "$work/$1_client.json" "$2" "$work/out_$1/$1_steps.csv" <<'PY'
import ast, csv, json, statistics, sys
record = json.load(open(sys.argv[1]))
steps = [u["step"] for u in record["updates"]]
rows = list(csv.DictReader(open(sys.argv[3], newline="")))
wanted = ["density", "pressure", "solid", "temperature", "velocity"]
bad = [u for u in record["updates"] if u.get("cells") != 960 or u.get("arrays") != wanted]
print(f"client: connected {record['connected']}, steps {steps}, updates without the whole grid "
      f"{bad}; the job ran {len(rows)} steps, median in-situ time "
      f"{statistics.median(float(r['insitu_seconds']) for r in rows):.4f} s (a measurement)")
ok = (record["connected"] and record["closed"] and steps == ast.literal_eval(sys.argv[2])
      and not bad and len(rows) == 5)
sys.exit(0 if ok else 1)
PY
}
make_job live_client 0.1 "    - {script: $scripts/live.py, args: [--url, 'localhost:PORT']}"
if live_with_client live_client && check_client live_client "[0, 1, 2, 3, 4, 5]"; then
  pass "a Live client receives the whole grid and every field at every step"
else
  fail "Live client"; tail -n 20 "$work/live_client.log" "$work/live_client_client.log"
fi
make_job live_throttled 0.1 \
  "    - {script: $scripts/live.py, every_wall_seconds: 1000, args: [--url, 'localhost:PORT']}"
if live_with_client live_throttled && check_client live_throttled "[0]"; then
  pass "every_wall_seconds thins Live out by the wall clock, and the run goes on"
else
  fail "Live with every_wall_seconds"; tail -n 20 "$work/live_throttled.log" "$work/live_throttled_client.log"
fi

# 5. A rendering job without a usable display is a job error before the first step.
make_job headless 0.06 "    - {script: $scripts/slice_png.py, every_steps: 1}"
# headless_case <what> <reason> [launcher...]: the job at 2 ranks, started through launcher
headless_case() {
  local what=$1 reason=$2 log=$work/headless.log
  shift 2
  rm -rf "$work/out_headless"
  # shellcheck disable=SC2016 # $0 and $1 are the inner shell's
  timeout 300 "$@" "$mpiexec" -n 2 sh -c '"$0" "$1"; echo "rank-exit $?"' "$exe" \
    "$work/headless.yaml" > "$log" 2>&1
  local statuses
  statuses=$(sed -n 's/^rank-exit //p' "$log" | sort | tr '\n' ' ')
  if [ "$statuses" = "2 2 " ] && [ "$(grep -c 'stablefluids: error:' "$log")" -eq 1 ] &&
     grep -q "slice_png.py) renders images, but on rank 0 $reason.*jobs/run" "$log" &&
     ! grep -q "Loguru\|Assertion\|^step " "$log" &&
     [ -z "$(find "$work/out_headless" -type f 2> /dev/null)" ]; then
    # No file left (a steps CSV would keep the next run, jobs/run say, out of the directory).
    pass "with $what a rendering job stops before its first step, status 2 on every rank, no file"
  else
    fail "rendering job with $what: rank statuses '$statuses'"; head -20 "$log"
  fi
}
headless_case "no display" "there is no X display"
headless_case "an 8-bit display" "the X display has no 24-bit colour visual" \
  xvfb-run -a -s "-screen 0 1280x1024x8"
# A script given as a package, a directory or a .zip of Python files as ParaView allows, renders
# if one of its files does: the solver refuses the directory without a display, and
# needs_display.py (which jobs/run and the Slurm scripts ask) sees both kinds.
mkdir -p "$work/render_package" "$work/extract_package"
cp "$scripts/slice_png.py" "$work/render_package/__init__.py"
cp "$scripts/extract_pvti.py" "$work/extract_package/__init__.py"
(cd "$work" && "$python" -c 'import shutil, sys
for name in sys.argv[1:]: shutil.make_archive(name, "zip", name)' render_package extract_package)
sed "s|{script: $scripts/slice_png.py,|{script: $work/render_package,|" "$work/headless.yaml" \
  > "$work/package.yaml"
rm -rf "$work/out_headless"
# shellcheck disable=SC2016 # $0 and $1 are the inner shell's
timeout 300 "$mpiexec" -n 2 sh -c '"$0" "$1"; echo "rank-exit $?"' "$exe" "$work/package.yaml" \
  > "$work/package.log" 2>&1
statuses=$(sed -n 's/^rank-exit //p' "$work/package.log" | sort | tr '\n' ' ')
if [ "$statuses" = "2 2 " ] && grep -q "render_package) renders images, but on rank 0" "$work/package.log"; then
  pass "a rendering script package (a directory) without a display stops before its first step"
else
  fail "rendering package without a display: rank statuses '$statuses'"; head -20 "$work/package.log"
fi
package_verdicts=""
for package in render_package render_package.zip extract_package extract_package.zip; do
  sed "s|{script: $scripts/slice_png.py,|{script: $work/$package,|" "$work/headless.yaml" \
    > "$work/verdict.yaml"
  "$python" "$scripts/needs_display.py" "$work/verdict.yaml"
  package_verdicts+="$? "
done
if [ "$package_verdicts" = "0 0 1 1 " ]; then
  pass "needs_display.py looks into script packages, directories and .zip files"
else
  fail "needs_display.py on packages: exit statuses '$package_verdicts', expected '0 0 1 1 '"
fi
for attempt in 1 2 3; do
  rm -rf "$work/out_headless"
  if timeout 300 xvfb-run -a "$mpiexec" -n 2 "$exe" "$work/headless.yaml" > "$work/reset.log" 2>&1 &&
     [ -s "$work/out_headless/catalyst/slice_density_000003.png" ]; then
    pass "rendering under a resetting X server (xvfb-run), run $attempt"
  else
    fail "rendering under xvfb-run, run $attempt"; grep -v '^ *[0-9]* *0x' "$work/reset.log" | head -20
  fi
done

# 6. Frames rendered after the run, as in situ, obstacle included (frames carry the solid mask),
# for a 3D job and a 2D one. Each run is given its output directory with --set, as a user
# moving a run to scratch does; render_frames.py is given the same flag (3D) or --output (2D).
# Frames at steps 0, 2 and 4 (dt 0.02, a frame every 0.04); in situ the script ran at the same
# steps, and the replayed images carry the same names. (Two different steps differ in about 10%
# of their pixels.)
same_images() {  # same_images <in-situ dir> <replayed dir>
  "$python" - "$1" "$2" <<'PY'
import os
import sys
import matplotlib.image
import numpy
def obstacle_share(image):
    """Share of pixels in the obstacle's grey (about 0.47; the colour map has no grey there)."""
    return ((numpy.ptp(image, axis=2) < 0.05) & (image[:, :, 0] > 0.35) & (image[:, :, 0] < 0.6)).mean()
worst, grey = 0.0, 1.0
for step in (0, 2, 4):
    name = f"slice_temperature_{step:06d}.png"
    live, replayed = (matplotlib.image.imread(os.path.join(d, name))[:, :, :3] for d in sys.argv[1:3])
    if live.shape != replayed.shape:
        sys.exit(f"{name}: {live.shape} in situ, {replayed.shape} replayed")
    worst = max(worst, numpy.any(numpy.abs(live - replayed) > 0.05, axis=2).mean())
    grey = min(grey, obstacle_share(live), obstacle_share(replayed))
print(f"replayed frames: at most {100 * worst:.2f}% of pixels differ from the in-situ images; "
      f"the obstacle covers at least {100 * grey:.2f}% of each (about 2% expected)")
sys.exit(0 if worst < 0.01 and grey > 0.01 else 1)
PY
}
make_job replay 0.08 "    - {script: $scripts/slice_png.py, every_steps: 2, args: [--field, temperature]}"
sed -i -e "s|^output: .*|output: {directory: $work/not_here, interval: 0.04}|" "$work/replay.yaml"
# The 2D job: the same fields and obstacle in the plane z = 0.4 of the 3D one.
cat > "$work/replay_2d.yaml" <<JOB
name: replay_2d
grid: {cells: [12, 10], size: [1.2, 1.0]}
boundary: {x: no-slip, y: free-slip}
scalars:
  density: {initial: [{shape: sphere, center: [0.5, 0.5], radius: 0.3, value: 1.0}]}
  temperature: {initial: [{shape: box, lower: [0.2, 0.1], upper: [0.7, 0.4], value: 1.0}]}
velocity: {initial: {type: vortex, center: [0.6, 0.5], radius: 0.25, strength: 1.0}}
obstacles: [{shape: sphere, center: [0.9, 0.7], radius: 0.15}]
time: {dt: 0.02, end: 0.08}
output: {directory: $work/not_here, interval: 0.04}
catalyst:
  scripts:
    - {script: $scripts/slice_png.py, every_steps: 2, args: [--field, temperature]}
JOB
for dims in 3d 2d; do
  job=replay; [ "$dims" = 2d ] && job=replay_2d
  where=(--set "output.directory=$work/out_$job")
  [ "$dims" = 2d ] && where=(--output "$work/out_$job")
  if timeout 300 xvfb-run -a "$mpiexec" -n 2 "$exe" "$work/$job.yaml" \
       --set "output.directory=$work/out_$job" > "$work/$job.log" 2>&1 &&
     timeout 300 xvfb-run -a "$source_dir/jobs/catalyst/render_frames.py" "$work/$job.yaml" \
       "${where[@]}" --directory "$work/replayed_$dims" >> "$work/$job.log" 2>&1; then
    if same_images "$work/out_$job/catalyst" "$work/replayed_$dims"
    then pass "render_frames.py ($dims, ${where[0]}) renders the frames as the run did in situ"
    else fail "render_frames.py ($dims): the replayed images differ from the in-situ ones"; fi
  else
    fail "render_frames.py run failed ($dims)"; grep -v '^ *[0-9]* *0x' "$work/$job.log" | tail -20
  fi
done

# render_frames.py's mistakes end with a message, not a Python traceback: frames that are not
# where the job says (the run's --set not given), a script that is not there, no job file.
sed -e "s|$scripts/slice_png.py|$work/no_such_script.py|" "$work/replay_2d.yaml" \
  > "$work/no_script.yaml"
for mistake in "replay_2d.yaml|does not exist (give the run's --set flags" \
               "no_script.yaml|no script '$work/no_such_script.py'" \
               "no_such_job.yaml|no job file"; do
  file=${mistake%%|*} says=${mistake#*|}
  extra=(); [ "$file" = no_script.yaml ] && extra=(--output "$work/out_replay_2d")
  timeout 120 "$source_dir/jobs/catalyst/render_frames.py" "$work/$file" "${extra[@]}" \
    --directory "$work/mistake" > "$work/mistake.log" 2>&1
  status=$?
  if [ "$status" -ne 0 ] && grep -qF "$says" "$work/mistake.log" &&
     ! grep -q Traceback "$work/mistake.log"; then
    pass "render_frames.py, $file: status $status and a message ($says ...)"
  else
    fail "render_frames.py, $file: status $status, no message '$says', or a traceback"
    head -20 "$work/mistake.log"
  fi
done

# 7. The Catalyst module is loaded when a job names scripts, and only then.
if ldd "$exe" | grep -qi 'paraview\|libvtk'; then
  fail "the executable links ParaView: $(ldd "$exe" | grep -ci 'paraview\|libvtk') libraries"
else
  pass "the executable links no ParaView or VTK library"
fi
make_job plain 0.04
make_job with_module 0.04 "    - {script: $scripts/extract_pvti.py, every_steps: 2}"
LD_DEBUG=files "$exe" "$work/plain.yaml" > "$work/plain.log" 2>&1
LD_DEBUG=files "$exe" "$work/with_module.yaml" > "$work/with_module.log" 2>&1
# ParaView's libraries (libvtk*-pv5.11.so, libparaview*) the loader mapped, by its own list.
paraview_loaded() { grep -Ec 'file=[^ ]*(-pv[0-9]+\.|paraview)[^ ]* \[0\]; +(needed by|dynamically loaded)' "$1"; }
plain_paraview=$(paraview_loaded "$work/plain.log")
module_paraview=$(paraview_loaded "$work/with_module.log")
if grep -q '^stablefluids: reached' "$work/plain.log" && [ "$plain_paraview" -eq 0 ] &&
   ! grep -q 'stablefluids_catalyst' "$work/plain.log"; then
  pass "a run without Catalyst scripts loads no ParaView library"
else
  fail "a run without Catalyst scripts loaded $plain_paraview ParaView libraries"
fi
if grep -q '^stablefluids: reached' "$work/with_module.log" && [ "$module_paraview" -gt 10 ] &&
   grep -q 'file=[^ ]*libstablefluids_catalyst.so .*dynamically loaded' "$work/with_module.log" &&
   grep -q 'of it: .*ParaView Catalyst [0-9.]* MB' "$work/with_module.log"; then
  pass "a run with a script loads the module and $module_paraview ParaView libraries, and reports their memory"
else
  fail "a run with a script: $module_paraview ParaView libraries, module or memory line missing"
  grep -v 'LD_DEBUG\|^ *[0-9]*:' "$work/with_module.log" | tail -5
fi
unusable=0
for module in "$work/no_such_module.so" /usr/lib/x86_64-linux-gnu/libz.so.1; do
  unusable=$((unusable + 1))
  make_job "unusable_$unusable" 0.04 "    - {script: $scripts/extract_pvti.py, every_steps: 2}"
  STABLEFLUIDS_CATALYST_MODULE=$module run_ranks 2 "unusable_$unusable"
  log=$work/unusable_$unusable.log
  statuses=$(sed -n 's/^rank-exit //p' "$log" | sort | tr '\n' ' ')
  if [ "$statuses" = "1 1 " ] &&
     [ "$(grep -c 'error: .*the Catalyst adaptor cannot be used: .*'"$module" "$log")" -eq 1 ]
  then pass "an unusable Catalyst module ($(basename "$module")) stops both ranks with status 1, named once"
  else fail "unusable module $module: statuses '$statuses'"; tail -5 "$log"; fi
done

if [ "$failures" -eq 0 ]; then echo "catalyst_cli: all passed"; else echo "catalyst_cli: $failures failed"; fi
[ "$failures" -eq 0 ]
