// Matrix-free pressure operator and geometric multigrid: the kernels of every level (MatMult,
// diagonal, red-black Gauss-Seidel, transfers), called by PETSc through the shells
// (the method: poisson_multigrid.hpp).
#include "poisson_multigrid_levels.hpp"
#include "vec_array.hpp"

namespace sf {

using namespace mg;

// ----------------------------------------------------------------------------------------------
// Kernels

PetscErrorCode PoissonMultigrid::Impl::apply(Mat A, Vec x, Vec y) {
  PetscFunctionBeginUser;
  LevelRef* ref;
  PetscCall(MatShellGetContext(A, &ref));
  const Level& l = ref->impl->levels[static_cast<size_t>(ref->level)];
  GhostedCopy xl;
  PetscCall(xl.open(l.dm, l.star, l.layout, x));
  WriteArray out;
  PetscCall(out.get(y));
  const double* in = xl.data();
  dispatch(l, [&](auto dim, const auto& w) {
    for_each_owned(l.layout, [&](size_t n, size_t m, PetscInt, PetscInt, PetscInt) {
      double sum, neighbours;
      stencil<decltype(dim)::value>(w, l.layout.stride, in, n, &sum, &neighbours);
      out[m] = (sum > 0.0 ? sum : l.decoupled_diagonal) * in[n] - neighbours;
    });
  });
  PetscCall(out.restore());
  PetscCall(xl.close());
  PetscCall(PetscLogFlops(10.0 * l.layout.owned.count()));
  PetscFunctionReturn(0);
}

PetscErrorCode PoissonMultigrid::Impl::diagonal(Mat A, Vec d) {
  PetscFunctionBeginUser;
  LevelRef* ref;
  PetscCall(MatShellGetContext(A, &ref));
  const Level& l = ref->impl->levels[static_cast<size_t>(ref->level)];
  WriteArray out;
  PetscCall(out.get(d));
  for_each_owned(l.layout, [&](size_t, size_t m, PetscInt i, PetscInt j, PetscInt k) {
    out[m] = ref->impl->row_diagonal(l, i, j, k);
  });
  PetscFunctionReturn(0);
}

// Red-black Gauss-Seidel: each half sweep sets the cells of one colour from their neighbours,
// which all have the other colour. On an outflow face the ghost -p holds the value from before
// the half sweep, so those cells take a Jacobi-like step there; the fixed point is the same and
// each half sweep is still a symmetric block update, so red-black before and black-red after
// keep the V-cycle symmetric.
PetscErrorCode PoissonMultigrid::Impl::sweeps(int level, int first_colour, Vec b, Vec x,
                                              PetscInt count, bool zero_guess) {
  PetscFunctionBeginUser;
  const Level& l = levels[static_cast<size_t>(level)];
  const Layout& layout = l.layout;
  ReadArray rhs;
  PetscCall(rhs.get(b));
  for (PetscInt sweep = 0; sweep < count; ++sweep) {
    for (int half = 0; half < 2; ++half) {
      const int colour = (first_colour + half) % 2;
      WriteArray out;
      if (zero_guess && sweep == 0 && half == 0) {
        // From x = 0 the neighbours contribute nothing: p = b / diagonal, and 0 elsewhere.
        PetscCall(out.get(x));
        dispatch(l, [&](auto dim, const auto& w) {
          for_each_owned(layout, [&](size_t n, size_t m, PetscInt i, PetscInt j, PetscInt k) {
            if (((i + j + k) & 1) != colour) {
              out[m] = 0.0;
              return;
            }
            double sum = 0.0;
            for (int a = 0; a < decltype(dim)::value; ++a)
              sum += w(n, a) + w(n + layout.stride[a], a);
            out[m] = rhs[m] / (sum > 0.0 ? sum : l.decoupled_diagonal);
          });
        });
        PetscCall(out.restore());
        continue;
      }
      GhostedCopy xl;
      PetscCall(xl.open(l.dm, l.star, layout, x));
      const double* in = xl.data();
      PetscCall(out.get(x));
      dispatch(l, [&](auto dim, const auto& w) {
        const IndexBox& box = layout.owned;
        for (PetscInt k = box.lo[2]; k < box.hi[2]; ++k)
          for (PetscInt j = box.lo[1]; j < box.hi[1]; ++j) {
            const PetscInt i0 = box.lo[0] + ((box.lo[0] + j + k + colour) & 1);
            size_t n = layout.local(i0, j, k), m = layout.global(i0, j, k);
            for (PetscInt i = i0; i < box.hi[0]; i += 2, n += 2, m += 2) {
              double sum, neighbours;
              stencil<decltype(dim)::value>(w, layout.stride, in, n, &sum, &neighbours);
              out[m] = sum > 0.0 ? (rhs[m] + neighbours) / sum : rhs[m] / l.decoupled_diagonal;
            }
          }
      });
      PetscCall(out.restore());
      PetscCall(xl.close());
    }
  }
  PetscCall(rhs.restore());
  PetscCall(PetscLogFlops(12.0 * count * layout.owned.count()));
  PetscFunctionReturn(0);
}

PetscErrorCode PoissonMultigrid::Impl::smooth(PC pc, Vec b, Vec x, Vec, PetscReal, PetscReal,
                                              PetscReal, PetscInt count, PetscBool zero_guess,
                                              PetscInt* done,
                                              PCRichardsonConvergedReason* reason) {
  PetscFunctionBeginUser;
  Smoother* s;
  PetscCall(PCShellGetContext(pc, &s));
  PetscCall(s->impl->sweeps(s->level, s->first_colour, b, x, count, zero_guess == PETSC_TRUE));
  *done = count;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  PetscFunctionReturn(0);
}

// PCApply of the smoother (used when Richardson cannot take the fast path, e.g. with a monitor
// on the level): one sweep from zero.
PetscErrorCode PoissonMultigrid::Impl::smooth_once(PC pc, Vec b, Vec x) {
  PetscFunctionBeginUser;
  Smoother* s;
  PetscCall(PCShellGetContext(pc, &s));
  PetscCall(s->impl->sweeps(s->level, s->first_colour, b, x, 1, true));
  PetscFunctionReturn(0);
}

namespace {

/// The vector a transfer reads: its owned array, or a ghosted copy when some rank's cells are
/// not nested with the other level's.
template <typename Level>
PetscErrorCode transfer_source(const Level& l, Vec v, bool ghosted, GhostedCopy* copy,
                               ReadArray* owned, const PetscScalar** data, IndexBox* box) {
  PetscFunctionBeginUser;
  if (ghosted) {
    PetscCall(copy->open(l.dm, l.transfer(), l.layout, v));
    *data = copy->data();
    *box = l.layout.ghosted;
  } else {
    PetscCall(owned->get(v));
    *data = owned->data;
    *box = l.layout.owned;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode transfer_done(bool ghosted, GhostedCopy* copy, ReadArray* owned) {
  PetscFunctionBeginUser;
  if (ghosted) PetscCall(copy->close());
  else PetscCall(owned->restore());
  PetscFunctionReturn(0);
}

}  // namespace

// The transfers between a level and the next finer one:
//   interpolation  every fine cell takes the value of its coarse cell,  out = add + P in;
//   restriction    every coarse cell gets the sum of its fine cells,    out = add + P^T in;
// `add` may be null or the output itself.
PetscErrorCode PoissonMultigrid::Impl::transfer(Mat P, Vec in, Vec add, Vec out,
                                                bool interpolating) {
  PetscFunctionBeginUser;
  LevelRef* ref;
  PetscCall(MatShellGetContext(P, &ref));
  const Level& c = ref->impl->levels[static_cast<size_t>(ref->level)];
  const Level& f = ref->impl->levels[static_cast<size_t>(ref->level) + 1];
  const Level& from = interpolating ? c : f;
  const Level& to = interpolating ? f : c;
  if (add && add != out) PetscCall(VecCopy(add, out));
  GhostedCopy copy;
  ReadArray owned;
  const PetscScalar* source = nullptr;
  IndexBox box;
  PetscCall(transfer_source(from, in, c.transfer_exchanges, &copy, &owned, &source, &box));
  const CellReader read(source, box);
  const bool three_d = c.layout.dim == 3;
  WriteArray target;
  PetscCall(target.get(out));
  for_each_owned(to.layout, [&](size_t n, size_t m, PetscInt i, PetscInt j, PetscInt k) {
    double value = 0.0;
    if (interpolating) {
      if (f.coupled[n]) value = read(i / 2, j / 2, three_d ? k / 2 : 0);
    } else {
      for (PetscInt z = 0; z < (three_d ? 2 : 1); ++z)
        for (PetscInt y = 0; y < 2; ++y)
          for (PetscInt x = 0; x < 2; ++x) {
            const PetscInt fi = 2 * i + x, fj = 2 * j + y, fk = three_d ? 2 * k + z : 0;
            if (f.coupled[f.layout.local(fi, fj, fk)]) value += read(fi, fj, fk);
          }
    }
    target[m] = add ? target[m] + value : value;
  });
  PetscCall(target.restore());
  PetscCall(transfer_done(c.transfer_exchanges, &copy, &owned));
  PetscFunctionReturn(0);
}

PetscErrorCode PoissonMultigrid::Impl::interpolate_add(Mat P, Vec coarse, Vec add, Vec fine) {
  return transfer(P, coarse, add, fine, true);
}

PetscErrorCode PoissonMultigrid::Impl::interpolate(Mat P, Vec coarse, Vec fine) {
  return transfer(P, coarse, nullptr, fine, true);
}

PetscErrorCode PoissonMultigrid::Impl::restrict_sum_add(Mat P, Vec fine, Vec add, Vec coarse) {
  return transfer(P, fine, add, coarse, false);
}

PetscErrorCode PoissonMultigrid::Impl::restrict_sum(Mat P, Vec fine, Vec coarse) {
  return transfer(P, fine, nullptr, coarse, false);
}

}  // namespace sf
