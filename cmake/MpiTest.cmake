# stablefluids_add_mpi_test(<target> LIBRARY <library> SOURCES <files...> RANKS <n...>
#                           [LABELS <labels...>] [LONG <gtest pattern> LONG_RANKS <n...>])
#
# Builds a GoogleTest binary linked with the library it tests (which brings the layers below it)
# and the MPI-aware main (tests/support/mpi_gtest_main.cpp) and
# registers it once per rank count as <target>.np<n>, launched the portable way through
# MPIEXEC_EXECUTABLE / MPIEXEC_NUMPROC_FLAG / MPIEXEC_PREFLAGS, as PETSc's and AMReX's suites do.
# The tests LONG matches (a GoogleTest filter: names joined by ':', '*' as a wildcard) run only
# at the rank counts LONG_RANKS, the others at every one of RANKS: a whole run of a job checked
# against an experiment or a conservation law costs tens of seconds at each rank count, and what
# the decomposition could change is tested by the short tests at every rank count.
#
# Open MPI refuses more ranks than cores unless told to oversubscribe, and refuses root unless
# two variables say it is meant; both are normal on a developer's 2-core container, harmless on
# a cluster node, and set here so that `ctest` works without a wrapper script.
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _sf_mpiexec_version
                ERROR_QUIET)
if(_sf_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(STABLEFLUIDS_MPIEXEC_PREFLAGS --oversubscribe CACHE STRING "Flags mpiexec gets in tests")
else()
  set(STABLEFLUIDS_MPIEXEC_PREFLAGS "" CACHE STRING "Flags mpiexec gets in tests")
endif()
# HWLOC_COMPONENTS=-gl: without it mpiexec and the ranks connect to X displays :0 to :9 while
# they start (hwloc looks for GPUs there), and die with "XIO: fatal IO error" when a virtual X
# server that a test started and stops is among them (seen with two suites running at once).
set(STABLEFLUIDS_TEST_ENVIRONMENT
    "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1"
    "HWLOC_COMPONENTS=-gl")

function(stablefluids_add_mpi_test target)
  cmake_parse_arguments(ARG "" "LIBRARY;LONG" "SOURCES;RANKS;LABELS;LONG_RANKS" ${ARGN})
  if(ARG_LONG AND NOT ARG_LONG_RANKS)
    message(FATAL_ERROR "stablefluids_add_mpi_test(${target}): LONG needs LONG_RANKS")
  endif()
  if(NOT ARG_LIBRARY)
    message(FATAL_ERROR "stablefluids_add_mpi_test(${target}): say which LIBRARY it tests")
  endif()
  # A suite sits by the layer it tests: a source under tests/<layer>/ tests that layer's library.
  foreach(source IN LISTS ARG_SOURCES)
    if(source MATCHES "^(mac|job|physics|solvers|io|app)/")
      set(layer ${CMAKE_MATCH_1})
      if(NOT ARG_LIBRARY STREQUAL "stablefluids_${layer}")
        message(FATAL_ERROR "stablefluids_add_mpi_test(${target}): ${source} is a test of the "
                            "${layer} layer, but the binary links ${ARG_LIBRARY}")
      endif()
    endif()
  endforeach()
  add_executable(${target} ${ARG_SOURCES})
  if(ARG_LIBRARY MATCHES "^stablefluids_(io|app)$")
    target_link_libraries(${target} PRIVATE ${ARG_LIBRARY} stablefluids_gtest_main_io)
  else()
    target_link_libraries(${target} PRIVATE ${ARG_LIBRARY} stablefluids_gtest_main)
  endif()
  foreach(ranks IN LISTS ARG_RANKS)
    set(name ${target}.np${ranks})
    set(filter "")
    if(ARG_LONG AND NOT ranks IN_LIST ARG_LONG_RANKS)
      set(filter "--gtest_filter=-${ARG_LONG}")
    endif()
    add_test(NAME ${name}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks}
                     ${STABLEFLUIDS_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:${target}> ${filter} ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${name} PROPERTIES
                         PROCESSORS ${ranks}
                         TIMEOUT 300
                         ENVIRONMENT "${STABLEFLUIDS_TEST_ENVIRONMENT}"
                         LABELS "mpi;${ARG_LABELS}")
  endforeach()
endfunction()
