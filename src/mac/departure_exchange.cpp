// The on-demand departure-point exchange (see departure_exchange.hpp).
#include "departure_exchange.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sf {

DepartureExchange::~DepartureExchange() {
  if (comm_ != MPI_COMM_NULL) (void)PetscCommDestroy(&comm_);
}

PetscErrorCode DepartureExchange::setup(const Grid& grid, int reply_width) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  width_ = reply_width;
  if (comm_ != MPI_COMM_NULL) PetscCall(PetscCommDestroy(&comm_));
  PetscCall(PetscCommDuplicate(grid.comm(), &comm_, &query_tag_));
  PetscCall(PetscCommGetNewTag(comm_, &reply_tag_));
  const PetscInt* ranges[3] = {nullptr, nullptr, nullptr};
  PetscCall(DMDAGetOwnershipRanges(grid.cell_dm(), &ranges[0], &ranges[1], &ranges[2]));
  const auto processes = grid.process_grid();
  for (int a = 0; a < 3; ++a) {
    starts_[a].assign(1, 0);
    if (a >= grid.dim()) continue;
    for (PetscInt p = 0; p + 1 < processes[a]; ++p)
      starts_[a].push_back(starts_[a].back() + ranges[a][p]);
  }
  PetscFunctionReturn(0);
}

PetscMPIInt DepartureExchange::owner(const double x[3]) const {
  const auto processes = grid_->process_grid();
  PetscInt coordinate[3] = {0, 0, 0};
  for (int a = 0; a < grid_->dim(); ++a) {
    const PetscInt n = grid_->cells(a);
    // Clamped while still a double: a cast of a value beyond PetscInt's range is undefined.
    // NaN compares false, so it is clamped to the first cell rather than passed through.
    double t = std::floor((x[a] - grid_->origin(a)) / grid_->spacing(a));
    t = t >= 0.0 ? std::min(t, static_cast<double>(n - 1)) : 0.0;
    const PetscInt cell = static_cast<PetscInt>(t);
    coordinate[a] = static_cast<PetscInt>(
        std::upper_bound(starts_[a].begin(), starts_[a].end(), cell) - starts_[a].begin() - 1);
  }
  // DMDA numbers ranks with x fastest.
  return static_cast<PetscMPIInt>(coordinate[0] +
                                  processes[0] * (coordinate[1] + processes[1] * coordinate[2]));
}

PetscErrorCode DepartureExchange::resolve(const std::vector<RemoteQuery>& queries,
                                          const Answer& answer, std::vector<double>* replies,
                                          PetscInt* failures) {
  PetscFunctionBeginUser;
  *failures = 0;
  // Group the queries by owner.
  std::vector<size_t> order(queries.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return queries[a].owner < queries[b].owner; });
  std::vector<PetscMPIInt> to_ranks, to_counts;
  for (size_t n : order) {
    if (to_ranks.empty() || to_ranks.back() != queries[n].owner) {
      to_ranks.push_back(queries[n].owner);
      to_counts.push_back(0);
    }
    ++to_counts.back();
  }
  std::vector<double> outgoing(4 * queries.size());
  for (size_t s = 0; s < order.size(); ++s) {
    const RemoteQuery& q = queries[order[s]];
    outgoing[4 * s + 0] = q.x[0];
    outgoing[4 * s + 1] = q.x[1];
    outgoing[4 * s + 2] = q.x[2];
    outgoing[4 * s + 3] = static_cast<double>(q.kind);
  }

  PetscMPIInt from_count = 0;
  PetscMPIInt* from_ranks = nullptr;
  PetscMPIInt* from_counts = nullptr;
  PetscCall(PetscCommBuildTwoSided(comm_, 1, MPI_INT, static_cast<PetscMPIInt>(to_ranks.size()),
                                   to_ranks.data(), to_counts.data(), &from_count, &from_ranks,
                                   &from_counts));
  std::vector<size_t> from_offsets(static_cast<size_t>(from_count) + 1, 0);
  for (PetscMPIInt r = 0; r < from_count; ++r)
    from_offsets[r + 1] = from_offsets[r] + static_cast<size_t>(from_counts[r]);
  const size_t incoming_count = from_offsets.back();

  // Points out, points in.
  std::vector<double> incoming(4 * incoming_count);
  std::vector<MPI_Request> requests;
  requests.reserve(2 * (to_ranks.size() + static_cast<size_t>(from_count)));
  for (PetscMPIInt r = 0; r < from_count; ++r) {
    requests.emplace_back();
    PetscCallMPI(MPI_Irecv(incoming.data() + 4 * from_offsets[r], 4 * from_counts[r], MPI_DOUBLE,
                           from_ranks[r], query_tag_, comm_, &requests.back()));
  }
  size_t offset = 0;
  for (size_t r = 0; r < to_ranks.size(); ++r) {
    requests.emplace_back();
    PetscCallMPI(MPI_Isend(outgoing.data() + 4 * offset, 4 * to_counts[r], MPI_DOUBLE,
                           to_ranks[r], query_tag_, comm_, &requests.back()));
    offset += static_cast<size_t>(to_counts[r]);
  }
  PetscCallMPI(MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                           MPI_STATUSES_IGNORE));

  // Answer what others asked.
  const size_t w = static_cast<size_t>(width_);
  std::vector<double> answers(w * incoming_count, 0.0);
  for (size_t n = 0; n < incoming_count; ++n) {
    const double* x = &incoming[4 * n];
    if (!answer(x, static_cast<int>(x[3]), &answers[w * n])) ++*failures;
  }

  // Replies back, in the order the points came.
  std::vector<double> sorted_replies(w * queries.size());
  requests.clear();
  offset = 0;
  for (size_t r = 0; r < to_ranks.size(); ++r) {
    requests.emplace_back();
    PetscCallMPI(MPI_Irecv(sorted_replies.data() + w * offset,
                           static_cast<int>(w) * to_counts[r], MPI_DOUBLE, to_ranks[r],
                           reply_tag_, comm_, &requests.back()));
    offset += static_cast<size_t>(to_counts[r]);
  }
  for (PetscMPIInt r = 0; r < from_count; ++r) {
    requests.emplace_back();
    PetscCallMPI(MPI_Isend(answers.data() + w * from_offsets[r],
                           static_cast<int>(w) * from_counts[r], MPI_DOUBLE, from_ranks[r],
                           reply_tag_, comm_, &requests.back()));
  }
  PetscCallMPI(MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                           MPI_STATUSES_IGNORE));
  PetscCall(PetscFree(from_ranks));
  PetscCall(PetscFree(from_counts));

  replies->assign(w * queries.size(), 0.0);
  for (size_t s = 0; s < order.size(); ++s)
    std::copy_n(&sorted_replies[w * s], w, &(*replies)[w * order[s]]);
  PetscFunctionReturn(0);
}

}  // namespace sf
