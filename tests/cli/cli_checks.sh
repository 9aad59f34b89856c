# The bookkeeping every CLI test script shares (sourced, not run): `check` runs one assertion,
# counts it, and names it when it fails; the script ends with
#   echo "<name>: $passed passed, $failed failed"; [ "$failed" -eq 0 ]
passed=0 failed=0
check() {  # check <description> <command...>
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $what"; fi
}
