// Run diagnostics: one progress line per step on rank 0, the same columns in
// <directory>/<name>_steps.csv, and at the end a per-stage timing table, also written as
// <directory>/<name>_timings.json for scaling studies.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "grid.hpp"

namespace sf {

/// What one step did, for the progress line and the CSV.
struct StepReport {
  PetscInt step = 0;
  double time = 0.0;
  double dt = 0.0;
  double cfl = 0.0;             // max|u| dt / h_min, with u before the step
  double max_velocity = 0.0;    // max |u| over faces, before the step
  double max_divergence = 0.0;  // max |div u| over fluid cells after the projection
  PetscInt pressure_iterations = 0;
  PetscInt diffusion_iterations = 0;
  PetscInt remote_points = 0;   // departure points answered by another rank
  double wall_seconds = 0.0;    // the step itself
  double insitu_seconds = 0.0;  // in-situ analysis (Catalyst) after it, 0 when none was due
  double output_seconds = 0.0;  // the frame and checkpoint written after it, 0 when none was due
  // The flow's measures after the step, one per diagnostics column given to RunLog::open
  // (physics/diagnostics.hpp: energy, enstrophy, dissipation, scalar totals, probes).
  std::vector<double> diagnostics;
};

/// Where this run's part of the job starts and ends, for the progress percentage and ETA.
struct RunSpan {
  PetscInt first_step = 0;  // the checkpoint's step after a restart, else 0
  double first_time = 0.0;
  double end_time = 0.0;
  PetscInt progress_every = 1;  // print the progress line every this many steps
};

/// The seconds one timed stage of the run took on this rank (the app's StageTimers).
struct StageTime {
  const char* name;
  double seconds;
};

/// Resident memory of this process now (VmRSS of /proc/self/status), in bytes; 0 where the
/// kernel does not say.
double resident_bytes();

/// What was resident before the run's own data existed, so that the memory report can tell the
/// libraries from the data (bytes, this rank).
struct MemoryMarks {
  double at_start = 0.0;  // when the set-up began: the program, MPI, PETSc, HDF5 and the job
  double in_situ = 0.0;   // added by starting the in-situ analysis (ParaView Catalyst, Python)
};

class RunLog {
public:
  RunLog() = default;
  ~RunLog();
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;

  /// Rank 0 creates <directory>/<name>_steps.csv (the directory exists already). After a
  /// restart (`restarted`, from span.first_step) it keeps the rows up to that step and appends,
  /// so the file never lists a step twice, and keeps the earlier segments of the timings JSON
  /// that ended by then. Collective.
  PetscErrorCode open(const Grid& grid, const std::string& directory, const std::string& name,
                      const RunSpan& span, bool restarted,
                      const std::vector<std::string>& diagnostics = {});
  /// Prints the decomposition report (rank 0) and keeps it for the timings JSON. The halo
  /// traffic per step counts `face_exchanges` exchanges of the velocity and `cell_exchanges` of
  /// dof-1 cell fields (the Krylov solves' own exchanges are not included).
  PetscErrorCode report_decomposition(const Decomposition& d, int face_exchanges,
                                      int cell_exchanges);

  /// Prints the progress line (every span.progress_every steps and at the end; with a liquid, its
  /// volume change since the start) and appends the CSV row (rank 0). Not collective.
  PetscErrorCode record(const StepReport& report);
  /// Prints the timing table and writes <name>_timings.json: per stage the maximum over ranks of
  /// the seconds spent, the totals, seconds per step, peak memory per rank and bytes per cell,
  /// all for the steps this process ran (first_step to `last_step`), with a liquid's largest
  /// volume change over them; and the list of segments,
  /// one per process that ran part of the job (requeued runs), with the whole job's totals.
  /// `ended` says how this segment ended ("end" or the signal's name). Collective.
  /// Keeps this rank's marks for the memory report of finish().
  void set_memory_marks(const MemoryMarks& marks) { marks_ = marks; }
  PetscErrorCode finish(const std::vector<StageTime>& stages, PetscInt last_step,
                        double total_seconds, const std::string& ended);

  /// <directory>/<name>_steps.csv, which rank 0 keeps open from open() to the end of the run.
  std::string steps_path() const { return directory_ + "/" + name_ + "_steps.csv"; }
  /// The steps CSV's file descriptor on rank 0 (-1 elsewhere), for OutputLock::watch.
  int steps_descriptor() const { return csv_ ? fileno(csv_) : -1; }
  /// <directory>/<name>_timings.json, which finish() writes.
  std::string timings_path() const { return directory_ + "/" + name_ + "_timings.json"; }

private:
  const Grid* grid_ = nullptr;
  std::string directory_, name_;
  RunSpan span_;
  double wall_start_ = 0.0;
  std::FILE* csv_ = nullptr;
  std::string decomposition_json_;
  MemoryMarks marks_;
  std::vector<std::string> earlier_segments_;  // rank 0: lines of the previous timings JSON
  // A liquid's volume change (the diagnostics column liquid_volume_change, in percent), shown
  // on the progress line and, its largest magnitude over this process's steps, in the summary.
  int volume_change_column_ = -1;  // index in StepReport::diagnostics; -1: no liquid
  double volume_change_last_ = 0.0, volume_change_largest_ = 0.0;
};

}  // namespace sf
