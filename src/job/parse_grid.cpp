// The grid section: cells or cells_per_rank, size, origin, halo, processes.
#include "parser.hpp"

namespace sf::job_detail {

GridSection JobParser::parse_grid(const MapReader& top) const {
  const MapReader map(*this, top.require("grid"), false,
                      {"cells", "cells_per_rank", "size", "origin", "halo"});

  GridSection grid;
  // Exactly one of `cells` (the whole grid) and `cells_per_rank` (weak scaling).
  const auto whole = map.find("cells");
  const auto per_rank = map.find("cells_per_rank");
  if (whole && per_rank) fail(*per_rank, "give either cells or cells_per_rank, not both");
  const Field cells = per_rank ? *per_rank : map.require("cells");
  grid.cells_per_rank = per_rank.has_value();
  grid.cells_line = cells.line;
  if (!cells.node.IsSequence() || (cells.node.size() != 2 && cells.node.size() != 3)) {
    fail(cells, "expected a list of 2 or 3 integers, " + describe(cells.node));
  }
  grid.dim = static_cast<int>(cells.node.size());
  for (int a = 0; a < grid.dim; ++a) {
    const Field entry = element(cells, a);
    const long long n = read_integer(entry, "expected a positive integer");
    if (n < 1) fail(entry, "expected a positive integer, " + describe(entry.node));
    if (n > kMaxIndex) {
      fail(entry, "is out of range (at most " + std::to_string(kMaxIndex) + "), " +
                      describe(entry.node));
    }
    grid.cells[a] = static_cast<long>(n);
  }

  // Each velocity component is one unknown per cell, so cells x dim is the largest global index
  // the solver creates. Every factor is below 2^31, and the running product is checked before
  // each multiplication, so the 64-bit arithmetic below cannot overflow.
  long long unknowns = grid.dim;
  bool too_many = false;
  for (int a = 0; a < grid.dim && !too_many; ++a) {
    unknowns *= grid.cells[a];
    too_many = unknowns > kMaxIndex;
  }
  if (too_many) {
    std::string product;
    for (int a = 0; a < grid.dim; ++a) {
      product += (a > 0 ? " x " : "") + std::to_string(grid.cells[a]);
    }
    // The full count can exceed 64 bits (three factors near 2^31), so it is printed exactly
    // only when it fits and approximately otherwise.
    long long exact = grid.dim;
    bool fits = true;
    for (int a = 0; a < grid.dim && fits; ++a) {
      fits = exact <= LLONG_MAX / grid.cells[a];
      if (fits) exact *= grid.cells[a];
    }
    std::ostringstream count;
    if (fits) {
      count << exact;
    } else {
      count.precision(4);
      count << static_cast<double>(grid.cells[0]) * static_cast<double>(grid.cells[1]) *
                   static_cast<double>(grid.cells[2]) * grid.dim;
    }
    fail(cells, product + " cells times " + std::to_string(grid.dim) + " velocity components is " +
                    count.str() + " unknowns, but PETSc here uses 32-bit indices and allows at "
                    "most " + std::to_string(kMaxIndex));
  }

  if (auto size = map.find("size")) {
    grid.size = read_vector(*size, grid.dim, [this](const Field& f) { return read_positive(f); });
    for (int a = grid.dim; a < 3; ++a) grid.size[a] = 1.0;
  }
  if (auto origin = map.find("origin")) {
    grid.origin = read_vector(*origin, grid.dim);
    grid.origin_line = origin->line;
  }
  for (int a = 0; a < grid.dim; ++a) {
    // Only an origin far from 0 can make cells too small for their coordinates (see
    // kMinCellFraction), and then origin is given.
    const std::string problem = cell_size_problem(grid, a);
    if (!problem.empty()) fail(element(*map.find("origin"), a), problem);
  }

  if (auto halo = map.find("halo")) {
    const long long h = read_integer(*halo, "expected an integer");
    if (h < kMinHalo || h > kMaxHalo) {
      fail(*halo, "must be between " + std::to_string(kMinHalo) + " and " +
                      std::to_string(kMaxHalo) + ", " + describe(halo->node));
    }
    grid.halo = static_cast<int>(h);
  }
  // A halo wider than the grid would need ghost cells from beyond a periodic neighbour's
  // neighbour, which the field exchange does not provide.
  const long smallest = *std::min_element(grid.cells.begin(), grid.cells.begin() + grid.dim);
  if (grid.halo > smallest) {
    const auto halo = map.find("halo");
    fail(halo ? halo->line : map.field().line, map.field().path + ".halo",
         "halo " + std::to_string(grid.halo) + (halo ? "" : " (the default)") +
             " exceeds the smallest cell count " + std::to_string(smallest) + " in grid.cells");
  }
  return grid;
}

}  // namespace sf::job_detail
