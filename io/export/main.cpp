// stablefluids_export <run>.xmf --output <dir> [--fields a,b,...] [--surface ply|obj|none]
//                     [--frames A:B] [--threshold T]           (stablefluids_export --help)
//
// A run's frames for graphics tools: per frame, the chosen fields as sparse OpenVDB grids in
// <dir>/<name>_NNNNNN.vdb and the liquid's surface as a triangle mesh in <name>_NNNNNN.ply (or
// .obj), for Blender, Houdini and the like, which read neither HDF5 nor XDMF.
//
// Frame-parallel: rank r exports frames r, r + ranks, ... of the selection, each read and
// written by that rank alone (no collective HDF5 or MPI-IO, so a failure on one rank cannot
// leave another waiting inside a collective). The ranks meet only where every rank certainly
// arrives: the index and the output directory (rank 0 reads and makes them, one broadcast each,
// before any frame), and one MPI_Allreduce of the failures at the end. Progress reaches rank 0
// as one small message per frame, failed or not, so rank 0 knows exactly how many to wait for.
//
// Exit status, the same on every rank: 0 every frame written; 1 a frame or the output directory
// failed (each failing rank prints its message, naming the file); 2 the command line, the index
// or a field it names cannot be used (rank 0 says why).
#include <hdf5.h>
#include <mpi.h>

#include <openvdb/openvdb.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "export_frame.hpp"
#include "frame_index.hpp"
#include "frame_reader.hpp"
#include "job.hpp"

namespace {

using sf::exporter::ExportField;
using sf::exporter::ExportPlan;
using sf::exporter::FrameIndex;
using sf::exporter::IndexedDataset;

constexpr int kExitDone = 0, kExitFailed = 1, kExitUsage = 2;
constexpr const char* kProgram = "stablefluids_export";

constexpr const char* kUsage =
    R"usage(stablefluids_export: a run's frames as OpenVDB volumes and surface meshes.

usage: mpiexec -n <ranks> stablefluids_export <run>.xmf --output <dir> [options]
       stablefluids_export --help

<run>.xmf is the index a run writes beside its frames (output.directory/<name>.xmf). Per frame
<name>_NNNNNN.h5 it writes, into <dir>:
  <name>_NNNNNN.vdb   the chosen fields as sparse OpenVDB grids named like the datasets: a
                      scalar as a float grid of its non-zero cells; a liquid's level set phi
                      as a narrow-band level set (|phi| < 3 cells, negative in the liquid);
                      the velocity, when asked for, as a vector grid `velocity`
  <name>_NNNNNN.ply   the liquid's surface (phi = 0) as triangles (binary PLY, or .obj)
Each rank takes whole frames in turn (rank r: r, r + ranks, ...); one rank is enough.

options:
  --output <dir>            where the files go; made if missing                  [required]
  --fields <a,b,...>        the datasets to write as grids, by their names in the index;
                            'velocity' adds the velocity; 'none' writes no .vdb. Default:
                            every scalar but pressure, solid and liquid_fraction (phi as a
                            level set)
  --surface ply|obj|none    the liquid's surface per frame (default: ply when the frames hold
                            a level set and are 3-D, else none; a 2-D run has no surface mesh)
  --frames <A:B>            frames A to B, both included, numbered as in the file names (A:
                            from A on, :B up to B, A alone: one frame); default: all
  --threshold <t>           keep a volume's cells where |value| > t, the velocity's where
                            |u| > t (default 0: every non-zero cell)
  --help, -h                this text

exit status: 0 done; 1 a frame failed (its rank names the file); 2 bad command line, index or
field. Details: docs/output.md, "OpenVDB volumes and surface meshes (Blender, Houdini)".
)usage";

struct Options {
  std::string index;
  std::string output;
  std::vector<std::string> fields;  // empty: the default
  bool fields_given = false;
  std::string surface = "auto";
  long long first = 0, last = -1;  // -1: to the last frame
  double threshold = 0.0;
  bool help = false;
  std::string error;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, separator))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

bool parse_count(const std::string& text, long long* value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  *value = std::strtoll(text.c_str(), nullptr, 10);
  return true;
}

