#!/usr/bin/python3
"""stablefluids_export end to end, read back with the libraries' own tools.

Runs three tiny jobs (tests/io/export_smoke.yaml: smoke, 3-D; export_liquid.yaml: a drop over
a pool, 3-D; export_flat_2d.yaml: smoke, 2-D), exports their frames on 1 and 2 ranks, and checks
against what h5py reads from the same frames:
  - vdb_print -l (OpenVDB's tool): every grid's name, class, active voxel count and bounding
    box are the frame's (the count and the index bounds of its non-zero cells; for phi, of the
    narrow band |phi| < 3 h);
  - pyopenvdb: every voxel, active or not, holds the frame's value rounded to float32 exactly
    (0 outside a volume; +-3 h outside the level set's band, with the sign of phi), and the
    transform puts voxel (0, 0, 0) on the first cell's centre;
  - assimp info (Open Asset Import's tool): the PLY's vertex and face counts and bounding box
    are those its header and its data give; the OBJ holds the same points and faces;
  - numpy, on the PLY: at every vertex the frame's phi, trilinearly interpolated, is zero up to
    the float32 rounding of the vertex's position; every mesh edge belongs to exactly two
    triangles except on the outermost planes of cell centres (where the pool meets the walls),
    and the drop's part of the mesh is closed; the triangles turn out of the liquid;
  - the files of the 1-rank and the 2-rank exports are the same bytes (a .vdb's header holds a
    UUID that OpenVDB draws at random for every file it writes: those 36 bytes aside);
  - errors: a missing index, a field the frames do not hold, a surface of a smoke run or of a
    2-D run stop with status 2 and say so; a frame file removed under a 2-rank export fails
    that frame alone, naming it, with status 1, and no rank hangs.

usage: export_test.py <stablefluids> <stablefluids_export> <mpiexec> <source dir>
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

try:
    import pyopenvdb
except ImportError:
    pyopenvdb = None

solver, exporter, mpiexec, source = sys.argv[1:5]
missing = [what for what, there in (("vdb_print", shutil.which("vdb_print")),
                                     ("assimp", shutil.which("assimp")),
                                     ("pyopenvdb", pyopenvdb)) if not there]
if missing:
    print("FAIL: missing %s: install libopenvdb-tools python3-openvdb assimp-utils (the packages "
          "cmake/bootstrap.sh lists)" % ", ".join(missing))
    sys.exit(1)
started = time.time()
passed = failed = 0


def check(what, ok, details=""):
    global passed, failed
    print(("PASS: " if ok else "FAIL: ") + what + ("" if ok or not details else "\n    " +
                                                   str(details)[:2000]))
    passed, failed = passed + bool(ok), failed + (not ok)
    return ok


def run(command, cwd):
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False,
                          timeout=120)


def mpirun(ranks, command, cwd):
    return run([mpiexec, "-n", str(ranks), "--oversubscribe"] + command, cwd)


work = tempfile.mkdtemp(prefix="export_test_")
jobs = {"smoke": "export_smoke", "liquid": "export_liquid", "flat": "export_flat_2d"}
for key, job in jobs.items():
    result = mpirun(2, [solver, os.path.join(source, "tests", "io", job + ".yaml"),
                        "--set", "output.directory=" + key], work)
    if not check("the %s job runs (status %d)" % (job, result.returncode),
                 result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]):
        sys.exit(1)


def index_of(key):
    return os.path.join(work, key, jobs[key] + ".xmf")


def frames_of(key):
    return sorted(f for f in os.listdir(os.path.join(work, key)) if re.match(r".*_\d{6}\.h5$", f))


def export(ranks, key, out, *options):
    result = mpirun(ranks, [exporter, index_of(key), "--output", out] + list(options), work)
    check("export of %s on %d rank(s) %s: status 0" % (key, ranks, " ".join(options)),
          result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:])
    return result


# --- exports ----------------------------------------------------------------------------------
for ranks in (1, 2):
    result = export(ranks, "smoke", "out%d/smoke" % ranks, "--fields",
                    "density,temperature,velocity")
    check("rank 0 reports every frame done (%d ranks)" % ranks,
          "[4/4]" in result.stdout and "done: 4 frames" in result.stdout, result.stdout)
    export(ranks, "liquid", "out%d/liquid" % ranks)
export(1, "liquid", "out1/liquid_obj", "--surface", "obj", "--fields", "none", "--frames", "1:2")
export(1, "flat", "out1/flat", "--fields", "density,velocity")


# --- the frames, as h5py reads them -----------------------------------------------------------
class Frame:
    def __init__(self, path):
        with h5py.File(path, "r") as f:
            self.dim = int(f.attrs["dimension"][0])
            self.origin = np.array(f.attrs["origin"], dtype=np.float64)
            self.spacing = np.array(f.attrs["spacing"], dtype=np.float64)
            self.data = {name: f[name][...] for name in f if isinstance(f[name], h5py.Dataset)
                         and name != "job"}
        if self.dim == 2:  # as the exporter places a 2-D run: one voxel at z = 0
            self.origin = np.append(self.origin, -0.5 * self.spacing[0])
            self.spacing = np.append(self.spacing, self.spacing[0])
            self.data = {k: v[np.newaxis] for k, v in self.data.items()}
        self.h = float(self.spacing.min() if self.dim == 3 else self.spacing[:2].min())

    def xyz(self, name):
        """The dataset in x, y, z order (pyopenvdb's copyToArray order)."""
        a = self.data[name]
        return np.transpose(a, (2, 1, 0, 3) if a.ndim == 4 else (2, 1, 0))


def expected_grid(frame, name):
    """What the exporter should store: the active mask, the values everywhere, the class."""
    values = frame.xyz(name)
    if name == "velocity":
        active = np.any(values != 0.0, axis=3)
        return active, np.where(active[..., None], values, 0.0).astype(np.float32), "unknown"
    if name == "phi" and frame.dim == 3:
        band = np.float64(3.0 * frame.h)
        active = np.abs(values) < band
        outside = np.where(values < 0.0, -np.float32(band), np.float32(band))
        return active, np.where(active, values.astype(np.float32), outside), "level set"
    active = values != 0.0
    stored = values[active]
    fog = stored.size == 0 or (stored.min() >= 0.0 and stored.max() <= 1.0)
    return (active, np.where(active, values, 0.0).astype(np.float32),
            "fog volume" if fog else "unknown")


def vdb_print(path):
    """Each grid's name, class, active voxel count and bounding box, as vdb_print -l says."""
    text = run(["vdb_print", "-l", path], work).stdout
    grids = {}
    for block in re.split(r"\n(?=Name: )", text)[1:]:
        name = re.search(r"Name: (\S+)", block).group(1)
        count = int(re.search(r"Number of active voxels:\s+([\d,]+)", block).group(1)
                    .replace(",", ""))
        box = re.search(r"Bounding box of active voxels: \[(.*?)\] -> \[(.*?)\]", block)
        bounds = None if count == 0 or not box else (
            tuple(int(v) for v in box.group(1).split(",")),
            tuple(int(v) for v in box.group(2).split(",")))
        found = re.search(r"^\s*class: (.+)$", block, re.M)
        grids[name] = {"count": count, "bounds": bounds,
                       "class": found.group(1).strip() if found else "unknown"}
    return grids


def active_mask(grid, shape):
    """The active voxels (and tiles) of a pyopenvdb grid as a boolean array of `shape`."""
    mask = np.zeros(shape, dtype=bool)
    outside = 0
    for item in grid.citerOnValues():
        lo, hi = item["min"], item["max"]
        if min(lo) < 0 or any(hi[a] >= shape[a] for a in range(3)):
            outside += 1
        mask[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1] = True
    return mask, outside


def check_vdb(key, out, fields):
    for name in frames_of(key):
        frame = Frame(os.path.join(work, key, name))
        path = os.path.join(work, out, name[:-3] + ".vdb")
        if not check("%s exists" % path, os.path.exists(path)):
            continue
        printed = vdb_print(path)
        grids, meta = pyopenvdb.readAll(path)
        check("%s: grids %s, in that order" % (name, fields), [g.name for g in grids] == fields,
              [g.name for g in grids])
        shape = frame.xyz(fields[0]).shape[:3]
        for grid in grids:
            active, values, grid_class = expected_grid(frame, grid.name)
            where = np.argwhere(active)
            bounds = (None if where.size == 0 else
                      (tuple(int(v) for v in where.min(0)), tuple(int(v) for v in where.max(0))))
            seen = printed.get(grid.name, {})
            check("%s %s: vdb_print: %d active voxels, bounds %s, class %s" %
                  (name, grid.name, active.sum(), bounds, grid_class),
                  seen.get("count") == int(active.sum()) and seen.get("bounds") == bounds and
                  seen.get("class") == grid_class, seen)
            mask, outside = active_mask(grid, shape)
            check("%s %s: the active voxels are exactly the frame's cells" % (name, grid.name),
                  outside == 0 and np.array_equal(mask, active))
            dense = np.zeros(values.shape, dtype=np.float32)
            grid.copyToArray(dense, ijk=(0, 0, 0))
            bad = int(np.count_nonzero(dense != values))
            check("%s %s: every voxel is the frame's value as float32 (%d differ)" %
                  (name, grid.name, bad), bad == 0)
            centre = frame.origin + 0.5 * frame.spacing
            placed = np.array(grid.transform.indexToWorld((0, 0, 0)))
            size = np.array(grid.transform.voxelSize())
            check("%s %s: voxel (0,0,0) at the first cell's centre %s, voxel size %s" %
                  (name, grid.name, centre, frame.spacing),
                  np.allclose(placed, centre, rtol=0, atol=1e-12) and
                  np.allclose(size, frame.spacing, rtol=1e-12, atol=0), (placed, size))
        check("%s: file metadata names the frame" % name, meta.get("source") == name, meta)


check_vdb("smoke", "out1/smoke", ["density", "temperature", "velocity"])
check_vdb("liquid", "out1/liquid", ["phi"])
check_vdb("flat", "out1/flat", ["density", "velocity"])


# --- the surface meshes -----------------------------------------------------------------------
def read_ply(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().splitlines()
    vertices = int(next(l for l in header if l.startswith("element vertex")).split()[-1])
    faces = int(next(l for l in header if l.startswith("element face")).split()[-1])
    points = np.frombuffer(data, dtype="<f4", count=3 * vertices, offset=end).reshape(-1, 3)
    records = np.frombuffer(data, dtype=np.dtype([("n", "u1"), ("i", "<u4", 3)]), count=faces,
                            offset=end + 12 * vertices)
    return header, points, records


def assimp_info(path):
    text = run(["assimp", "info", path, "-r"], work).stdout
    number = lambda label: int(re.search(label + r":\s+(\d+)", text).group(1))  # noqa: E731
    point = lambda label: np.array([float(v) for v in re.search(  # noqa: E731
        label + r" point\s+\((.*?)\)", text).group(1).split()])
    return number("Vertices"), number("Faces"), point("Minimum"), point("Maximum")


def trilinear(frame, points):
    """phi at `points`, trilinear between the cell centres about each."""
    phi = frame.data["phi"]
    cells = np.array(phi.shape[::-1])
    u = (points - frame.origin) / frame.spacing - 0.5
    i = np.clip(np.floor(u).astype(int), 0, cells - 2)
    f = u - i
    value = np.zeros(len(points))
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                value += ((f[:, 0] if dx else 1 - f[:, 0]) * (f[:, 1] if dy else 1 - f[:, 1]) *
                          (f[:, 2] if dz else 1 - f[:, 2]) *
                          phi[i[:, 2] + dz, i[:, 1] + dy, i[:, 0] + dx])
    return value


def slopes(frame, points):
    """A bound on |d phi / dx_a| of the interpolant near each point: within a cell (of the
    lattice of cell centres) the derivative along an axis is a mean of the differences along
    the cell's four edges of that axis, so the largest of these over the cell that holds the
    point and its neighbours (a rounded point may lie in the next cell) bounds it."""
    phi = frame.data["phi"]
    cells = np.array(phi.shape[::-1])
    i = np.clip(np.floor((points - frame.origin) / frame.spacing - 0.5).astype(int), 0,
                cells - 2)
    bound = np.zeros((len(points), 3))
    for a in range(3):
        per_cell = np.abs(np.diff(phi, axis=2 - a))
        for other in range(3):  # the four edges of each cell
            if other != 2 - a:
                per_cell = np.maximum(per_cell.take(range(0, per_cell.shape[other] - 1), other),
                                      per_cell.take(range(1, per_cell.shape[other]), other))
        padded = np.pad(per_cell, 1, mode="edge")
        near = np.zeros_like(per_cell)
        for dz in (0, 1, 2):
            for dy in (0, 1, 2):
                for dx in (0, 1, 2):
                    near = np.maximum(near, padded[dz:dz + per_cell.shape[0],
                                                   dy:dy + per_cell.shape[1],
                                                   dx:dx + per_cell.shape[2]])
        bound[:, a] = near[i[:, 2], i[:, 1], i[:, 0]] / frame.spacing[a]
    return bound


def check_mesh(frame, name, points, faces):
    # Each vertex is exact in double on its cell edge, then rounded to float32: it moves by at
    # most half an ulp per coordinate, 2^-24 |x_a|, so |phi| there is at most
    # sum_a |d phi / dx_a| 2^-24 |x_a|, plus the rounding of the double arithmetic (a few ulps
    # of the largest |phi| in the cell, taken generously as 1e-12 of a cell).
    value = trilinear(frame, points.astype(np.float64))
    slope = slopes(frame, points.astype(np.float64))
    bound = (slope * np.abs(points.astype(np.float64)) * 2.0 ** -24).sum(1) + 1e-12 * frame.h
    worst = np.max(np.abs(value) / bound) if len(points) else 0.0
    check("%s: phi is 0 at every vertex to the float32 rounding of its position (worst %.2f "
          "of the bound, |phi| <= %.1e)" % (name, worst, np.abs(value).max(initial=0.0)),
          worst <= 1.0)
    # Edges: inside the domain each belongs to two triangles, one each way round.
    directed = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    undirected, counts = np.unique(np.sort(directed, axis=1), axis=0, return_counts=True)
    u = (points.astype(np.float64) - frame.origin) / frame.spacing - 0.5
    cells = np.array(frame.data["phi"].shape[::-1])
    on_wall = np.any((np.abs(u) < 1e-4) | (np.abs(u - (cells - 1)) < 1e-4), axis=1)
    open_edges = undirected[counts == 1]
    check("%s: no edge has more than two triangles, and only edges on the outermost planes of "
          "cell centres have one (%d of %d)" % (name, len(open_edges), len(undirected)),
          counts.max(initial=2) <= 2 and np.all(on_wall[open_edges]))
    check("%s: the triangles are consistently wound (no directed edge twice)" % name,
          len(np.unique(directed, axis=0)) == len(directed))
    # The drop (above y = 0.45 at these times) touches no wall: its edges are all shared.
    drop = np.all(points[faces][:, :, 1] > 0.45, axis=1)
    drop_edges = np.unique(np.sort(np.concatenate(
        [faces[drop][:, [0, 1]], faces[drop][:, [1, 2]], faces[drop][:, [2, 0]]]), axis=1),
        axis=0)
    shared = {tuple(e) for e in undirected[counts == 2]}
    check("%s: the drop's surface is closed (%d triangles, every edge shared by two)" %
          (name, drop.sum()), drop.sum() > 0 and all(tuple(e) in shared for e in drop_edges))
    # Outward: the right-hand normals point up phi's gradient (out of the liquid).
    a, b, c = (points[faces[:, n]].astype(np.float64) for n in range(3))
    normals = np.cross(b - a, c - a)
    centroid = (a + b + c) / 3.0
    step = 1e-3 * frame.h
    gradient = np.stack([(trilinear(frame, centroid + step * e) -
                          trilinear(frame, centroid - step * e)) / (2 * step)
                         for e in np.eye(3)], axis=1)
    dots = np.einsum("ij,ij->i", normals, gradient)
    big = np.linalg.norm(normals, axis=1) > 1e-6 * frame.h ** 2
    check("%s: every triangle's normal points out of the liquid (%d of %d against)" %
          (name, np.count_nonzero(dots[big] <= 0.0), big.sum()), np.all(dots[big] > 0.0))


for name in frames_of("liquid"):
    frame = Frame(os.path.join(work, "liquid", name))
    path = os.path.join(work, "out1", "liquid", name[:-3] + ".ply")
    if not check("%s exists" % path, os.path.exists(path)):
        continue
    header, points, records = read_ply(path)
    faces = records["i"].astype(np.int64)
    check("%s: binary little-endian PLY of triangles" % path,
          header[1] == "format binary_little_endian 1.0" and np.all(records["n"] == 3))
    vertices, triangles, low, high = assimp_info(path)
    check("%s: assimp reads %d vertices and %d faces (the file's %d and %d)" %
          (name, vertices, triangles, len(points), len(faces)),
          vertices == len(points) and triangles == len(faces))
    check("%s: assimp's bounding box is the points' (%s to %s)" % (name, low, high),
          np.allclose(low, points.min(0), atol=2e-6) and
          np.allclose(high, points.max(0), atol=2e-6))
    check_mesh(frame, name, points, faces)

for name in frames_of("liquid")[1:3]:
    _, points, records = read_ply(os.path.join(work, "out1", "liquid", name[:-3] + ".ply"))
    obj = os.path.join(work, "out1", "liquid_obj", name[:-3] + ".obj")
    with open(obj, encoding="ascii") as f:
        lines = f.read().splitlines()
    v = np.array([[float(x) for x in l.split()[1:]] for l in lines if l.startswith("v ")],
                 dtype=np.float32)
    f = np.array([[int(x) - 1 for x in l.split()[1:]] for l in lines if l.startswith("f ")])
    vertices, triangles, low, high = assimp_info(obj)
    # Open Asset Import's OBJ reader gives every corner of a face a vertex of its own.
    check("%s: the OBJ holds the PLY's points and triangles, and assimp reads %d faces, %d "
          "corners, bounds %s to %s" % (name, triangles, vertices, low, high),
          np.array_equal(v, points) and np.array_equal(f, records["i"]) and
          triangles == len(f) and vertices == 3 * len(f) and
          np.allclose(low, v.min(0), atol=2e-6) and np.allclose(high, v.max(0), atol=2e-6))
check("--fields none --surface obj wrote no .vdb, and --frames 1:2 two frames",
      sorted(os.listdir(os.path.join(work, "out1", "liquid_obj"))) ==
      sorted(n[:-3] + ".obj" for n in frames_of("liquid")[1:3]))

# --- 1 rank and 2 ranks: the same files -------------------------------------------------------
UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
compared = 0
for key in ("smoke", "liquid"):
    one, two = (os.path.join(work, "out%d" % r, key) for r in (1, 2))
    names = sorted(os.listdir(one))
    check("%s: the same files from 1 and 2 ranks, none left as .tmp (%d)" % (key, len(names)),
          names == sorted(os.listdir(two)) and not any(n.endswith(".tmp") for n in names))
    for n in names:
        with open(os.path.join(one, n), "rb") as f:
            a = f.read()
        with open(os.path.join(two, n), "rb") as f:
            b = f.read()
        if n.endswith(".vdb"):
            # OpenVDB's header: magic (8 bytes), file version (4), library version (4 + 4),
            # grid offsets flag (1), then the file's random UUID as 36 characters.
            same = (len(a) == len(b) and a[:21] == b[:21] and a[57:] == b[57:] and
                    UUID.fullmatch(a[21:57]) is not None and UUID.fullmatch(b[21:57]) is not None)
        else:
            same = a == b
        compared += same
        check("%s: 1-rank and 2-rank %s are the same bytes%s" %
              (key, n, " but the UUID" if n.endswith(".vdb") else ""), same)
check("compared files (%d)" % compared, compared >= 12)

# --- errors -----------------------------------------------------------------------------------
def refused(what, command, status, message, ranks=2):
    result = mpirun(ranks, command, work)
    check("%s: status %d and the message says '%s'" % (what, status, message),
          result.returncode == status and message in result.stderr,
          "status %d: %s" % (result.returncode, result.stderr[-1500:]))
    return result


refused("a missing index", [exporter, "nowhere/run.xmf", "--output", "x"], 2,
        "nowhere/run.xmf: no such file")
refused("an unknown field", [exporter, index_of("smoke"), "--output", "x", "--fields",
                             "density,smoke"], 2,
        "no field 'smoke' in %s; its frames hold velocity, density, temperature, pressure, "
        "solid" % index_of("smoke"))
refused("a surface of a smoke run", [exporter, index_of("smoke"), "--output", "x", "--surface",
                                     "ply"], 2, "hold no level set ('phi'")
refused("a surface of a 2-D run", [exporter, index_of("flat"), "--output", "x", "--surface",
                                   "obj"], 2, "is a 2-D run: a surface mesh needs a 3-D one")
refused("not a frame index", [exporter, os.path.join(work, "liquid", "export_liquid_000000.h5"),
                              "--output", "x"], 2, "is not a stablefluids frame index")
broken = os.path.join(work, "broken")
shutil.copytree(os.path.join(work, "liquid"), broken)
os.remove(os.path.join(broken, "export_liquid_000002.h5"))
start = time.time()
result = refused("a frame removed under a 2-rank export",
                 [exporter, os.path.join(broken, "export_liquid.xmf"), "--output", "broken_out"],
                 1, "export_liquid_000002.h5: cannot open it as HDF5")
check("... the others are written, and it ends at once (%.1f s)" % (time.time() - start),
      "1 of 4 frames failed" in result.stderr and time.time() - start < 30 and
      sorted(os.listdir(os.path.join(work, "broken_out"))) ==
      sorted("export_liquid_%06d.%s" % (n, e) for n in (0, 1, 3) for e in ("vdb", "ply")))

shutil.rmtree(work, ignore_errors=True)
print("%d passed, %d failed (%.1f s)" % (passed, failed, time.time() - started))
sys.exit(1 if failed or not passed else 0)
