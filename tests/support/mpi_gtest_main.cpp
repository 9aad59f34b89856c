// GoogleTest main for MPI tests: PETSc (and so MPI) is initialised once for the whole binary,
// only rank 0 prints gtest's normal report, every other rank prints its own failures prefixed
// with its rank, and the exit status is failure if any rank failed.
#include <gtest/gtest.h>
#include <petscsys.h>

#include <cstdio>

#ifdef STABLEFLUIDS_TEST_MPI_IO
#include "collective_file.hpp"
#endif

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 result.file_name() ? result.file_name() : "?", result.line_number(),
                 result.summary());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed())
      std::fprintf(stderr, "[rank %d] FAILED %s.%s\n", rank_, info.test_suite_name(),
                   info.name());
  }

private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
#ifdef STABLEFLUIDS_TEST_MPI_IO
  sf::choose_mpi_io();  // the MPI-IO implementation the solver runs with
#endif
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  int local = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
  PetscCallMPI(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  if (rank == 0 && any && !local) std::fprintf(stderr, "tests failed on another rank\n");
  PetscCall(PetscFinalize());
  return any;
}
