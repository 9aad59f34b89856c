// Progress lines, the per-step CSV and the timings JSON (see run_log.hpp).
#include "run_log.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "build_info.hpp"
#include "collective_file.hpp"

namespace sf {

namespace {

/// `text` as a JSON string literal, quotes included.
std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace

RunLog::~RunLog() {
  if (csv_) std::fclose(csv_);
}

namespace {

/// The marker that starts a segment's line in the timings JSON; each segment is one line, so that
/// a restarted run can keep the earlier ones without a JSON parser.
constexpr const char* kSegmentStart = "{\"first_step\": ";

/// The segments of an earlier timings JSON that began before `resume_step`: they computed the
/// state the restart continues from. Later ones (a run restarted from an older checkpoint) were
/// superseded.
std::vector<std::string> segments_before(const std::string& path, PetscInt resume_step) {
  std::vector<std::string> kept;
  std::ifstream previous(path);
  for (std::string line; std::getline(previous, line);) {
    const std::size_t at = line.find(kSegmentStart);
    if (at == std::string::npos) continue;
    std::string segment = line.substr(at);
    while (!segment.empty() && (segment.back() == ',' || std::isspace(
                                    static_cast<unsigned char>(segment.back()))))
      segment.pop_back();
    const long long first = std::atoll(segment.c_str() + std::strlen(kSegmentStart));
    if (first < resume_step) kept.push_back(segment);
  }
  return kept;
}

/// The number after "<key>": in one segment line, 0 when absent.
double number_in(const std::string& segment, const std::string& key) {
  const std::size_t at = segment.find("\"" + key + "\": ");
  return at == std::string::npos ? 0.0 : std::atof(segment.c_str() + at + key.size() + 4);
}

/// "1:02:03" or "2:03".
std::string clock(double seconds) {
  if (!(seconds >= 0.0) || seconds > 1e9) return "?";
  const long long total = static_cast<long long>(seconds + 0.5);
  char text[48];
  if (total >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60,
                  total % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", total / 60, total % 60);
  }
  return text;
}

}  // namespace

PetscErrorCode RunLog::open(const Grid& grid, const std::string& directory,
                            const std::string& name, const RunSpan& span, bool restarted,
                            const std::vector<std::string>& diagnostics) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  directory_ = directory;
  name_ = name;
  span_ = span;
  wall_start_ = MPI_Wtime();
  earlier_segments_.clear();
  const auto volume = std::find(diagnostics.begin(), diagnostics.end(), "liquid_volume_change");
  volume_change_column_ =
      volume == diagnostics.end() ? -1 : static_cast<int>(volume - diagnostics.begin());
  volume_change_last_ = volume_change_largest_ = 0.0;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(grid.comm(), &rank));
  const std::string path = steps_path();
  const PetscInt resume_step = restarted ? span.first_step : -1;
  int ok = 1;
  std::string reason;
  if (rank == 0) {
    std::vector<std::string> kept;
    if (resume_step >= 0) {
      std::ifstream previous(path);
      for (std::string line; std::getline(previous, line);)
        if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0])) &&
            std::stoll(line) <= resume_step)
          kept.push_back(line);
      earlier_segments_ = segments_before(timings_path(), resume_step);
    }
    csv_ = std::fopen(path.c_str(), "w");
    if (csv_) {
      std::fprintf(csv_, "step,time,dt,cfl,max_velocity,max_divergence,pressure_iterations,"
                         "diffusion_iterations,remote_points,wall_seconds,insitu_seconds,"
                         "output_seconds");
      for (const std::string& column : diagnostics) std::fprintf(csv_, ",%s", column.c_str());
      std::fprintf(csv_, "\n");
      for (const std::string& line : kept) std::fprintf(csv_, "%s\n", line.c_str());
    } else {
      ok = 0;
      reason = std::strerror(errno);
    }
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, grid.comm()));
  PetscCheck(ok, grid.comm(), PETSC_ERR_FILE_OPEN, "cannot create '%s': %s", path.c_str(),
             reason.c_str());
  PetscFunctionReturn(0);
}

