# Run as a script (cmake -P) by src/app/CMakeLists.txt: copies the key index of jobs/README.md
# (the block between its "key index" markers, generated from the parser by
# tests/job/key_index.py) into a C++ header, so that `stablefluids --help` prints the same list.
#   cmake -DREADME=<jobs/README.md> -DOUTPUT=<header> -P KeyIndex.cmake
file(READ "${README}" text)
string(FIND "${text}" "<!-- key index: begin" begin)
string(FIND "${text}" "<!-- key index: end -->" end)
if(begin EQUAL -1 OR end EQUAL -1)
  message(FATAL_ERROR "${README}: no key index markers (tests/job/key_index.py --update)")
endif()
math(EXPR length "${end} - ${begin}")
string(SUBSTRING "${text}" ${begin} ${length} block)
string(REGEX REPLACE "^[^\n]*\n```text\n" "" block "${block}")
string(REGEX REPLACE "```\n*$" "" block "${block}")
set(content "// Generated from ${README} by cmake/KeyIndex.cmake: do not edit.\n")
string(APPEND content "constexpr const char* kKeyIndex = R\"keyindex(${block})keyindex\";\n")
file(WRITE "${OUTPUT}" "${content}")
