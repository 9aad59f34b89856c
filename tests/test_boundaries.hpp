// Boundary descriptions that tests build again and again.
#pragma once

#include "config.hpp"

namespace sf::test {

using Boundaries = std::array<std::array<FaceBoundary, 2>, 3>;

/// A face of the given kind with no inflow data.
inline FaceBoundary face(BoundaryKind kind) {
  FaceBoundary f;
  f.kind = kind;
  return f;
}

/// The same kind on every side of every axis.
inline Boundaries all(BoundaryKind kind) {
  Boundaries b;
  for (auto& axis : b) axis = {face(kind), face(kind)};
  return b;
}

}  // namespace sf::test
