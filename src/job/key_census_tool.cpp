// job_key_census: parses job files (and steering files) with the key census on and prints what
// it recorded, one map per line, for tests/job/key_index.py, which turns the records into the
// key index of jobs/README.md and `stablefluids --help keys` and checks that every line of the
// parser that accepts keys was reached.
//
//   job_key_census JOB.yaml... [--steering STEERING.yaml JOB.yaml]...
//
// Output, tab-separated: document, path, context, keys (comma-separated), "named" or "keys",
// and the call site as <file>:<line> with the file relative to the source tree's src/job/.
#include "parser.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

using namespace sf::job_detail;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw sf::JobError(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string source_relative(const std::string& file) {
  const std::string marker = "src/job/";
  const std::size_t at = file.rfind(marker);
  return at == std::string::npos ? file : file.substr(at + marker.size());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<CensusRecord> records;
    const auto take = [&records] {
      for (CensusRecord& record : census_records()) records.push_back(std::move(record));
      census_stop();
    };
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--steering") {
        if (i + 2 >= argc) throw sf::JobError("--steering needs a steering file and its job");
        const std::string steering = argv[++i];
        const std::string job_file = argv[++i];
        const sf::JobConfig job = sf::parse_job(read_text(job_file), job_file);
        census_start("steering");
        sf::parse_steering(read_text(steering), steering, job);
        take();
        continue;
      }
      census_start("job");
      sf::parse_job(read_text(arg), arg);
      take();
    }
    for (const CensusRecord& r : records) {
      std::string keys;
      for (const std::string& key : r.keys) keys += (keys.empty() ? "" : ",") + key;
      std::cout << r.document << '\t' << r.path << '\t' << r.context << '\t' << keys << '\t'
                << (r.named_entries ? "named" : "keys") << '\t' << source_relative(r.file) << ':'
                << r.line << '\n';
    }
  } catch (const std::exception& e) {
    std::cerr << "job_key_census: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