PetscErrorCode RunLog::report_decomposition(const Decomposition& d, int face_exchanges,
                                            int cell_exchanges) {
  PetscFunctionBeginUser;
  const double bytes_total = 8.0 * (face_exchanges * d.face_values_total +
                                    cell_exchanges * d.cell_values_total);
  const double bytes_max = 8.0 * (face_exchanges * d.face_values_max +
                                  cell_exchanges * d.cell_values_max);
  const double imbalance = d.min_cells > 0 ? static_cast<double>(d.max_cells) / d.min_cells : 1.0;
  PetscCall(PetscPrintf(grid_->comm(),
                        "decomposition: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT
                        " ranks, cells per rank %" PetscInt_FMT " to %" PetscInt_FMT
                        " (imbalance %.3f), halo %d; one velocity exchange moves up to %.0f "
                        "values per rank from up to %" PetscInt_FMT " neighbours; halo traffic "
                        "about %.3g MB per step in all, %.3g MB on the busiest rank (%d velocity "
                        "and %d cell-field exchanges; Krylov exchanges not included)\n",
                        d.processes[0], d.processes[1], d.processes[2], d.min_cells, d.max_cells,
                        imbalance, d.halo, d.face_values_max, d.max_neighbours, bytes_total / 1e6,
                        bytes_max / 1e6, face_exchanges, cell_exchanges));
  std::ostringstream json;
  json.precision(9);
  json << "{\"process_grid\": [" << d.processes[0] << ", " << d.processes[1] << ", "
       << d.processes[2] << "], \"cells_per_rank_min\": " << d.min_cells
       << ", \"cells_per_rank_max\": " << d.max_cells << ", \"imbalance\": " << imbalance
       << ", \"halo\": " << d.halo << ", \"neighbours_max\": " << d.max_neighbours
       << ", \"velocity_exchanges_per_step\": " << face_exchanges
       << ", \"cell_field_exchanges_per_step\": " << cell_exchanges
       << ", \"halo_bytes_per_step\": " << bytes_total
       << ", \"halo_bytes_per_step_busiest_rank\": " << bytes_max << "}";
  decomposition_json_ = json.str();
  PetscFunctionReturn(0);
}

