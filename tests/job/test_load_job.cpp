// load_job (src/job/load.cpp): the job file is read on rank 0, checked for what it is (a
// regular file of at most 1 MiB, a grid that fits the nodes' memory), broadcast and parsed on
// every rank, so that every rank reaches the same verdict at any rank count; and the job files
// shipped in the source tree, and the complete example in jobs/README.md, all parse.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "job.hpp"
#include "job_test_util.hpp"
#include "memory_estimate.hpp"
#include "mpi_test_util.hpp"

namespace {

using sf::JobConfig;
using sf::JobError;
using sf::test::Contains;
using sf::test::kHead;

// ---------------------------------------------------------------------------------------------
// load_job: collective on MPI_COMM_WORLD. Assertions that could return early are avoided around
// collectives, so that one failing rank cannot leave the others waiting.

/// Rank 0's copy of `text`, on every rank.
std::string from_rank0(std::string text) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return text;
}

/// True on every rank if `flag` holds on every rank.
bool on_all_ranks(bool flag) { return sf::test::global_sum(flag ? 0 : 1) == 0; }

/// The JobError message load_job throws on this rank, or a marker if it throws none.
std::string load_error(const std::string& path) {
  try {
    sf::load_job(MPI_COMM_WORLD, path);
  } catch (const JobError& e) {
    return e.what();
  }
  return "<no JobError thrown>";
}

/// A job file written by rank 0 into the temporary directory and removed again by rank 0 once
/// every rank is done with it. Its path is the same on every rank.
class TempJobFile {
public:
  explicit TempJobFile(const std::string& text) {
    static int counter = 0;
    std::string path;
    if (sf::test::comm_rank() == 0) {
      path = (std::filesystem::temp_directory_path() /
              ("sf_test_config_" + std::to_string(::getpid()) + "_" + std::to_string(counter) +
               ".yaml"))
                 .string();
      std::ofstream out(path, std::ios::binary);
      out << text;
    }
    ++counter;
    path_ = from_rank0(path);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~TempJobFile() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (sf::test::comm_rank() == 0) std::remove(path_.c_str());
  }
  TempJobFile(const TempJobFile&) = delete;
  TempJobFile& operator=(const TempJobFile&) = delete;

  const std::string& path() const { return path_; }

private:
  std::string path_;
};

