# Helpers for the CLI tests that look at every rank by itself (sourced, not run). The caller sets
# tests (this folder), work (a scratch directory), exe (the solver, an absolute path) and mpiexec.
#
# Each rank runs under a small wrapper that records its own exit status and the time it ended,
# and mpiexec keeps every rank's output apart (--output-filename). mpiexec is told not to kill
# the remaining ranks when the first one exits with a non-zero status
# (orte_abort_on_non_zero_status 0), so that what is recorded is what each rank did by itself.

source "$tests/cli_checks.sh"

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
# records go to $work/<case>/. Runs in the background; sets $pid. launch_prefix, if set, is put
# before mpiexec (e.g. to run as another user).
launch_prefix=()
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

# rank_output <case> <rank> <stdout|stderr>: the file holding what that rank printed.
rank_output() { echo "$work/$1/output/1/rank.$2/$3"; }

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
  local lines expected=1
  [ -z "$pattern" ] && expected=0
  lines=$(cat "$(rank_output "$case" 0 stderr)" 2>/dev/null | wc -l)
  check "$what: rank 0 prints $expected error line(s) (got $lines)" test "$lines" -eq "$expected"
  local unsaid=0
  if [ -n "$pattern" ]; then
    grep -qE "$pattern" "$(rank_output "$case" 0 stderr)" 2> /dev/null || unsaid=1
    check "$what: the message says what happened" test "$unsaid" = 0
  fi
  local noisy=""
  for ((r = 1; r < ranks; ++r)); do
    [ -s "$(rank_output "$case" "$r" stderr)" ] && noisy+=" $r(stderr)"
    [ -s "$(rank_output "$case" "$r" stdout)" ] && noisy+=" $r(stdout)"
  done
  check "$what: the other ranks print nothing (printed:${noisy:- none})" test -z "$noisy"
  if [ -n "$noisy$wrong" ] || [ "$lines" -ne "$expected" ] || [ "$unsaid" = 1 ]; then
    echo "--- $case: rank 0 stderr"; head -c 2000 "$(rank_output "$case" 0 stderr)" 2>/dev/null
    for ((r = 1; r < ranks; ++r)); do head -c 500 "$(rank_output "$case" "$r" stderr)" 2>/dev/null; done
  fi
}

# case_ <name> <ranks> <status> <pattern> <args...>: one run to its end, then the checks.
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
