#!/usr/bin/env bash
# Damaged checkpoints, end to end through the executable, at 2 and 4 ranks:
#   - the newest checkpoint truncated, emptied, with its header damaged, or overwritten with
#     garbage: --restart latest says it skipped that one, restarts from the one before, completes
#     with exit status 0, and its final frame equals, bit for bit, that of a run never stopped;
#   - every checkpoint damaged: exit status 1 and one clear message, each file named;
#   - bytes changed in the data region of the only checkpoint: exit status 1 naming the dataset,
#     through --restart latest and through --restart <file>;
#   - the job edited (another viscosity) since its checkpoints were written: --restart latest
#     refuses the newest with status 2, naming the difference, and does not fall back.
# Every run is bounded by a timeout, so a hang fails the test instead of stalling it.
# usage: checkpoint_cli.sh <stablefluids executable> <mpiexec>
set -uo pipefail
exe=$1 mpiexec=$2
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

source "$tests/cli_checks.sh"

# A small 3D smoke job with a CFL-adaptive step (so a restart must restore dt's history exactly),
# a checkpoint every second step and all of them kept; the output directory and end time vary.
job() {  # job <file> <output directory> <end>
  cat > "$1" <<YAML
name: cp
grid: {cells: [16, 20, 16], size: [1.0, 1.25, 1.0], halo: 2}
boundary: {x: free-slip, z: free-slip, y: {lower: no-slip, upper: outflow}}
scalars:
  density:
    sources: [{shape: sphere, center: [0.5, 0.25, 0.5], radius: 0.15, value: 1.0, velocity: [0, 0.5, 0]}]
forces: {buoyancy: {alpha: 0.0, beta: 1.0, temperature: density}}
time: {cfl: 2.0, dt_max: 0.02, end: $3}
output: {directory: $2, interval: 0.1}
checkpoint: {every_steps: 2, keep: 20}
YAML
}

run() {  # run <ranks> <log> <args...>: the exit status (124 or 137 if it had to be stopped)
  local ranks=$1 log=$2 status; shift 2
  timeout -k 10 180 "$mpiexec" -n "$ranks" --oversubscribe "$exe" "$@" > "$log" 2>&1
  status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ] || [ "$status" -gt 128 ]; then
    echo "--- $log (status $status):"
    tail -n 20 "$log"
  fi
  return "$status"
}

checkpoints() { ls "$1"/cp_checkpoint_*.h5 2>/dev/null; }

# The ways a newest checkpoint is found after a crash, a full disk or a bad copy.
damage() {  # damage <file> <how>
  local size
  size=$(stat -c %s "$1")
  case $2 in
    truncated) truncate -s $((size / 2)) "$1" ;;
    empty) : > "$1" ;;
    header) head -c 88 /dev/zero | tr '\0' 'Z' | dd of="$1" bs=1 seek=8 conv=notrunc status=none ;;
    garbage) yes garbage | head -c "$size" > "$1" ;;
  esac
}

# Flips the lowest bit of the byte in the middle of a contiguous dataset's data (found with
# h5dump): a change too small to make the run fail by itself, so only a checksum can see it.
flip_data() {  # flip_data <file> <dataset>
  local layout offset size at byte
  layout=$(h5dump -p -H -d "$2" "$1")
  offset=$(awk '$1 == "OFFSET" { print $2; exit }' <<< "$layout")
  size=$(awk '$1 == "SIZE" { print $2; exit }' <<< "$layout")
  [ -n "$offset" ] && [ -n "$size" ] || return 1
  at=$((offset + size / 2))
  byte=$(od -An -tu1 -j "$at" -N 1 "$1" | tr -d ' ')
  printf "\\$(printf '%03o' $((byte ^ 1)))" | dd of="$1" bs=1 seek="$at" conv=notrunc status=none
}

fingerprint() {  # fingerprint <dir>: every file's name and checksum, in order
  (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r md5sum)
}

same_final_frame() {  # same_final_frame <directory> <reference directory>
  local dataset
  [ -f "$1/cp_000004.h5" ] || return 1
  for dataset in /velocity /density /pressure; do
    h5diff -q "$2/cp_000004.h5" "$1/cp_000004.h5" "$dataset" "$dataset" > /dev/null 2>&1 || return 1
  done
}