TEST(LoadJob, MissingFileFailsOnEveryRank) {
  const std::string path = "/nonexistent-sf-test-dir/missing.yaml";
  const std::string message = load_error(path);
  EXPECT_EQ(message, "cannot read job file '" + path + "': No such file or directory");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

TEST(LoadJob, DirectoryFailsOnEveryRank) {
  const std::string path = from_rank0(std::filesystem::temp_directory_path().string());
  const std::string message = load_error(path);
  EXPECT_EQ(message, "cannot read job file '" + path + "': it is a directory, not a regular file");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

// A device never ends and a FIFO may block forever; both are refused before a byte is read. (A
// hang here is caught by the test's timeout.)
TEST(LoadJob, DeviceFailsOnEveryRankWithoutReadingIt) {
  const std::string message = load_error("/dev/zero");
  EXPECT_EQ(message, "cannot read job file '/dev/zero': it is a character device, not a regular "
                     "file");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

TEST(LoadJob, FifoFailsOnEveryRankWithoutWaitingForAWriter) {
  std::string path;
  if (sf::test::comm_rank() == 0) {
    path = (std::filesystem::temp_directory_path() /
            ("sf_test_config_fifo_" + std::to_string(::getpid())))
               .string();
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << std::strerror(errno);
  }
  path = from_rank0(path);
  const std::string message = load_error(path);
  EXPECT_EQ(message, "cannot read job file '" + path + "': it is a FIFO, not a regular file");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
  MPI_Barrier(MPI_COMM_WORLD);
  if (sf::test::comm_rank() == 0) std::remove(path.c_str());
}

TEST(LoadJob, FileOverOneMebibyteFailsOnEveryRank) {
  const TempJobFile file(kHead + std::string((1 << 20) + 1 - kHead.size(), '#'));
  const std::string message = load_error(file.path());
  EXPECT_EQ(message, "cannot read job file '" + file.path() + "': it is 1048577 bytes, more than "
                     "the 1048576 bytes (1 MiB) a job file may have");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

TEST(LoadJob, FileOfOneMebibyteOfUnknownKeysStopsAtTheFirst) {
  // Exactly at the limit, so it is read: 87381 keys of 12 bytes, and a comment to fill up.
  std::string text;
  while (text.size() + 12 <= (1u << 20)) {
    text += "k" + std::to_string(1000000 + text.size() / 12) + ": 1\n";
  }
  text.resize((1u << 20) - 1, '#');
  text += '\n';
  const TempJobFile file(text);
  const auto start = std::chrono::steady_clock::now();
  const std::string message = load_error(file.path());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(message, file.path() + ":1: k1000000: unknown key (expected one of: name, grid, "
                     "boundary, velocity, scalars, fluid, advection, forces, obstacles, "
                     "liquid, viscoelastic, fire, texture, time, pressure, diffusion, output, "
                     "checkpoint, debug, catalyst, diagnostics, petsc_options, steering)");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
  if (sf::test::comm_rank() == 0) {
    std::printf("a 1 MiB job of unknown keys was refused in %.3f s\n", seconds);
  }
}

TEST(LoadJob, ValidFileParsesOnEveryRank) {
  const std::string text = kHead + "scalars: {density: {background: 0.5}}\n";
  const TempJobFile file(text);
  bool ok = false;
  try {
    const JobConfig job = sf::load_job(MPI_COMM_WORLD, file.path());
    EXPECT_EQ(job.source, file.path());
    EXPECT_EQ(job.text, text);
    EXPECT_EQ(job.name, std::filesystem::path(file.path()).stem().string());
    EXPECT_EQ(job.grid.cells, (std::array<long, 3>{8, 8, 1}));
    EXPECT_EQ(job.time.dt, 0.1);
    EXPECT_EQ(job.scalars.size(), 1u);
    ok = true;
  } catch (const JobError& e) {
    ADD_FAILURE() << e.what();
  }
  EXPECT_TRUE(on_all_ranks(ok));
}

TEST(LoadJob, MalformedFileFailsIdenticallyOnEveryRank) {
  const TempJobFile file(kHead + "output: {interval: -2}\n");
  const std::string message = load_error(file.path());
  EXPECT_EQ(message, file.path() + ":6: output.interval: must be >= 0, got \"-2\"");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

/// Sets an environment variable on this rank for the lifetime of the object.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string source_dir();

/// The memory check's figure of `bytes` in gigabytes, as its messages write it.
std::string gigabytes(double bytes) {
  std::ostringstream out;
  out.precision(3);
  out << bytes / 1e9 << " GB";
  return out.str();
}

TEST(LoadJob, GridTooLargeForMemoryFailsIdenticallyOnEveryRank) {
  // The test hook says only 1 MB is available, less than any job needs; the message gives the
  // estimate (src/job/memory_estimate.hpp, whose arithmetic test_memory_estimate.cpp checks),
  // its parts, the key and line, and what is available.
  const std::string text = "grid:\n  cells: [64, 64, 64]\ntime: {dt: 0.1, end: 1.0}\n";
  const TempJobFile file(text);
  std::string message;
  {
    const ScopedEnv hook("STABLEFLUIDS_MEMORY_AVAILABLE_BYTES", "1000000");
    message = load_error(file.path());
  }
  const int size = sf::test::comm_size();
  const sf::MemoryEstimate estimate = sf::estimate_memory(sf::parse_job(text, file.path()));
  EXPECT_TRUE(Contains(message, file.path() + ":2: grid.cells: the job needs about " +
                                    gigabytes(estimate.total(size)) + " (262144 cells at ~" +
                                    std::to_string(std::lround(estimate.per_cell())) +
                                    " bytes per cell, plus " +
                                    std::to_string(std::lround(estimate.per_rank() / 1e6)) +
                                    " MB per rank for the program and its libraries)"))
      << message;
  EXPECT_TRUE(Contains(message, "have only 0.001 GB available; use more nodes or a smaller grid"));
  EXPECT_TRUE(Contains(message, "the ranks on node "));
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));

  // A job with Catalyst scripts says that ParaView is part of what every rank holds.
  const TempJobFile with_catalyst(text + "catalyst:\n  scripts:\n    - script: " +
                                  source_dir() + "/jobs/catalyst/slice_png.py\n");
  {
    const ScopedEnv hook("STABLEFLUIDS_MEMORY_AVAILABLE_BYTES", "1000000");
    message = load_error(with_catalyst.path());
  }
  EXPECT_TRUE(Contains(message, " MB per rank for the program and its libraries with ParaView "
                                "Catalyst)"))
      << message;
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

TEST(LoadJob, GridThatFitsInMemoryIsAccepted) {
  const std::string text = "grid:\n  cells: [64, 64, 64]\ntime: {dt: 0.1, end: 1.0}\n";
  const TempJobFile file(text);
  // Exactly the estimate of the ranks of one node (all of them, here) is still enough; a byte
  // less is not.
  const int size = sf::test::comm_size();
  const double needed = sf::estimate_memory(sf::parse_job(text, file.path())).total(size);
  std::string enough, short_by_one;
  {
    const ScopedEnv hook("STABLEFLUIDS_MEMORY_AVAILABLE_BYTES",
                         std::to_string(static_cast<long long>(std::ceil(needed))).c_str());
    enough = load_error(file.path());
  }
  {
    const ScopedEnv hook("STABLEFLUIDS_MEMORY_AVAILABLE_BYTES",
                         std::to_string(static_cast<long long>(std::floor(needed)) - 1).c_str());
    short_by_one = load_error(file.path());
  }
  // Without the hook, the machine's own MemAvailable is used; a small job fits on any machine.
  const TempJobFile small(kHead);
  const std::string without_hook = load_error(small.path());
  EXPECT_EQ(enough, "<no JobError thrown>");
  EXPECT_TRUE(Contains(short_by_one, "grid.cells: the job needs about ")) << short_by_one;
  EXPECT_EQ(without_hook, "<no JobError thrown>");
  EXPECT_TRUE(on_all_ranks(enough == "<no JobError thrown>" &&
                           without_hook == "<no JobError thrown>"));
}

// ---------------------------------------------------------------------------------------------
// The job files shipped in the source tree are documentation and regression cases: every one must
// parse, and so must the complete example in jobs/README.md.

/// The source tree: $STABLEFLUIDS_SOURCE_DIR if set, else the build's STABLEFLUIDS_SOURCE_DIR
/// definition, else empty (and the tests below fail rather than silently check nothing).
std::string source_dir() {
  if (const char* env = std::getenv("STABLEFLUIDS_SOURCE_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
#ifdef STABLEFLUIDS_SOURCE_DIR
  return STABLEFLUIDS_SOURCE_DIR;
#else
  return "";
#endif
}

/// The text of `path`, or nullopt if it cannot be read.
std::optional<std::string> slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const char* const kNoSourceDir =
    "the source directory is unknown: set STABLEFLUIDS_SOURCE_DIR in the environment, or build "
    "with target_compile_definitions(test_config PRIVATE STABLEFLUIDS_SOURCE_DIR=\"...\")";

TEST(JobFiles, EveryExampleJobParses) {
  const std::string root = source_dir();
  ASSERT_FALSE(root.empty()) << kNoSourceDir;
  const std::filesystem::path jobs = std::filesystem::path(root) / "jobs";
  ASSERT_TRUE(std::filesystem::is_directory(jobs)) << jobs << " is not a directory";

  // The examples, and the validation jobs in jobs/validation/ (named with their folder).
  std::vector<std::string> names;
  for (const char* folder : {"", "validation"}) {
    for (const auto& entry : std::filesystem::directory_iterator(jobs / folder)) {
      const std::string extension = entry.path().extension().string();
      if (entry.is_regular_file() && (extension == ".yaml" || extension == ".yml")) {
        names.push_back((std::filesystem::path(folder) / entry.path().filename()).string());
      }
    }
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const auto text = slurp(jobs / name);
    ASSERT_TRUE(text.has_value()) << "cannot read " << (jobs / name);
    try {
      // Named by its full path, as jobs/run names it: scripts are found beside the job.
      const JobConfig job = sf::parse_job(*text, (jobs / name).string());
      EXPECT_EQ(job.name, std::filesystem::path(name).stem().string())
          << "an example job's run name should match its file name";
    } catch (const JobError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  // The examples the documentation refers to must all be there.
  for (const char* expected :
       {"cavity_2d.yaml", "cylinder_2d.yaml", "fire_3d.yaml", "plume_3d.yaml",
        "scripted_smoke_2d.yaml", "taylor_green_2d.yaml", "taylor_green_3d.yaml",
        "textured_smoke_2d.yaml", "turbulence_fft_3d.yaml", "vortex_2d.yaml", "vortex_3d.yaml",
        "validation/cavity_re1000_2d.yaml", "validation/cylinder_re100_2d.yaml",
        "validation/dfg_2d1_cylinder.yaml", "validation/heated_cavity_ra1e5_2d.yaml"}) {
    EXPECT_TRUE(std::find(names.begin(), names.end(), expected) != names.end())
        << "jobs/" << expected << " is missing";
  }
}

// The example steering files (jobs/steering/) parse against the job that reads them, and each
// steers something.
TEST(JobFiles, TheShippedSteeringFilesParseForTheirJob) {
  const std::string root = source_dir();
  ASSERT_FALSE(root.empty()) << kNoSourceDir;
  const std::filesystem::path jobs = std::filesystem::path(root) / "jobs";
  const auto job_text = slurp(jobs / "steered_smoke_2d.yaml");
  ASSERT_TRUE(job_text.has_value());
  const JobConfig job = sf::parse_job(*job_text, (jobs / "steered_smoke_2d.yaml").string());
  const std::string wanted = "steering/now.yaml";
  ASSERT_GE(job.steering.file.size(), wanted.size());
  EXPECT_EQ(job.steering.file.substr(job.steering.file.size() - wanted.size()), wanted);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(jobs / "steering")) {
    if (entry.path().extension() != ".yaml" || entry.path().filename() == "now.yaml") continue;
    SCOPED_TRACE(entry.path().string());
    const auto text = slurp(entry.path());
    ASSERT_TRUE(text.has_value());
    try {
      EXPECT_GT(sf::parse_steering(*text, entry.path().string(), job).count(), 0u);
    } catch (const JobError& e) {
      ADD_FAILURE() << e.what();
    }
    ++files;
  }
  EXPECT_GE(files, 1);
}

TEST(JobFiles, ReadmeCompleteExampleParses) {
  const std::string root = source_dir();
  ASSERT_FALSE(root.empty()) << kNoSourceDir;
  const auto readme = slurp(std::filesystem::path(root) / "jobs" / "README.md");
  ASSERT_TRUE(readme.has_value()) << "cannot read jobs/README.md";
  const std::size_t heading = readme->find("\n## A complete example");
  ASSERT_NE(heading, std::string::npos) << "jobs/README.md has no \"## A complete example\"";
  const std::string fence = "```yaml\n";
  const std::size_t begin = readme->find(fence, heading);
  ASSERT_NE(begin, std::string::npos);
  const std::size_t end = readme->find("\n```", begin + fence.size());
  ASSERT_NE(end, std::string::npos);
  const std::string text = readme->substr(begin + fence.size(), end + 1 - begin - fence.size());
  try {
    const JobConfig job = sf::parse_job(text, "jobs/README.md (complete example)");
    // The example is meant to show every section.
    EXPECT_TRUE(job.forces.buoyancy.enabled);
    EXPECT_TRUE(job.forces.wind.enabled);
    EXPECT_FALSE(job.forces.regions.empty());
    EXPECT_FALSE(job.obstacles.empty());
    EXPECT_GT(job.time.cfl, 0.0);
    EXPECT_GT(job.fluid.viscosity, 0.0);
  } catch (const JobError& e) {
    ADD_FAILURE() << e.what();
  }
}

}  // namespace
