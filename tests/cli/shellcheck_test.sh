#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The shell scripts users run or submit pass shellcheck: every script under jobs/ (found by its
# shebang or shellcheck directive, so a new one cannot be left out), the Slurm template, and the
# set-up scripts cmake/bootstrap.sh and tests/run, tests/validation/run and liquid_volume, the
# benchmarks tests/bench/run and tests/bench/plume_benchmark.sh, and tests/bitwise/record.
# Sourced files are followed (-x).
# tests/run and jobs/run install shellcheck on Debian. Where it is missing the test fails rather
# than pass unseen, unless STABLEFLUIDS_NO_SHELLCHECK=1 says the machine cannot have it; then it
# exits 77, which CTest reports as skipped, with the reason.
# usage: shellcheck_test.sh <source dir>
set -uo pipefail
src=$(cd "${1:?usage: shellcheck_test.sh <source dir>}" && pwd)
if ! command -v shellcheck > /dev/null; then
  if [ "${STABLEFLUIDS_NO_SHELLCHECK:-0}" = 1 ]; then
    echo "SKIPPED: shellcheck is not installed (STABLEFLUIDS_NO_SHELLCHECK=1)"
    exit 77
  fi
  echo "FAILED: shellcheck is not installed (apt-get install shellcheck, or set" \
       "STABLEFLUIDS_NO_SHELLCHECK=1 where it cannot be)"
  exit 1
fi
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=cli_checks.sh
source "$tests/cli_checks.sh"

scripts=()
while IFS= read -r -d '' file; do
  if head -n 2 "$file" | grep -qE '^#!.*\b(ba)?sh\b|^# shellcheck shell='; then
    scripts+=("${file#"$src"/}")
  fi
done < <(find "$src/jobs" -type f ! -name '*.png' -print0 | sort -z)
scripts+=(cmake/bootstrap.sh tests/run tests/validation/run tests/validation/liquid_volume
          tests/bench/run tests/bench/plume_benchmark.sh tests/bitwise/record)

# The list must hold what it is meant to hold, or the test would pass by checking nothing.
for expected in jobs/run jobs/scaling/run jobs/slurm/run.sbatch jobs/slurm/array.sbatch.in \
                jobs/slurm/with_display jobs/catalyst/virtual_display.sh; do
  # shellcheck disable=SC2016  # the loop is bash -c's own script, expanded there
  check "$expected is among the scripts checked" \
    bash -c 'for s in "${@:2}"; do [ "$s" = "$1" ] && exit 0; done; exit 1' _ "$expected" \
    "${scripts[@]}"
done

cd "$src" || exit 1
for script in "${scripts[@]}"; do
  check "$script passes shellcheck" shellcheck -x "$script"
done

echo "shellcheck: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
