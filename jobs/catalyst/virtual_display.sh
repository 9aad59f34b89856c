# shellcheck shell=bash
# Sourced by jobs/run and by jobs/slurm/with_display (which the Slurm scripts put in front of the
# solver): one definition of when a job needs a display and of how a virtual one is started.
#
#   sf_display_needed JOB   status 0 when DISPLAY is unset and a Catalyst script of JOB renders
#                           (needs_display.py); a job that cannot be read needs none (the solver
#                           then says what is wrong with it)
#   sf_display_start        starts Xvfb and exports DISPLAY; status 1, with a message, when the
#                           server does not come up
#   sf_display_stop         stops that server (harmless when none was started); for an EXIT trap

sf_display_helpers=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sf_display_pid=""

sf_display_needed() {
  [ -z "${DISPLAY:-}" ] && /usr/bin/python3 "$sf_display_helpers/needs_display.py" "$1"
}

sf_display_start() {
  local file number
  file=$(mktemp) || return 1
  # Display numbers from 100 up: MPI processes look at :0 to :9 while they start (hwloc's GL
  # component connects to them), and one that finds a server there that then stops dies with
  # "XIO: fatal IO error"; a server up here is seen by no one else.
  for number in $(seq 100 199); do
    [ -e "/tmp/.X$number-lock" ] && continue
    # The server has to outlive every way a run is asked to stop, because the ranks finish the
    # step they are in, which may render, before they write their checkpoint:
    # - it runs in a session of its own (setsid), so a Ctrl-C, which the terminal sends to the
    #   whole foreground process group, does not end it;
    # - it starts with SIGUSR1 ignored, and keeps it so, because Slurm sends --signal=USR1 to
    #   every process of a job step. An X server that finds SIGUSR1 ignored sends it to its
    #   parent when it is ready: the parent is this subshell, which ignores it too, instead of
    #   the caller.
    # The subshell waits for the server; sent SIGTERM, it stops the server and waits until it has
    # gone (and removed its socket).
    (
      trap '' USR1
      trap 'kill "$server" 2> /dev/null; wait "$server"' TERM
      # A 24-bit screen is what ParaView's rendering needs; -displayfd makes the server write its
      # display number to file descriptor 3 once it accepts connections.
      setsid Xvfb ":$number" -displayfd 3 -screen 0 1920x1080x24 -noreset -nolisten tcp \
        3> "$file" > /dev/null 2>&1 &
      server=$!
      wait "$server"
    ) &
    sf_display_pid=$!
    local _
    for _ in $(seq 200); do
      [ -s "$file" ] && break
      kill -0 "$sf_display_pid" 2> /dev/null || break
      sleep 0.05
    done
    if [ -s "$file" ]; then
      DISPLAY=":$(head -n 1 "$file")"
      export DISPLAY
      rm -f "$file"
      return 0
    fi
    # Another server took this number first (or this one did not start): the next number.
    sf_display_stop
  done
  rm -f "$file"
  echo "stablefluids: the virtual X server (Xvfb) did not start on any display from :100 to :199" >&2
  return 1
}

sf_display_stop() {
  if [ -n "$sf_display_pid" ]; then
    kill "$sf_display_pid" 2> /dev/null || true
    wait "$sf_display_pid" 2> /dev/null || true
    sf_display_pid=""
  fi
}