PetscErrorCode RunLog::record(const StepReport& r) {
  PetscFunctionBeginUser;
  const bool last = r.time >= span_.end_time;
  const bool has_volume = volume_change_column_ >= 0 &&
                          volume_change_column_ < static_cast<int>(r.diagnostics.size());
  if (has_volume) {
    volume_change_last_ = r.diagnostics[volume_change_column_];
    volume_change_largest_ = std::max(volume_change_largest_, std::fabs(volume_change_last_));
  }
  if (last || r.step % span_.progress_every == 0) {
    // Rates over everything this process has run so far, output and in-situ included: what the
    // user waits for. The ETA assumes the remaining simulated time goes at the same pace.
    const double elapsed = MPI_Wtime() - wall_start_;
    const double steps = static_cast<double>(r.step - span_.first_step);
    const double advanced = r.time - span_.first_time;
    const double span = span_.end_time - span_.first_time;
    const double percent = span > 0.0 ? 100.0 * advanced / span : 100.0;
    const double eta = advanced > 0.0 ? (span_.end_time - r.time) * elapsed / advanced : -1.0;
    // Formatted by snprintf: PetscPrintf appends a '.' to a %g that prints as an integer.
    char line[512];
    std::snprintf(line, sizeof line,
                  "step %6lld  t %-10.5g %5.1f%%  dt %-9.3g CFL %-6.3g max|u| %-9.3g "
                  "max|div u| %-8.3g it p/d %3lld/%-3lld remote %-7lld %.3f s + out %.3f + "
                  "insitu %.3f  %.3g steps/s  ETA %s",
                  static_cast<long long>(r.step), r.time, percent, r.dt, r.cfl, r.max_velocity,
                  r.max_divergence, static_cast<long long>(r.pressure_iterations),
                  static_cast<long long>(r.diffusion_iterations),
                  static_cast<long long>(r.remote_points), r.wall_seconds, r.output_seconds,
                  r.insitu_seconds, elapsed > 0.0 ? steps / elapsed : 0.0, clock(eta).c_str());
    char volume[64] = "";
    if (has_volume)
      std::snprintf(volume, sizeof volume, "  liquid volume %+.2g%%", volume_change_last_);
    PetscCall(PetscPrintf(grid_->comm(), "%s%s\n", line, volume));
  }
  if (csv_) {
    std::fprintf(csv_, "%lld,%.17g,%.17g,%.9g,%.9g,%.9g,%lld,%lld,%lld,%.6f,%.6f,%.6f",
                 static_cast<long long>(r.step), r.time, r.dt, r.cfl, r.max_velocity,
                 r.max_divergence, static_cast<long long>(r.pressure_iterations),
                 static_cast<long long>(r.diffusion_iterations),
                 static_cast<long long>(r.remote_points), r.wall_seconds, r.insitu_seconds,
                 r.output_seconds);
    for (double value : r.diagnostics) std::fprintf(csv_, ",%.12g", value);
    std::fprintf(csv_, "\n");
    std::fflush(csv_);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode RunLog::finish(const std::vector<StageTime>& stages, PetscInt last_step,
                              double total_seconds, const std::string& ended) {
  PetscFunctionBeginUser;
  // Only the steps this process ran: after a restart, dividing by the absolute step number
  // understated the time per step (a restarted run reported 0.025 s for a true 0.133 s).
  const PetscInt steps = last_step - span_.first_step;
  const MPI_Comm comm = grid_->comm();
  const int count = static_cast<int>(stages.size());
  std::vector<double> local(stages.size() + 1), slowest(stages.size() + 1);
  for (int s = 0; s < count; ++s) local[s] = stages[s].seconds;
  local[count] = total_seconds;
  PetscCallMPI(MPI_Allreduce(local.data(), slowest.data(), count + 1, MPI_DOUBLE, MPI_MAX, comm));

  // Peak resident memory: the kernel's high-water mark of each rank (ru_maxrss is in KiB).
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  const double rss = static_cast<double>(usage.ru_maxrss) * 1024.0;
  double rss_max = 0.0, rss_sum = 0.0;
  PetscCallMPI(MPI_Allreduce(&rss, &rss_max, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCallMPI(MPI_Allreduce(&rss, &rss_sum, 1, MPI_DOUBLE, MPI_SUM, comm));
  // The peak less what was resident before the data: the run's fields, solvers and buffers.
  const double marks[2] = {marks_.at_start, marks_.in_situ};
  double marks_max[2] = {0.0, 0.0}, data_sum = 0.0;
  const double data = std::max(0.0, rss - marks_.at_start - marks_.in_situ);
  PetscCallMPI(MPI_Allreduce(marks, marks_max, 2, MPI_DOUBLE, MPI_MAX, comm));
  PetscCallMPI(MPI_Allreduce(&data, &data_sum, 1, MPI_DOUBLE, MPI_SUM, comm));
  PetscMPIInt size;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  const double cells = static_cast<double>(grid_->total_cells());
  const double per_step = steps > 0 ? slowest[count] / static_cast<double>(steps) : 0.0;

  PetscCall(PetscPrintf(comm, "\nstage      seconds   per step   share   (%" PetscInt_FMT
                              " steps, %" PetscInt_FMT " to %" PetscInt_FMT ")\n",
                        steps, span_.first_step, last_step));
  for (int s = 0; s < count; ++s) {
    PetscCall(PetscPrintf(comm, "%-9s %8.3f  %9.5f  %5.1f%%\n", stages[s].name,
                          slowest[s], steps > 0 ? slowest[s] / steps : 0.0,
                          slowest[count] > 0 ? 100.0 * slowest[s] / slowest[count] : 0.0));
  }
  PetscCall(PetscPrintf(comm, "%-9s %8.3f  %9.5f\npeak memory %.1f MB per rank (max), %.1f bytes per cell\n",
                        "total", slowest[count], per_step, rss_max / 1e6, rss_sum / cells));
  char in_situ[64] = "";
  if (marks_max[1] > 0.0)
    std::snprintf(in_situ, sizeof in_situ, ", ParaView Catalyst %.1f MB", marks_max[1] / 1e6);
  PetscCall(PetscPrintf(comm,
                        "  of it: at start %.1f MB per rank (program and libraries)%s; the run's "
                        "data and solvers %.1f bytes per cell\n",
                        marks_max[0] / 1e6, in_situ, data_sum / cells));
  if (volume_change_column_ >= 0)
    PetscCall(PetscPrintf(comm,
                          "liquid volume: changed by %+.3g %% since the start; largest change "
                          "%.3g %% over these steps\n",
                          volume_change_last_, volume_change_largest_));

  Provenance provenance;
  PetscCall(current_provenance(comm, &provenance));
  const auto procs = grid_->process_grid();
  std::ostringstream json;
  json.precision(9);
  json << "{\n  \"name\": \"" << name_ << "\",\n  \"provenance\": {\"program\": "
       << json_string(provenance.program) << ", \"commit\": " << json_string(provenance.commit)
       << ", \"written\": " << json_string(provenance.written)
       << ", \"ranks\": " << provenance.ranks
       << ",\n    \"command_line\": " << json_string(provenance.command_line)
       << ",\n    \"petsc_options\": " << json_string(provenance.petsc_options)
       << ",\n    \"libraries\": " << json_string(provenance.libraries) << "},\n  \"ranks\": " << size
       << ",\n  \"process_grid\": [" << procs[0] << ", " << procs[1] << ", " << procs[2]
       << "],\n  \"cells\": [" << grid_->cells(0) << ", " << grid_->cells(1) << ", "
       << grid_->cells(2) << "],\n  \"total_cells\": " << grid_->total_cells()
       << ",\n  \"halo\": " << grid_->halo()
       << (decomposition_json_.empty() ? "" : ",\n  \"decomposition\": " + decomposition_json_)
       << ",\n  \"first_step\": " << span_.first_step << ",\n  \"last_step\": " << last_step
       << ",\n  \"steps\": " << steps
       << ",\n  \"total_seconds\": " << slowest[count]
       << ",\n  \"seconds_per_step\": " << per_step << ",\n  \"stages\": {";
  for (int s = 0; s < count; ++s) {
    json << (s ? "," : "") << "\n    \"" << stages[s].name
         << "\": {\"seconds\": " << slowest[s]
         << ", \"seconds_per_step\": " << (steps > 0 ? slowest[s] / steps : 0.0) << "}";
  }
  json << "\n  },\n  \"peak_memory_bytes_per_rank\": " << rss_max
       << ",\n  \"peak_memory_bytes_total\": " << rss_sum
       << ",\n  \"bytes_per_cell\": " << rss_sum / cells
       << ",\n  \"memory_at_start_bytes_per_rank\": " << marks_max[0]
       << ",\n  \"memory_in_situ_bytes_per_rank\": " << marks_max[1]
       << ",\n  \"data_bytes_per_cell\": " << data_sum / cells;
  // Every process that ran part of the job, one line each (see kSegmentStart), and the totals.
  std::ostringstream segment;
  segment.precision(9);
  segment << kSegmentStart << span_.first_step << ", \"last_step\": " << last_step
          << ", \"steps\": " << steps << ", \"ranks\": " << size
          << ", \"total_seconds\": " << slowest[count] << ", \"seconds_per_step\": " << per_step
          << ", \"ended\": \"" << ended << "\", \"program\": " << json_string(provenance.program)
          << ", \"command_line\": " << json_string(provenance.command_line) << "}";
  std::vector<std::string> segments = earlier_segments_;
  segments.push_back(segment.str());
  double job_seconds = 0.0, job_steps = 0.0;
  json << ",\n  \"segments\": [";
  for (std::size_t i = 0; i < segments.size(); ++i) {
    json << (i ? "," : "") << "\n    " << segments[i];
    job_seconds += number_in(segments[i], "total_seconds");
    job_steps += number_in(segments[i], "steps");
  }
  json << "\n  ],\n  \"job_total_seconds\": " << job_seconds
       << ",\n  \"job_steps_run\": " << job_steps << "\n}\n";
  PetscCall(write_text_atomically(comm, timings_path(), json.str()));
  PetscFunctionReturn(0);
}

double resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      double kib = 0.0;
      if (fields >> kib) return kib * 1024.0;  // the kernel writes "kB": KiB
    }
  }
  return 0.0;
}

}  // namespace sf
