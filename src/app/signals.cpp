#include "signals.hpp"

#include <csignal>
#include <cstdio>
#include <initializer_list>

namespace sf {

namespace {

volatile std::sig_atomic_t received = 0;

extern "C" void record_signal(int signal) { received = signal; }

}  // namespace

void install_signal_handlers() {
  struct sigaction action = {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: an interrupted system call (a write, an MPI poll) resumes instead of failing.
  action.sa_flags = SA_RESTART;
  for (int signal : {SIGTERM, SIGINT, SIGUSR1}) sigaction(signal, &action, nullptr);
}

int pending_signal() { return received; }

const char* signal_name(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      break;
  }
  static char buffer[32];
  std::snprintf(buffer, sizeof buffer, "signal %d", signal);
  return buffer;
}

}  // namespace sf
