// The key census (parser.hpp): a record of every map the parser reads and the keys it accepts
// there, kept only while a tool has turned it on.
#include "parser.hpp"

#include <set>
#include <tuple>

namespace sf::job_detail {
namespace {

struct Census {
  bool on = false;
  std::string document;
  std::vector<CensusRecord> records;
  std::set<std::tuple<std::string, std::string, std::string, std::vector<std::string>, bool,
                      std::string, int>>
      seen;
};

Census& census() {
  static Census instance;
  return instance;
}

}  // namespace

void census_start(const std::string& document) {
  census() = Census{};
  census().on = true;
  census().document = document;
}

void census_stop() { census().on = false; }

bool census_on() { return census().on; }

void census_record(CensusRecord record) {
  Census& c = census();
  record.document = c.document;
  const auto [it, inserted] =
      c.seen.emplace(record.document, record.path, record.context, record.keys,
                     record.named_entries, record.file, record.line);
  if (inserted) c.records.push_back(std::move(record));
}

std::vector<CensusRecord> census_records() { return census().records; }

}  // namespace sf::job_detail
