#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# tests/bench/run, the command behind docs/performance.md's speed and memory figures, cannot rot:
# its quick mode (every subset on tiny grids, a few steps) runs end to end and exits 0, and its
# table has a row for every figure docs/performance.md quotes from it, the machine it ran on, and
# the memory check of the jobs it runs (each estimate within 25 % of the measured peak, or the
# command exits 1). The rows are listed here, not taken from the command, so that a subset that
# silently stops measuring something fails.
# usage: bench_cli.sh <stablefluids executable> <source dir> <mpiexec>
set -uo pipefail
usage="usage: bench_cli.sh <stablefluids executable> <source dir> <mpiexec>"
exe=$(cd "$(dirname "${1:?$usage}")" && pwd)/$(basename "$1")
src=$(cd "${2:?$usage}" && pwd)
mpiexec=${3:-mpiexec}
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=cli_checks.sh
source "$tests/cli_checks.sh"
# tests/bench/run and jobs/run run `mpiexec` from PATH; the one the suite was configured with
# comes first.
mkdir -p "$work/bin"
ln -s "$(command -v "$mpiexec")" "$work/bin/mpiexec"
export PATH=$work/bin:$PATH

# docs/performance.md's table is written into a copy: --update-readme rewrites what lies between
# the markers from the run's rows, and nothing else.
cp "$src/docs/performance.md" "$work/performance.md"
STABLEFLUIDS_EXECUTABLE=$exe "$src/tests/bench/run" --quick --output "$work/out" \
  --update-readme --readme "$work/performance.md" > "$work/bench.log" 2>&1
status=$?
check "tests/bench/run --quick exits 0 (status $status)" [ "$status" -eq 0 ]
[ "$status" -eq 0 ] || tail -40 "$work/bench.log"

csv=$work/out/bench.csv
md=$work/out/bench.md
check "the table is written as markdown, CSV and JSON" \
  test -s "$md" -a -s "$csv" -a -s "$work/out/bench.json"

# Every figure docs/performance.md quotes, by its row id (the grid in the id is the quick mode's).
rows=(
  demo.wall demo.steps demo.solver demo.s_per_step demo.stage.forces demo.stage.advect
  demo.stage.project demo.images demo.frames demo.data_bytes_per_cell demo.peak_bytes_per_cell
  demo.peak_mb_per_rank demo.catalyst_mb_per_rank
)
for grid in 16x32x16 24x48x24; do
  rows+=("plume.$grid.s_per_step" "plume.$grid.stage.advect" "plume.$grid.stage.project"
         "plume.$grid.pressure_iterations" "plume.$grid.data_bytes_per_cell"
         "plume.$grid.peak_bytes_per_cell" "plume.$grid.peak_mb_per_rank")
done
for job in dam_break_3d smoke_tank_3d; do
  rows+=("liquid.$job.s_per_step" "liquid.$job.data_bytes_per_cell")
done
rows+=(liquid.dam_break_3d.stage.surface liquid.ratio)
for boundary in walls periodic; do
  for cfl in 1 6; do
    rows+=("advection.16.$boundary.cfl$cfl.advect" "advection.16.$boundary.cfl$cfl.ns_per_sample")
  done
done
for boundary in outflow obstacle; do
  for pc in mg pfmg; do
    rows+=("projection.3d16.$boundary.$pc.warm" "projection.3d16.$boundary.$pc.setup")
  done
done
for ranks in 1 2; do
  rows+=("fft.3d16.np$ranks.fft.project" "fft.3d16.np$ranks.krylov-mg.project"
         "fft.3d16.np$ranks.fft.setup" "fft.3d16.np$ranks.ratio")
done
for solver in fft krylov; do
  rows+=("fft.turbulence.$solver.s_per_step" "fft.turbulence.$solver.data_bytes_per_cell")
done
rows+=(fft.turbulence.ratio fft.turbulence.memory_ratio)
for dim in 3d 2d; do
  rows+=("features.$dim.base.per_cell" "features.$dim.base.per_rank" "features.$dim.base.at_start"
         "features.$dim.scalars.per_cell" "features.$dim.liquid.per_cell"
         "features.$dim.particles.per_column")
