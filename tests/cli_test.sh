#!/usr/bin/env bash
# End-to-end checks of the executable, as a user runs it:
#   - each example job runs on 2 ranks and leaves frames and an .xmf that h5ls/h5dump read, and
#     its last line gives the end time as a plain number ("t = 1", not PETSc's "t = 1.");
#   - a malformed job, and a missing one, stop every rank with exit status 2 and one message
#     naming the file, the line and the key, well before the timeout (no rank hangs).
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

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
