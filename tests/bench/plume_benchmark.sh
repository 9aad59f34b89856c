#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Times the smoke plume (buoyancy, vorticity confinement, a sphere obstacle) on N^3 cells of the
# unit cube, at 1 and 2 ranks, and prints seconds per step, seconds per stage and bytes per cell
# from each run's timings JSON. Timings are numbers to read, not assertions: CTest runs it under
# the "bench" label, which tests/run leaves out. Usage:
#   tests/bench/plume_benchmark.sh [N ...]          (default: 64 128)
# Environment: RANKS (default "1 2"), STEPS (default 20), STABLEFLUIDS_BUILD_DIR;
# STABLEFLUIDS_EXECUTABLE=<path> times that executable as it is, without installing or building
# (CTest's "bench" label runs it so).
set -euo pipefail
# shellcheck source=../../cmake/bootstrap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../cmake/bootstrap.sh"
if [ -n "${STABLEFLUIDS_EXECUTABLE:-}" ]; then
  exe=$STABLEFLUIDS_EXECUTABLE
else
  sf_prepare
  exe=$sf_build_dir/stablefluids
fi
sizes=${*:-64 128}
ranks_list=${RANKS:-1 2}
steps=${STEPS:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%5s %5s %10s %8s %8s %8s %8s %8s %9s %6s\n' N ranks s/step forces advect diffuse \
  project output bytes/cell p-its
for n in $sizes; do
  # CFL ~ 2 once the plume moves at ~1: dt = 2 h.
  dt=$(python3 -c "print(2.0 / $n)")
  end=$(python3 -c "print($steps * 2.0 / $n)")
  cat > "$work/plume_$n.yaml" <<YAML
name: plume_bench_$n
grid: {cells: [$n, $n, $n], size: [1.0, 1.0, 1.0], halo: 3}
boundary:
  x: free-slip
  z: free-slip
  y: {lower: no-slip, upper: outflow}
scalars:
  density:
    dissipation: 0.05
    sources: [{shape: sphere, center: [0.5, 0.12, 0.5], radius: 0.08, value: 1.0, velocity: [0.0, 0.5, 0.0]}]
  temperature:
    dissipation: 0.1
    sources: [{shape: sphere, center: [0.5, 0.12, 0.5], radius: 0.08, value: 1.0}]
forces:
  buoyancy: {alpha: 0.05, beta: 1.0}
  vorticity_confinement: 0.2
obstacles: [{shape: sphere, center: [0.5, 0.5, 0.5], radius: 0.12}]
time: {dt: $dt, end: $end}
output: {directory: $work/out_$n, interval: 0, initial_frame: false, overwrite: true}  # reused by every rank count
YAML
  for ranks in $ranks_list; do
    (cd "$work" && mpiexec -n "$ranks" --oversubscribe "$exe" \
      "plume_$n.yaml" > "run_${n}_$ranks.log" 2>&1) ||
      { echo "run N=$n ranks=$ranks failed:"; tail -20 "$work/run_${n}_$ranks.log"; exit 1; }
    python3 - "$work/out_$n/plume_bench_${n}_timings.json" "$work/out_$n/plume_bench_${n}_steps.csv" "$n" "$ranks" <<'PY'
import csv, json, sys
t = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
its = sum(int(r["pressure_iterations"]) for r in rows) / max(len(rows), 1)
s = t["stages"]
print(f'{sys.argv[3]:>5} {sys.argv[4]:>5} {t["seconds_per_step"]:10.4f} ' +
      " ".join(f'{s[k]["seconds_per_step"]:8.4f}' for k in ("forces", "advect", "diffuse", "project", "output")) +
      f' {t["bytes_per_cell"]:9.1f} {its:6.1f}')
PY
  done
done