for ranks in 2 4; do
  # The uninterrupted reference, and a run that stops at t = 0.2 leaving several checkpoints.
  job "ref_$ranks.yaml" "$work/ref_$ranks" 0.4
  run "$ranks" "ref_$ranks.log" "ref_$ranks.yaml"
  check "$ranks ranks: reference run completes" test $? -eq 0
  job "part_$ranks.yaml" "$work/part_$ranks" 0.2
  run "$ranks" "part_$ranks.log" "part_$ranks.yaml"
  check "$ranks ranks: first part completes" test $? -eq 0
  mapfile -t written < <(checkpoints "$work/part_$ranks")
  check "$ranks ranks: several checkpoints written (${#written[@]})" test "${#written[@]}" -ge 3
  [ "${#written[@]}" -ge 3 ] || continue

  # The newest damaged in each way: the one before it is used, and the run ends as if never
  # interrupted. Each case continues in its own copy of the first part's directory.
  for how in truncated empty header garbage; do
    dir="$work/${how}_$ranks"
    cp -a "$work/part_$ranks" "$dir"
    mapfile -t copies < <(checkpoints "$dir")
    newest=${copies[-1]} previous=${copies[-2]}
    damage "$newest" "$how"
    job "$how.yaml" "$dir" 0.4
    run "$ranks" "$how.log" "$how.yaml" --restart latest
    status=$?
    check "$how newest at $ranks ranks: --restart latest completes (status $status)" \
      test "$status" -eq 0
    check "$how newest at $ranks ranks: restarts from the previous checkpoint" \
      grep -q "^stablefluids: restarting from $previous at step" "$how.log"
    check "$how newest at $ranks ranks: says once which it skipped" \
      test "$(grep -c "skipped checkpoint '$newest': " "$how.log")" -eq 1
    check "$how newest at $ranks ranks: final frame equals the uninterrupted run's" \
      same_final_frame "$dir" "$work/ref_$ranks"
  done

  # Every checkpoint damaged: nothing to restart from.
  dir="$work/all_$ranks"
  cp -a "$work/part_$ranks" "$dir"
  mapfile -t copies < <(checkpoints "$dir")
  ways=(truncated empty header garbage)
  for n in "${!copies[@]}"; do damage "${copies[$n]}" "${ways[$((n % 4))]}"; done
  job all.yaml "$dir" 0.4
  run "$ranks" all.log all.yaml --restart latest
  status=$?
  check "all damaged at $ranks ranks: exit status 1 (got $status)" test "$status" -eq 1
  check "all damaged at $ranks ranks: one clear message" \
    test "$(grep -c "no usable checkpoint of job 'cp' in '$dir'" all.log)" -eq 1
  named=0
  for f in "${copies[@]}"; do grep -q "skipped checkpoint '$f': " all.log && named=$((named + 1)); done
  check "all damaged at $ranks ranks: each file named ($named of ${#copies[@]})" \
    test "$named" -eq "${#copies[@]}"

  # Bytes changed in the pressure data of the only checkpoint: refused, naming the dataset, with
  # --restart latest (nothing to fall back to) and with the file named.
  dir="$work/flip_$ranks"
  cp -a "$work/part_$ranks" "$dir"
  mapfile -t copies < <(checkpoints "$dir")
  only=${copies[-1]}
  for f in "${copies[@]}"; do [ "$f" = "$only" ] || rm -f "$f"; done
  check "flip at $ranks ranks: found the pressure data" flip_data "$only" /pressure
  job flip.yaml "$dir" 0.4
  run "$ranks" flip_latest.log flip.yaml --restart latest
  status=$?
  check "flip at $ranks ranks, latest: exit status 1 (got $status)" test "$status" -eq 1
  check "flip at $ranks ranks, latest: names the dataset" \
    grep -q "skipped checkpoint '$only': checksum mismatch in dataset pressure:" flip_latest.log
  run "$ranks" flip_named.log flip.yaml --restart "$only"
  status=$?
  check "flip at $ranks ranks, named: exit status 1 (got $status)" test "$status" -eq 1
  check "flip at $ranks ranks, named: names the file and the dataset" \
    grep -q "cannot restart from checkpoint '$only': checksum mismatch in dataset pressure:" \
    flip_named.log

  # The job edited since its checkpoints were written (docs/running.md "Running on a cluster"): the
  # newest checkpoint, of the same name in the same directory, is refused with status 2 naming the
  # difference, and --restart latest does not fall back to an older one (they are the same job's,
  # and restarting from one would drop the newest work): nothing is skipped, removed or run.
  dir="$work/edited_$ranks"
  cp -a "$work/part_$ranks" "$dir"
  mapfile -t copies < <(checkpoints "$dir")
  newest=${copies[-1]}
  before=$(fingerprint "$dir")
  job edited.yaml "$dir" 0.4
  run "$ranks" edited.log edited.yaml --restart latest --set fluid.viscosity=0.01
  status=$?
  check "edited job at $ranks ranks: exit status 2 (got $status)" test "$status" -eq 2
  check "edited job at $ranks ranks: the newest checkpoint is refused" \
    grep -q "checkpoint '$newest' does not match the job" edited.log
  check "edited job at $ranks ranks: the difference is named" \
    grep -qE "^ +fluid\.viscosity: checkpoint has .*, job has 0\.01" edited.log
  check "edited job at $ranks ranks: no older checkpoint is tried" \
    bash -c "! grep -qE 'skipped checkpoint|restarting from' edited.log"
  check "edited job at $ranks ranks: the directory is as it was" \
    test "$(fingerprint "$dir")" = "$before"
done

echo "checkpoint_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
