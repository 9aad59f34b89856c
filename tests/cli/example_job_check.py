#!/usr/bin/python3
"""example_job_check.py: the short run of one example job, planned and checked
(tests/cli/example_jobs_cli.sh runs the solver between the two).

  example_job_check.py plan JOB.yaml
      prints shell assignments: the job's name, its dimension, the end time of the short run
      (three steps of the job's fixed step or of its largest adaptive one).
  example_job_check.py check JOB.yaml DIR END
      checks the run that wrote DIR: frames, steps CSV and liquid volume (below).
  example_job_check.py same FRAME_A FRAME_B
      checks that two frames hold the same step, time and datasets, bit for bit.

Exit 0 when everything holds, 1 naming each thing that does not."""
import glob
import math
import os
import sys

import h5py
import numpy
import yaml

failures = []


def fail(message):
    failures.append(message)
    print("FAILED: " + message)


def finish(what):
    if failures:
        print(f"{what}: {len(failures)} failed")
        sys.exit(1)
    print(f"{what}: ok")
    sys.exit(0)


def load_job(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def job_name(job, path):
    return str(job.get("name") or os.path.splitext(os.path.basename(path))[0])


def liquid_surface(job):
    liquid = job.get("liquid")
    if not liquid:
        return "none"
    return "height_field" if liquid.get("surface") == "height_field" else "level_set"


def uses_vof(job):
    """The volume fraction carries the surface: the default interface of a level-set surface."""
    liquid = job.get("liquid") or {}
    return liquid_surface(job) == "level_set" and liquid.get("interface", "vof") == "vof"


def plan(path):
    job = load_job(path)
    time = job["time"]
    # Three steps: a fixed step is known; an adaptive one is dt_max while the fluid is slow,
    # shorter where it moves fast, so a few more steps may come (the check below bounds them).
    step = float(time["dt"]) if "dt" in time else float(time["dt_max"])
    end = float(f"{3.0 * step:.12g}")  # 0.15, not 0.15000000000000002
    print(f"name={job_name(job, path)}")
    print(f"dim={len(job['grid']['cells'] if 'cells' in job['grid'] else job['grid']['size'])}")
    print(f"end={end!r}")


def expected_datasets(job, dim):
    """The datasets every frame of this job must hold, as its sections imply (docs/output.md,
    "Output")."""
    axes = "xyz"[:dim]
    names = ["velocity", "pressure", "solid", "job"] + [f"face_velocity/{a}" for a in axes]
    names += list((job.get("scalars") or {}).keys())
    if job.get("texture"):
        names += [f"texture_{s}_{a}" for s in "ab" for a in axes]
    if job.get("viscoelastic"):
        strain = ["strain_xx", "strain_yy", "strain_zz", "strain_xy", "strain_xz", "strain_yz"]
        names += [n for n in strain if dim == 3 or "z" not in n]
    surface = liquid_surface(job)
    if surface != "none":
        names += ["phi", "liquid_fraction"]
        # The volume fraction has no marker particles (the parser refuses them with it).
        particles = 0 if uses_vof(job) else (job["liquid"].get("particles") or {}).get("per_cell", 16)
        if surface == "level_set" and particles > 0:
            names += ["particles/position", "particles/sign", "particles/radius"]
    return names


def expected_columns(job, dim):
    """The steps CSV's columns this job implies (README, What a run does; jobs/README.md,
    diagnostics)."""
    axes = "xyz"[:dim]
    columns = ["step", "time", "dt", "cfl", "max_velocity", "max_divergence",
               "pressure_iterations", "diffusion_iterations", "remote_points", "wall_seconds",
               "insitu_seconds", "output_seconds", "kinetic_energy", "enstrophy", "dissipation"]
    columns += [f"{name}_total" for name in (job.get("scalars") or {})]
    if liquid_surface(job) != "none":
        columns += ["liquid_volume", "liquid_volume_change"]
        if uses_vof(job):
            columns += ["fraction_substeps", "fraction_clipped_volume", "air_band_iterations",
                        "bubble_cells"]
    for probe in (job.get("diagnostics") or {}).get("probes") or {}:
        columns += [f"probe_{probe}_{c}" for c in "uvw"[:dim]]
    for n, _ in enumerate(job.get("obstacles") or []):
        columns += [f"obstacle{n}_f{a}" for a in axes]
    if (job.get("liquid") or {}).get("spray"):
        columns += ["spray_particles", "foam_particles"]
    if job["time"].get("steady"):
        columns.append("change_rate")
    return columns


def frames_of(directory, name):
    return sorted(glob.glob(os.path.join(directory, f"{name}_[0-9][0-9][0-9][0-9][0-9][0-9].h5")))


def check_frame(path, names, cells):
    with h5py.File(path, "r") as frame:
        found = []
        frame.visititems(lambda n, o: found.append(n) if isinstance(o, h5py.Dataset) else None)
        for name in names:
            if name not in found:
                fail(f"{os.path.basename(path)}: no dataset /{name} (has {', '.join(found)})")
        grid = tuple(reversed(cells))  # slowest axis first
        for name in found:
            data = frame[name]
            if data.dtype.kind == "S":
                continue
            values = numpy.array(data)
            if data.attrs.get("centring") == b"cell" and values.shape[:len(grid)] != grid:
                fail(f"{os.path.basename(path)}: /{name} has the shape {values.shape}, not the "
                     f"grid's {grid}")
            if values.dtype.kind == "f" and not numpy.isfinite(values).all():
                bad = numpy.argwhere(~numpy.isfinite(values))[0]
                fail(f"{os.path.basename(path)}: /{name} is not finite at {tuple(bad)}")
        return float(frame.attrs["time"][0]), int(frame.attrs["step"][0])


def height_field_volume(path):
    """The water's volume in a height-field frame, exactly as the height field holds it: phi is
    y - h in every cell, so a cell's share of its column's depth is clamp(0.5 - phi / dy, 0, 1)
    (tests/app/test_height_field.cpp measures it the same way)."""
    with h5py.File(path, "r") as frame:
        phi = numpy.array(frame["phi"])
        solid = numpy.array(frame["solid"])
        spacing = [float(s) for s in frame.attrs["spacing"]]
    depth = numpy.clip(0.5 - phi / spacing[1], 0.0, 1.0)
    depth[solid != 0] = 0.0
    return float(depth.sum()) * math.prod(spacing)


def liquid_count(path):
    """The liquid's volume as the steps CSV counts it, from a frame: its smeared fraction of each
    cell (0 in obstacles) times the cell's volume; and the solid mask."""
    with h5py.File(path, "r") as frame:
        fraction = numpy.array(frame["liquid_fraction"])
        solid = numpy.array(frame["solid"])
        cell = math.prod(float(s) for s in frame.attrs["spacing"])
    return fraction, solid, cell


# A level set carried by the flow and reinitialised every step keeps the liquid's volume only
# to its discretisation error, so no exact invariant applies (a height field's does, below). The
# bound is the one the suite already asserts for the liquid's whole step (advection,
# reinitialisation, free-surface projection, extension) on its coarsest grid:
# tests/physics/test_level_set.cpp, LevelSetTransport.ADiscCarriedRoundThePeriodicBoxReturns,
# |volume change| < 0.3 % for a disc 16 cells across carried once round a periodic 32^2 box in
# 80 steps with monotone cubic interpolation (what every liquid job here uses), reinitialised at
# each step, without marker particles (which only pull the surface back towards where it was).
# A job's short run is 3 to a few steps, far fewer than those 80, of liquids 10 or more cells
# across, so it must stay inside that whole-period bound. The bound is not scaled down by 3/80:
# the test asserts the error over the period only, not per step (it need not grow linearly; the
# first reinitialisation of a box's corners is done once, not every step), so a scaled figure
# would be a guess. A broken volume count, a lost or doubled layer of cells, or a level set that
# drifts by a cell moves the volume by percents and fails it.
LEVEL_SET_VOLUME_PERCENT = 0.3


def check_level_set_volume(job, name, frames, header, values):
    """The liquid's volume over the run: the steps CSV counts what the frames hold, and the count
    moves by no more than the level set's error, plus what moving obstacles cover and uncover."""
    liquid = job["liquid"]
    first, solid_first, cell = liquid_count(frames[0])
    final, solid_final, _ = liquid_count(frames[-1])
    start, end = float(first.sum()) * cell, float(final.sum()) * cell
    # The CSV prints 12 digits, and numpy adds the cells in another order than the ranks do: both
    # are far inside 1e-10 of the volume.
    counted = values[-1, header.index("liquid_volume")]
    if abs(counted / end - 1.0) > 1e-10:
        fail(f"the steps CSV's last liquid_volume {counted!r} is not the last frame's {end!r}")
    change = values[:, header.index("liquid_volume_change")]
    if liquid.get("sources") or liquid.get("sinks"):
        print(f"{name}: liquid sources or sinks change the volume by design "
              f"({change[-1]:+.3g} %): not bounded")
        return
    # A moving obstacle is made of whole cells (a staircase): the cells its surface cuts are
    # counted whole, fluid or solid, while its faces move the water smoothly, so the count is
    # off from the true volume by up to the layer of liquid cells along its wetted surface
    # (tests/app/test_liquid.cpp, APistonRaisesTheWaterItPushes: a sawtooth of about one
    # layer). That layer, at the start or at the end, whichever holds more, bounds it.
    moving = any(o.get("motion") or o.get("floating") for o in job.get("obstacles") or [])
    layer = max(wetted_layer(first, solid_first), wetted_layer(final, solid_final)) if moving \
        else 0.0
    layer_percent = 100.0 * layer * cell / start
    bound = LEVEL_SET_VOLUME_PERCENT + layer_percent
    largest = float(numpy.abs(change).max())
    print(f"{name}: largest |liquid_volume_change| {largest:.3g} % (bound {bound:.3g} %: the "
          f"level set's {LEVEL_SET_VOLUME_PERCENT} % and {layer_percent:.3g} % in the layer "
          f"along moving obstacles)")
    if largest > bound:
        fail(f"the liquid's volume changed by {largest:.3g} % in {len(change)} steps, more than "
             f"{bound:.3g} %")


def wetted_layer(fraction, solid):
    """The liquid in the fluid cells that share a face with a solid cell, in cells."""
    solid = solid != 0
    beside = numpy.zeros_like(solid)
    for axis in range(solid.ndim):
        lower = [slice(None)] * solid.ndim
        upper = [slice(None)] * solid.ndim
        lower[axis], upper[axis] = slice(None, -1), slice(1, None)
        beside[tuple(lower)] |= solid[tuple(upper)]
        beside[tuple(upper)] |= solid[tuple(lower)]
    return float(fraction[beside & ~solid].sum())


def check(path, directory, end):
    job = load_job(path)
    name = job_name(job, path)
    cells = [int(n) for n in job["grid"]["cells"]]
    dim = len(cells)

    frames = frames_of(directory, name)
    if not frames:
        fail(f"no frames {name}_NNNNNN.h5 in {directory}")
    names = expected_datasets(job, dim)
    last = (None, None)
    for frame in frames:
        try:
            last = check_frame(frame, names, cells)
        except (OSError, KeyError) as error:
            fail(f"{os.path.basename(frame)} cannot be read: {error}")
    if last[0] is not None and abs(last[0] - end) > 1e-9 * end:
        fail(f"the last frame is at t = {last[0]!r}, not at the end, {end!r}")

    csv = os.path.join(directory, f"{name}_steps.csv")
    if not os.path.isfile(csv):
        fail(f"no steps CSV {csv}")
        return
    with open(csv, encoding="utf-8") as handle:
        header = handle.readline().strip().split(",")
        rows = [line.strip().split(",") for line in handle if line.strip()]
    for column in expected_columns(job, dim):
        if column not in header:
            fail(f"the steps CSV has no column {column} (has {', '.join(header)})")
    if not rows:
        fail("the steps CSV has no rows")
        return
    values = numpy.array([[float(v) for v in row] for row in rows])
    if values.shape[1] != len(header):
        fail(f"the steps CSV's rows have {values.shape[1]} values for {len(header)} columns")
    if not numpy.isfinite(values).all():
        row, column = numpy.argwhere(~numpy.isfinite(values))[0]
        fail(f"the steps CSV's {header[column]} is not finite at step {rows[row][0]}")
    steps = values[:, header.index("step")]
    if list(steps) != list(range(1, len(steps) + 1)):
        fail(f"the steps CSV's steps are {list(steps)}, not 1, 2, ...")
    if last[1] is not None and last[1] != len(steps):
        fail(f"the last frame is of step {last[1]}, the steps CSV ends at step {len(steps)}")
    print(f"{name}: {len(steps)} steps to t = {values[-1, header.index('time')]:.6g}, "
          f"{len(frames)} frames of {len(names)} datasets")

    surface = liquid_surface(job)
    if surface == "level_set" and "liquid_volume" in header and len(frames) >= 2:
        check_level_set_volume(job, name, frames, header, values)
    if surface == "height_field" and len(frames) >= 2:
        first, final = height_field_volume(frames[0]), height_field_volume(frames[-1])
        # A height field moves each column by the difference of the fluxes through its sides, so
        # the sum over the columns telescopes to the flux through the walls, which is 0: the
        # volume is kept to rounding. Each of the few steps rounds each column's height once, a
        # few units of 1e-16 of it, and numpy sums pairwise (error growing as log2 of the cell
        # count): 1e-12 of the volume is far above both, and far below any real loss.
        relative = abs(final / first - 1.0)
        print(f"{name}: height-field volume {first!r} -> {final!r} (relative change "
              f"{relative:.2g})")
        if relative > 1e-12:
            fail(f"the height field's volume changed by {relative:.3g} of itself in "
                 f"{len(steps)} steps; it is kept to rounding")


def same(path_a, path_b):
    with h5py.File(path_a, "r") as a, h5py.File(path_b, "r") as b:
        for attribute in ("step", "time"):
            if list(a.attrs[attribute]) != list(b.attrs[attribute]):
                fail(f"{attribute}: {a.attrs[attribute]} against {b.attrs[attribute]}")
        names_a, names_b = [], []
        a.visititems(lambda n, o: names_a.append(n) if isinstance(o, h5py.Dataset) else None)
        b.visititems(lambda n, o: names_b.append(n) if isinstance(o, h5py.Dataset) else None)
        if sorted(names_a) != sorted(names_b):
            fail(f"datasets differ: {sorted(set(names_a) ^ set(names_b))}")
        compared = 0
        common = sorted(set(names_a) & set(names_b))
        # Marker particles are a set: their order in a frame is the order they reached their
        # rank in (a restart hands each rank an even share of the checkpoint's and migrates
        # them), which no step depends on. The set must be the same, each particle bit for bit.
        particles = [n for n in common if n.startswith("particles/")]
        if particles:
            x, y = (numpy.column_stack([numpy.array(f[n]).reshape(len(f[n]), -1)
                                        for n in particles]) for f in (a, b))
            x, y = (z[numpy.lexsort(z.T[::-1])] for z in (x, y))
            if x.shape != y.shape or x.tobytes() != y.tobytes():
                fail(f"the marker particles differ ({', '.join(particles)}, as sets)")
            compared += len(particles)
        for name in common:
            if a[name].dtype.kind == "S" or name in particles:
                continue  # the job's text; the runs' own command lines are attributes
            x, y = numpy.array(a[name]), numpy.array(b[name])
            # Bit for bit: the same shape and the same bytes (so -0.0 against 0.0 differs too).
            if x.shape != y.shape or x.tobytes() != y.tobytes():
                where = "" if x.shape != y.shape else \
                    f", largest difference {numpy.abs(x.astype(float) - y.astype(float)).max():.3g}"
                fail(f"/{name} differs{where}")
            compared += 1
        print(f"{compared} datasets compared")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "plan":
        plan(sys.argv[2])
        sys.exit(0)
    if len(sys.argv) == 5 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3], float(sys.argv[4]))
        finish("check")
    if len(sys.argv) == 4 and sys.argv[1] == "same":
        same(sys.argv[2], sys.argv[3])
        finish("same")
    print(__doc__, file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main()