/// The command line, the same on every rank (so every rank reaches the same verdict).
Options parse_options(int argc, char** argv) {
  Options options;
  for (int n = 1; n < argc; ++n) {
    std::string word = argv[n], value;
    const bool takes_value = word == "--output" || word == "--fields" || word == "--surface" ||
                             word == "--frames" || word == "--threshold";
    const size_t equals = word.find('=');
    const bool inline_value = word.rfind("--", 0) == 0 && equals != std::string::npos;
    if (inline_value) {
      value = word.substr(equals + 1);
      word = word.substr(0, equals);
    } else if (takes_value) {
      if (n + 1 >= argc) {
        options.error = word + " needs a value";
        return options;
      }
      value = argv[++n];
    }
    if (word == "--help" || word == "-h") {
      options.help = true;
    } else if (word == "--output") {
      options.output = value;
    } else if (word == "--fields") {
      options.fields_given = true;
      options.fields = value == "none" ? std::vector<std::string>() : split(value, ',');
    } else if (word == "--surface") {
      if (value != "ply" && value != "obj" && value != "none") {
        options.error = "--surface takes ply, obj or none, not '" + value + "'";
        return options;
      }
      options.surface = value;
    } else if (word == "--frames") {
      const size_t colon = value.find(':');
      const std::string a = value.substr(0, colon);
      const std::string b = colon == std::string::npos ? a : value.substr(colon + 1);
      if ((!a.empty() && !parse_count(a, &options.first)) ||
          (!b.empty() && !parse_count(b, &options.last)) || (a.empty() && b.empty()) ||
          (!b.empty() && options.last < options.first)) {
        options.error = "--frames takes A:B, A:, :B or A (frame numbers, A <= B), not '" +
                        value + "'";
        return options;
      }
    } else if (word == "--threshold") {
      char* end = nullptr;
      options.threshold = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(options.threshold >= 0.0)) {
        options.error = "--threshold takes a number >= 0, not '" + value + "'";
        return options;
      }
    } else if (word.rfind("-", 0) == 0) {
      options.error = "unknown option " + word;
      return options;
    } else if (options.index.empty()) {
      options.index = word;
    } else {
      options.error = "one index at a time (got " + options.index + " and " + word + ")";
      return options;
    }
  }
  if (options.help) return options;
  if (options.index.empty())
    options.error = "no index given (the <name>.xmf in a run's output directory)";
  else if (options.output.empty())
    options.error = "no --output directory given";
  return options;
}

/// What to write, from the options and the index; false, with the reason, if a field does not
/// exist or the surface cannot be made.
bool make_plan(const Options& options, const FrameIndex& index, ExportPlan* plan,
               std::string* error) {
  const std::string level_set_name = sf::LiquidConfig::kLevelSetName;
  const bool three_d = index.grid.dim == 3;
  const IndexedDataset* level_set = index.find(level_set_name);
  plan->directory = options.output;
  plan->threshold = options.threshold;
  std::vector<std::string> names = options.fields;
  if (!options.fields_given)
    for (const IndexedDataset& dataset : index.datasets)
      if (dataset.components == 1 && dataset.name != "pressure" && dataset.name != "solid" &&
          dataset.name != sf::LiquidConfig::kFractionName)
        names.push_back(dataset.name);
  for (const std::string& name : names) {
    const IndexedDataset* dataset = index.find(name);
    if (!dataset) {
      *error = "no field '" + name + "' in " + index.path + "; its frames hold " +
               index.dataset_names();
      return false;
    }
    ExportField field;
    field.dataset = *dataset;
    if (dataset->components == 3) field.kind = ExportField::Kind::Velocity;
    // A 2-D run's phi is one cell thick: no narrow band to enclose anything, so it is written
    // as a plain volume.
    else if (name == level_set_name && three_d) field.kind = ExportField::Kind::LevelSet;
    plan->fields.push_back(field);
  }
  if (options.surface == "auto") {
    plan->surface = level_set && three_d ? "ply" : "";
  } else if (options.surface != "none") {
    if (!three_d) {
      *error = index.path + " is a 2-D run: a surface mesh needs a 3-D one (--surface none)";
      return false;
    }
    if (!level_set) {
      *error = "the frames of " + index.path + " hold no level set ('" + level_set_name +
               "', which only a run with a liquid writes), so there is no surface to mesh; "
               "they hold " + index.dataset_names() + " (--surface none)";
      return false;
    }
    plan->surface = options.surface;
  }
  if (!plan->surface.empty()) plan->level_set = *level_set;
  if (plan->fields.empty() && plan->surface.empty()) {
    *error = "nothing to write: no fields and no surface (the frames hold " +
             index.dataset_names() + ")";
    return false;
  }
  return true;
}

/// Rank 0's verdict, a number and a text (the index, or the error), handed to every rank.
void broadcast_result(bool* ok, long long* number, std::string* text, MPI_Comm comm) {
  long long header[3] = {*ok ? 1 : 0, *number, static_cast<long long>(text->size())};
  MPI_Bcast(header, 3, MPI_LONG_LONG, 0, comm);
  *ok = header[0] != 0;
  *number = header[1];
  text->resize(static_cast<size_t>(header[2]));
  if (header[2] > 0) MPI_Bcast(text->data(), static_cast<int>(header[2]), MPI_CHAR, 0, comm);
}