done
for job in vortex_2d dam_break_2d plume_3d; do rows+=("memory.$job.ratio"); done

for row in "${rows[@]}"; do
  check "the table has the row $row" grep -q "^$row," "$csv"
done
# A figure is a number (a median of measurements), not a placeholder.
check "every figure is a number" \
  python3 -c 'import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = [r["id"] for r in rows if not math.isfinite(float(r["median"]))]
print("not numbers:", bad) if bad else None
sys.exit(1 if bad or not rows else 0)' "$csv"
check "the table names the machine, the date, the commit and the load average" \
  grep -qE "UTC, commit [0-9a-f]+.*cores, [0-9.]+ GB; load average [0-9.]+ .* at the start" "$md"
check "each subset's table says which command made it" \
  grep -q "build/tests/bench_fft_projection" "$md"

# The page's block: the command as the user typed it, the machine, a row of every subset the
# page quotes, and the rest of the page as it was.
block() { sed -n '/^<!-- bench:begin -->$/,/^<!-- bench:end -->$/p' "$1"; }
block "$work/performance.md" > "$work/block.md"
check "--update-readme writes the table between the markers" \
  grep -q "^| demo: whole run, jobs/run to its exit | " "$work/block.md"
check "docs/performance.md's table is the run's readme.md" \
  diff <(sed '1d;$d' "$work/block.md") "$work/out/readme.md"
check "docs/performance.md's table names the command as typed, without the build's paths" \
  grep -q "Measured by \`tests/bench/run --quick --output $work/out --update-readme" \
  "$work/block.md"
for group in demo plume tank advection projection "periodic box" "memory check"; do
  check "docs/performance.md's table has the rows of $group" grep -q "^| $group: " "$work/block.md"
done
outside() { sed '/^<!-- bench:begin -->$/,/^<!-- bench:end -->$/d' "$1"; }
check "--update-readme leaves the page outside the markers as it was" \
  diff <(outside "$src/docs/performance.md") <(outside "$work/performance.md")
check "the source's docs/performance.md has exactly one pair of markers" \
  test "$(grep -c '^<!-- bench:begin -->$' "$src/docs/performance.md")" = 1 -a \
  "$(grep -c '^<!-- bench:end -->$' "$src/docs/performance.md")" = 1

# A subset runs alone, and an unknown one is refused before anything runs.
# A run that leaves out figures docs/performance.md quotes does not write its table.
cp "$work/performance.md" "$work/performance.before"
STABLEFLUIDS_EXECUTABLE=$exe "$src/tests/bench/run" --quick --output "$work/one" projection \
  --update-readme --readme "$work/performance.md" > "$work/one.log" 2>&1
status=$?
check "a subset runs alone" grep -q "^projection\." "$work/one/bench.csv"
check "--update-readme after a subset is refused with status 1 (got $status)" [ "$status" -eq 1 ]
check "the refusal names a row it lacks" grep -q "not updated: .*demo" "$work/one.log"
check "a refused --update-readme leaves the file as it was" \
  cmp -s "$work/performance.before" "$work/performance.md"
# shellcheck disable=SC2016  # the script is bash -c's own, expanded there
check "a subset runs alone and only it" bash -c '! grep -q "^demo\." "$1"' _ "$work/one/bench.csv"
STABLEFLUIDS_EXECUTABLE=$exe "$src/tests/bench/run" --quick nonsense > "$work/bad.log" 2>&1
status=$?
check "an unknown subset is refused with status 2 (got $status)" [ "$status" -eq 2 ]
check "the refusal names the subsets" grep -q "choose from demo plume" "$work/bad.log"
# Quick figures are not measurements: they never reach the source's docs/performance.md.
STABLEFLUIDS_EXECUTABLE=$exe "$src/tests/bench/run" --quick --update-readme > "$work/q.log" 2>&1
status=$?
check "--quick --update-readme of docs/performance.md is refused with status 2 (got $status)" \
  [ "$status" -eq 2 ]

echo "bench_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
