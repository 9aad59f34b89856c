// The command line: stablefluids' own arguments, taken out before PETSc sees the rest.
//
//   stablefluids [PETSc options] <job.yaml> [PETSc options] [--restart <checkpoint.h5|latest>]
//                [--set <key>=<value>]...
//   stablefluids --help | --version
//
// PETSc's option parser takes any plain word after an option as that option's value, so
// `stablefluids -log_view job.yaml` would hand the job file to -log_view ("Unsupported viewer").
// The job file is therefore found here, wherever it stands, and removed: the first argument that
// ends in .yaml or .yml (any case) and is neither an option nor the value of PETSc's
// -options_file or -options_file_yaml, nor a viewer specification (":file.yaml"). A job file
// named otherwise must come first or follow another plain argument, as a value never does.
#pragma once

#include <mpi.h>
#include <petscsys.h>

#include <string>
#include <vector>

#include "job.hpp"

namespace sf {

struct CommandLine {
  std::string job;                     // the job file; empty when none was given
  std::string restart;                 // --restart's value; empty without it
  std::vector<JobOverride> overrides;  // in the order given; a later one wins
  bool help = false;                   // --help or -h
  bool version = false;                // --version
  std::string error;                   // not empty: the command line cannot be run (exit 2)
  /// What PETSc gets: the program name and every argument not taken above, in order.
  std::vector<std::string> petsc_arguments;
};

/// Splits argv into stablefluids' arguments and PETSc's. Pure: the same argv gives the same
/// result on every rank, so every rank reaches the same verdict.
CommandLine parse_command_line(int argc, const char* const* argv);

/// At the end of a run: a warning on rank 0 that lists every PETSc option no one read (a typo,
/// or an option for a solver this job does not have), as PETSc's -options_left does; PETSc
/// 3.18 only does so when asked, and then prints its whole options table first. Options that
/// PetscFinalize reads itself (-log_view, -malloc_dump, ...) are not listed. Given
/// -options_left explicitly, the user gets PETSc's own report instead. Collective.
PetscErrorCode warn_unused_options(MPI_Comm comm);

/// The --help text: usage, the job file's sections, --restart, --set and where PETSc's help is.
const char* command_line_help();

}  // namespace sf
