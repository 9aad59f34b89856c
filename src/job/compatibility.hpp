// The combinations of features a job may not have, as one table (compatibility.cpp). Each row
// names two features, the key its error points at and why the two do not go together; the parser
// checks the whole table once, after every section is read, and refuses the job at the first row
// it breaks. jobs/README.md lists the table ("Combinations that are refused"), generated from it
// by tests/job/refusals_doc.cpp, which also fails the suite when the two disagree.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "job.hpp"

namespace sf {

/// What a row is checked for, one at a time: the job as a whole, each obstacle, each side of the
/// domain (item 2 axis + side, side 0 lower), or each scalar of the run. A feature of the job as
/// a whole ignores the item, so "an obstacle that moves, in a job with BDF2" is a row per
/// obstacle whose second feature is the job's.
enum class RefusalScope { Job, Obstacle, Side, Scalar };

/// One feature of a job, in words and as a test.
struct JobFeature {
  const char* words;                            // as jobs/README.md says it: "a liquid (liquid:)"
  bool (*present)(const JobConfig&, int item);  // whether `item` (of the row's scope) has it
};

/// Where the value of a dotted key (with [index] into lists) is given: "on line 8" of the job's
/// text, or "given by --set <key>=<value>" when the command line gave it.
using KeyPlace = std::function<std::string(const std::string& key)>;

/// One refused combination. The error reads
///   <file>:<line>: <key>: <why>[ (<detail>)][: <fix>]
/// at the line of `key`, whose patterns [n] (the obstacle), <axis> and <side> (the side) are
/// filled in for the item that has both features.
struct Refusal {
  const char* name;  // unique; the tests of the table are keyed by it
  RefusalScope scope;
  JobFeature first;
  JobFeature second;
  const char* key;
  const char* why;  // the reason, a sentence that holds for every job the row refuses
  const char* fix;  // what to change instead; empty when `why` says it
  /// What in this job is in the way (a side, a scalar's name, another key's line), or nullptr.
  std::string (*detail)(const JobConfig&, int item, const KeyPlace& place) = nullptr;
};

/// Every refused combination, in the order the parser checks them.
const std::vector<Refusal>& refusals();

}  // namespace sf
