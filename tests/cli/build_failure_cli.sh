#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# A build that fails stops every script that builds (cmake/bootstrap.sh's sf_prepare): tests/run,
# jobs/run and tests/validation/run each exit with a non-zero status, show the compiler's error,
# and run nothing, not even what an earlier build left in the build directory.
#
# The source tree is copied (the files git knows, or every file outside build directories when
# it is not a git checkout) and one source file of the bottom layer, src/mac/cut_faces.cpp, gets
# a line no compiler accepts. That file is the first one the build compiles, and one build job
# makes the build stop at the first error, so the test costs a CMake configuration and one failed
# compilation, not a build. A stand-in for a stale solver sits where the build would link the
# real one: a script that ran it would print STALE.
# usage: build_failure_cli.sh <source dir>
set -uo pipefail
src=$(cd "${1:?usage: build_failure_cli.sh <source dir>}" && pwd)
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=cli_checks.sh
source "$tests/cli_checks.sh"

# The copy: tracked and untracked files that git does not ignore, as they are in the work tree
# (a tracked file deleted there is left out, as a build of the work tree would not see it).
copy="$work/src"
mkdir -p "$copy"
if git -C "$src" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  git -C "$src" ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' file; do
      [ -f "$src/$file" ] && printf '%s\0' "$file"
    done | tar -C "$src" --null -T - -cf - | tar -C "$copy" -xf -
else
  tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$copy" -xf -
fi
broken="$copy/src/mac/cut_faces.cpp"
check "the copy holds the file to break" test -f "$broken"
marker=stablefluids_build_failure_probe
sed -i "1i int broken = $marker;" "$broken"

export STABLEFLUIDS_BUILD_DIR="$work/build" STABLEFLUIDS_NO_INSTALL=1 STABLEFLUIDS_JOBS=1
mkdir -p "$work/build"
printf '#!/bin/sh\necho STALE\n' > "$work/build/stablefluids"
chmod 755 "$work/build/stablefluids"

# expect_build_failure <what> <log> <status>: the script failed, the compiler's error is in its
# output, the bootstrap said the build failed, and nothing ran after the build.
expect_build_failure() {
  local what=$1 log=$2 status=$3
  check "$what: non-zero exit status (got $status)" test "$status" -ne 0
  check "$what: the compiler's error is shown" \
    grep -qE "cut_faces\.cpp:1:[0-9]+: error: .*$marker" "$log"
  check "$what: says the build failed" grep -q "^stablefluids: build failed" "$log"
  check "$what: ran nothing after the failed build" bash -c "! grep -q STALE '$log'"
  if [ "$status" -eq 0 ] || ! grep -q "$marker" "$log"; then
    echo "--- $log:"
    tail -n 30 "$log"
  fi
}

cd "$work" || exit 1
# The time limits guard against a hang, not a slow machine: the three together stay within the
# CTest timeout, and the whole test takes well under a minute on a loaded 2-core machine.
# The first script configures the copy (a few seconds with ParaView found) and fails to build.
timeout 150 "$copy/tests/run" -R no_test_has_this_name > tests_run.log 2>&1
status=$?
expect_build_failure "tests/run" tests_run.log "$status"
check "tests/run: ctest did not start" bash -c "! grep -q '^Test project' tests_run.log"
check "tests/run: configured rather than stopped early" test -f "$work/build/CMakeCache.txt"

timeout 60 "$copy/jobs/run" -n 1 "$copy/jobs/vortex_2d.yaml" \
  --set "output.directory=$work/vortex" > jobs_run.log 2>&1
status=$?
expect_build_failure "jobs/run" jobs_run.log "$status"
check "jobs/run: wrote no output" test ! -e "$work/vortex"

timeout 60 "$copy/tests/validation/run" heated > validation_run.log 2>&1
status=$?
expect_build_failure "tests/validation/run" validation_run.log "$status"
check "tests/validation/run: ran no case" test ! -e "$work/validation_output"

echo "build_failure_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