/// Rank 0's part: the index's text in *text, and in *dim the dimension of the run, which only
/// the frames tell (frame_index.hpp): the first frame that can be read says it. False, with
/// the reason in *text, when the index cannot be read or no frame it names can.
bool read_index(const std::string& path, std::string* text, long long* dim) {
  std::error_code code;
  if (!std::filesystem::exists(path, code)) {
    *text = path + ": no such file";
    return false;
  }
  if (std::filesystem::is_directory(path, code)) {
    *text = path + " is a directory; give the run's index, <dir>/<name>.xmf";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  if (!in.good() && !in.eof()) {
    *text = path + ": cannot read it";
    return false;
  }
  *text = contents.str();
  FrameIndex index;
  std::string why, first_failure;
  if (!sf::exporter::parse_frame_index(path, *text, &index, &why))
    return true;  // every rank finds this out from the text itself
  for (const sf::exporter::IndexedFrame& frame : index.frames) {
    int value = 3;
    if (sf::exporter::frame_dimension(frame.file, &value, &why)) {
      *dim = value;
      return true;
    }
    if (first_failure.empty()) first_failure = why;
  }
  *text = "none of the frames " + path + " names can be read; the first: " + first_failure;
  return false;
}

/// Progress of one frame, sent to rank 0: its position in the selection, whether it worked,
/// grids, active voxels, triangles and microseconds.
using Progress = std::array<long long, 6>;
constexpr int kProgressTag = 17;

void print_progress(const Progress& p, const std::vector<std::string>& stems, int from,
                    long long done, long long total, const ExportPlan& plan) {
  const std::string& stem = stems[static_cast<size_t>(p[0])];
  if (p[1] == 0) {
    std::printf("%s: [%lld/%lld] %s FAILED on rank %d (its message names the file)\n", kProgram,
                done, total, stem.c_str(), from);
  } else {
    std::string what;
    if (p[2] > 0)
      what = ".vdb " + std::to_string(p[2]) + " grids, " + std::to_string(p[3]) +
             " active voxels";
    if (!plan.surface.empty())
      what += (what.empty() ? "." : "; .") + plan.surface + " " + std::to_string(p[4]) +
              " triangles";
    std::printf("%s: [%lld/%lld] %s: %s (rank %d, %.2f s)\n", kProgram, done, total,
                stem.c_str(), what.c_str(), from, static_cast<double>(p[5]) * 1e-6);
  }
  std::fflush(stdout);
}

int run(int argc, char** argv, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const Options options = parse_options(argc, argv);
  if (options.help) {
    if (rank == 0) std::fputs(kUsage, stdout);
    return kExitDone;
  }
  if (!options.error.empty()) {
    if (rank == 0)
      std::fprintf(stderr, "%s: error: %s (%s --help lists the options)\n", kProgram,
                   options.error.c_str(), kProgram);
    return kExitUsage;
  }

  // The index: rank 0 reads it once, so every rank works from the same text even while a run
  // is still adding frames to it.
  bool ok = true;
  long long dim = 3;
  std::string text;
  if (rank == 0) ok = read_index(options.index, &text, &dim);
  broadcast_result(&ok, &dim, &text, comm);
  if (!ok) {
    if (rank == 0) std::fprintf(stderr, "%s: error: %s\n", kProgram, text.c_str());
    return kExitUsage;
  }
  FrameIndex index;
  std::string error;
  ExportPlan plan;
  ok = sf::exporter::parse_frame_index(options.index, text, &index, &error);
  if (ok && dim == 2) index.grid.dim = 2;
  if (ok) ok = make_plan(options, index, &plan, &error);
  const long long count = ok ? static_cast<long long>(index.frames.size()) : 0;
  const long long first = options.first;
  const long long last = options.last < 0 ? count - 1 : options.last;
  if (ok && (first >= count || last >= count)) {
    ok = false;
    error = "--frames asks for frames " + std::to_string(first) + " to " + std::to_string(last) +
            ", but " + options.index + " has frames 0 to " + std::to_string(count - 1);
  }
  if (!ok) {
    if (rank == 0) std::fprintf(stderr, "%s: error: %s\n", kProgram, error.c_str());
    return kExitUsage;
  }

  // The output directory, made by rank 0 alone (one answer, one message).
  ok = true;
  text.clear();
  long long unused = 0;
  if (rank == 0) {
    std::error_code code;
    std::filesystem::create_directories(options.output, code);
    std::error_code is_directory;
    if (!std::filesystem::is_directory(options.output, is_directory)) {
      ok = false;
      text = "cannot make the output directory " + options.output + ": " +
             (code ? code.message() : std::string("a file of that name is in the way"));
    }
  }
  broadcast_result(&ok, &unused, &text, comm);
  if (!ok) {
    if (rank == 0) std::fprintf(stderr, "%s: error: %s\n", kProgram, text.c_str());
    return kExitFailed;
  }

  std::vector<std::string> stems;
  for (long long n = first; n <= last; ++n)
    stems.push_back(index.frames[static_cast<size_t>(n)].stem);
  const long long total = static_cast<long long>(stems.size());
  if (rank == 0) {
    std::string grids;
    for (const ExportField& field : plan.fields)
      grids += (grids.empty() ? "" : ", ") + field.dataset.name +
               (field.kind == ExportField::Kind::LevelSet ? " (level set)" : "");
    std::printf("%s: %lld frames of %s on %d ranks into %s: grids %s; surface %s\n", kProgram,
                total, options.index.c_str(), ranks, options.output.c_str(),
                grids.empty() ? "none" : grids.c_str(),
                plan.surface.empty() ? "none" : plan.surface.c_str());
    std::fflush(stdout);
  }

  const auto start = std::chrono::steady_clock::now();
  long long failed = 0, done = 0;
  std::vector<Progress> sent;
  sent.reserve(static_cast<size_t>(total / ranks + 1));  // Isend buffers: never reallocated
  std::vector<MPI_Request> requests;
  // Rank 0 prints every progress message that has arrived, without waiting for more.
  // With `wait`, after its own frames, it waits for the rest: every rank sends one message per
  // frame it was given, worked or not, so exactly `total` arrive in all.
  auto drain = [&](bool wait) {
    while (rank == 0 && done < total) {
      int arrived = 1;
      MPI_Status status;
      if (wait)
        MPI_Probe(MPI_ANY_SOURCE, kProgressTag, comm, &status);
      else
        MPI_Iprobe(MPI_ANY_SOURCE, kProgressTag, comm, &arrived, &status);
      if (!arrived) return;
      Progress p;
      MPI_Recv(p.data(), 6, MPI_LONG_LONG, status.MPI_SOURCE, kProgressTag, comm,
               MPI_STATUS_IGNORE);
      print_progress(p, stems, status.MPI_SOURCE, ++done, total, plan);
    }
  };
  for (long long n = rank; n < total; n += ranks) {
    const sf::exporter::IndexedFrame& frame = index.frames[static_cast<size_t>(first + n)];
    sf::exporter::FrameResult result;
    std::string why;
    bool worked = false;
    try {
      worked = sf::exporter::export_frame(index, frame, plan, &result, &why);
    } catch (const std::exception& failure) {  // OpenVDB throws; so does running out of memory
      why = frame.file + ": " + failure.what();
    }
    if (!worked) {
      ++failed;
      std::fprintf(stderr, "%s: error: rank %d: %s\n", kProgram, rank, why.c_str());
      std::fflush(stderr);
    }
    const Progress p = {n, worked ? 1 : 0, result.grids, result.active_voxels, result.triangles,
                        static_cast<long long>(result.seconds * 1e6)};
    if (rank == 0) {
      print_progress(p, stems, 0, ++done, total, plan);
      drain(false);
    } else {
      sent.push_back(p);
      requests.emplace_back();
      MPI_Isend(sent.back().data(), 6, MPI_LONG_LONG, 0, kProgressTag, comm, &requests.back());
    }
  }
  drain(true);
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);

  long long all_failed = 0;
  MPI_Allreduce(&failed, &all_failed, 1, MPI_LONG_LONG, MPI_SUM, comm);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (all_failed > 0) {
    if (rank == 0)
      std::fprintf(stderr, "%s: error: %lld of %lld frames failed (the messages above name "
                   "the files)\n", kProgram, all_failed, total);
    return kExitFailed;
  }
  if (rank == 0)
    std::printf("%s: done: %lld frames in %s (%.2f s)\n", kProgram, total,
                options.output.c_str(), seconds);
  return kExitDone;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  // Failures are reported by us, naming the file; HDF5's own stack dump would bury them.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  openvdb::initialize();
  int status = kExitFailed;
  try {
    status = run(argc, argv, MPI_COMM_WORLD);
  } catch (const std::exception& failure) {
    // Outside a frame (frames catch their own): nothing says the other ranks threw too, and a
    // rank that returned would leave them in the final reduction, so stop them all.
    std::fprintf(stderr, "%s: error: %s\n", kProgram, failure.what());
    MPI_Abort(MPI_COMM_WORLD, kExitFailed);
  }
  MPI_Finalize();
  return status;
}
