// Progress lines, the per-step CSV and the timings JSON (see run_log.hpp).
#include "run_log.hpp"

#include <sys/resource.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "hdf5_writer.hpp"

namespace sf {

const char* stage_name(Stage stage) {
  static const char* names[] = {"forces", "advect", "diffuse", "project", "output", "insitu"};
  return names[static_cast<int>(stage)];
}

PetscErrorCode StageTimers::setup() {
  PetscFunctionBeginUser;
  // Stages are registered once per process; a second simulation in the same process (tests,
  // or a driver running several jobs) reuses them.
  for (int s = 0; s < static_cast<int>(Stage::Count); ++s) {
    const char* name = stage_name(static_cast<Stage>(s));
    PetscCall(PetscLogStageGetId(name, &ids_[s]));
    if (ids_[s] < 0) PetscCall(PetscLogStageRegister(name, &ids_[s]));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode StageTimers::begin(Stage stage) {
  PetscFunctionBeginUser;
  PetscCall(PetscLogStagePush(ids_[static_cast<int>(stage)]));
  started_[static_cast<int>(stage)] = MPI_Wtime();
  PetscFunctionReturn(0);
}

PetscErrorCode StageTimers::end(Stage stage) {
  PetscFunctionBeginUser;
  seconds_[static_cast<int>(stage)] += MPI_Wtime() - started_[static_cast<int>(stage)];
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(0);
}

RunLog::~RunLog() {
  if (csv_) std::fclose(csv_);
}

PetscErrorCode RunLog::open(const Grid& grid, const std::string& directory,
                            const std::string& name, PetscInt resume_step) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  directory_ = directory;
  name_ = name;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(grid.comm(), &rank));
  const std::string path = directory + "/" + name + "_steps.csv";
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
    }
    csv_ = std::fopen(path.c_str(), "w");
    if (csv_) {
      std::fprintf(csv_, "step,time,dt,cfl,max_velocity,max_divergence,pressure_iterations,"
                         "diffusion_iterations,remote_points,wall_seconds,insitu_seconds\n");
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
  PetscCall(PetscPrintf(grid_->comm(),
                        "step %6" PetscInt_FMT "  t %-11.5g dt %-10.4g CFL %-6.3g max|u| %-10.4g "
                        "max|div u| %-9.3g it p/d %3" PetscInt_FMT "/%-3" PetscInt_FMT
                        " remote %-8" PetscInt_FMT " %.3f s\n",
                        r.step, r.time, r.dt, r.cfl, r.max_velocity, r.max_divergence,
                        r.pressure_iterations, r.diffusion_iterations, r.remote_points,
                        r.wall_seconds));
  if (csv_) {
    std::fprintf(csv_, "%lld,%.17g,%.17g,%.9g,%.9g,%.9g,%lld,%lld,%lld,%.6f,%.6f\n",
                 static_cast<long long>(r.step), r.time, r.dt, r.cfl, r.max_velocity,
                 r.max_divergence, static_cast<long long>(r.pressure_iterations),
                 static_cast<long long>(r.diffusion_iterations),
                 static_cast<long long>(r.remote_points), r.wall_seconds, r.insitu_seconds);
    std::fflush(csv_);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode RunLog::finish(const StageTimers& timers, PetscInt steps, double total_seconds) {
  PetscFunctionBeginUser;
  const MPI_Comm comm = grid_->comm();
  constexpr int count = static_cast<int>(Stage::Count);
  double local[count + 1], slowest[count + 1];
  for (int s = 0; s < count; ++s) local[s] = timers.seconds(static_cast<Stage>(s));
  local[count] = total_seconds;
  PetscCallMPI(MPI_Allreduce(local, slowest, count + 1, MPI_DOUBLE, MPI_MAX, comm));

  // Peak resident memory: the kernel's high-water mark of each rank (ru_maxrss is in KiB).
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  const double rss = static_cast<double>(usage.ru_maxrss) * 1024.0;
  double rss_max = 0.0, rss_sum = 0.0;
  PetscCallMPI(MPI_Allreduce(&rss, &rss_max, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCallMPI(MPI_Allreduce(&rss, &rss_sum, 1, MPI_DOUBLE, MPI_SUM, comm));
  PetscMPIInt size;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  const double cells = static_cast<double>(grid_->total_cells());
  const double per_step = steps > 0 ? slowest[count] / static_cast<double>(steps) : 0.0;

  PetscCall(PetscPrintf(comm, "\nstage      seconds   per step   share\n"));
  for (int s = 0; s < count; ++s) {
    PetscCall(PetscPrintf(comm, "%-9s %8.3f  %9.5f  %5.1f%%\n", stage_name(static_cast<Stage>(s)),
                          slowest[s], steps > 0 ? slowest[s] / steps : 0.0,
                          slowest[count] > 0 ? 100.0 * slowest[s] / slowest[count] : 0.0));
  }
  PetscCall(PetscPrintf(comm, "%-9s %8.3f  %9.5f\npeak memory %.1f MB per rank (max), %.1f bytes per cell\n",
                        "total", slowest[count], per_step, rss_max / 1e6, rss_sum / cells));

  const auto procs = grid_->process_grid();
  std::ostringstream json;
  json.precision(9);
  json << "{\n  \"name\": \"" << name_ << "\",\n  \"ranks\": " << size
       << ",\n  \"process_grid\": [" << procs[0] << ", " << procs[1] << ", " << procs[2]
       << "],\n  \"cells\": [" << grid_->cells(0) << ", " << grid_->cells(1) << ", "
       << grid_->cells(2) << "],\n  \"total_cells\": " << grid_->total_cells()
       << ",\n  \"halo\": " << grid_->halo()
       << (decomposition_json_.empty() ? "" : ",\n  \"decomposition\": " + decomposition_json_)
       << ",\n  \"steps\": " << steps
       << ",\n  \"total_seconds\": " << slowest[count]
       << ",\n  \"seconds_per_step\": " << per_step << ",\n  \"stages\": {";
  for (int s = 0; s < count; ++s) {
    json << (s ? "," : "") << "\n    \"" << stage_name(static_cast<Stage>(s))
         << "\": {\"seconds\": " << slowest[s]
         << ", \"seconds_per_step\": " << (steps > 0 ? slowest[s] / steps : 0.0) << "}";
  }
  json << "\n  },\n  \"peak_memory_bytes_per_rank\": " << rss_max
       << ",\n  \"peak_memory_bytes_total\": " << rss_sum
       << ",\n  \"bytes_per_cell\": " << rss_sum / cells << "\n}\n";
  PetscCall(write_text_atomically(comm, directory_ + "/" + name_ + "_timings.json", json.str()));
  PetscFunctionReturn(0);
}

}  // namespace sf
