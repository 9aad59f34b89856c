// Scheduler signals. Slurm and other batch systems announce the end of a job's time with
// SIGTERM (or, with --signal=USR1@120, SIGUSR1 some minutes before); a user's Ctrl-C is SIGINT.
// The handler only records the signal; the time loop asks at every step boundary, all ranks
// agree in one reduction, and the run writes a checkpoint and stops cleanly (exit status 3),
// so no rank is ever left inside a collective.
#pragma once

namespace sf {

/// Installs the handler for SIGTERM, SIGINT and SIGUSR1.
void install_signal_handlers();

/// The signal received so far on this rank, or 0.
int pending_signal();

/// "SIGTERM", "SIGINT", "SIGUSR1" or "signal N".
const char* signal_name(int signal);

}  // namespace sf
