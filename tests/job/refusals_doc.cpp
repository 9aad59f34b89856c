// The section "Combinations that are refused" of jobs/README.md, made from the table of
// src/job/compatibility.cpp, so that the list a user reads is the list the parser checks:
//
//   refusals_doc                   prints the section
//   refusals_doc --check <README>  exit status 1, and what differs, if the README's section is not
//                                  what the table gives (the CTest refusals_readme)
//   refusals_doc --write <README>  puts the table's section into the README
//
// The section lies between two marker lines, kBegin and kEnd, which the README must hold once
// each; everything else in the file is left as it is.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "compatibility.hpp"

namespace {

const std::string kBegin =
    "<!-- Generated from src/job/compatibility.cpp by build/tests/refusals_doc --write "
    "jobs/README.md; the CTest refusals_readme fails when they differ. -->\n";
const std::string kEnd = "<!-- End of the generated list. -->\n";

/// A table cell: Markdown would take a '|' in the text for the end of the cell.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string section() {
  std::string out = kBegin;
  out += "\n| the job has | together with | the error names | why |\n|---|---|---|---|\n";
  for (const sf::Refusal& row : sf::refusals()) {
    std::string why = row.why;
    if (row.fix[0] != '\0') why += std::string(": ") + row.fix;
    out += "| " + cell(row.first.words) + " | " + cell(row.second.words) + " | `" + row.key +
           "` | " + cell(why) + " |\n";
  }
  return out + "\n" + kEnd;
}

bool read(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *text = buffer.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc == 1) {
    std::fputs(section().c_str(), stdout);
    return 0;
  }
  if (argc != 3 || (mode != "--check" && mode != "--write")) {
    std::fprintf(stderr, "usage: refusals_doc [--check | --write <README.md>]\n");
    return 2;
  }
  const std::string path = argv[2];
  std::string text;
  if (!read(path, &text)) {
    std::fprintf(stderr, "refusals_doc: cannot read %s\n", path.c_str());
    return 2;
  }
  const std::size_t begin = text.find(kBegin);
  const std::size_t end = text.find(kEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin ||
      text.find(kBegin, begin + 1) != std::string::npos ||
      text.find(kEnd, end + 1) != std::string::npos) {
    std::fprintf(stderr,
                 "refusals_doc: %s must hold each of these lines once, in this order:\n%s%s",
                 path.c_str(), kBegin.c_str(), kEnd.c_str());
    return 2;
  }
  const std::string now = text.substr(begin, end + kEnd.size() - begin);
  const std::string wanted = section();
  if (mode == "--check") {
    if (now == wanted) {
      std::printf("%s lists the %zu rows of the table\n", path.c_str(), sf::refusals().size());
      return 0;
    }
    std::fprintf(stderr,
                 "refusals_doc: the list of refused combinations in %s is not the table's; "
                 "run build/tests/refusals_doc --write jobs/README.md. The table gives:\n%s",
                 path.c_str(), wanted.c_str());
    return 1;
  }
  std::ofstream out(path, std::ios::binary);
  out << text.substr(0, begin) << wanted << text.substr(end + kEnd.size());
  if (!out.flush()) {
    std::fprintf(stderr, "refusals_doc: cannot write %s\n", path.c_str());
    return 2;
  }
  return 0;
}
