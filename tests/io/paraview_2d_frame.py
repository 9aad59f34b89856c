#!/usr/bin/python3
"""A 2D run's frames, read back by ParaView's own readers, have x and y where they belong.

ParaView 5.11's XDMF readers put a 2DCoRectMesh's axes on their Y and Z; stablefluids indexes a
2D grid as a 3D one a cell thick (io/xdmf.cpp). This runs a small 2D job on 2 ranks and opens its
.xmf with each XDMF reader ParaView has (XDMF Reader, Xdmf3 Reader S and T), checking:
  - the bounds: x and y are the job's, z is one cell (dx) thick about z = 0;
  - a dye disc placed off-centre has its centroid where the job put it (x and y not swapped);
  - a uniform velocity (u, v) = (1, 0.5) read as (1, 0.5[, 0]) in every cell, and a Glyph
    filter's arrows along it, in the xy plane.

usage: paraview_2d_frame.py <stablefluids executable> <mpiexec>
"""
import os
import subprocess
import sys
import tempfile

from paraview import servermanager
from paraview.simple import CellCenters, Glyph, XDMFReader, Xdmf3ReaderS, Xdmf3ReaderT

exe, mpiexec = sys.argv[1], sys.argv[2]
passed = failed = 0


def check(what, ok):
    global passed, failed
    print(("PASS: " if ok else "FAIL: ") + what)
    passed, failed = passed + bool(ok), failed + (not ok)


def close(a, b, tolerance=1e-12):
    return all(abs(x - y) <= tolerance * max(1.0, abs(y)) for x, y in zip(a, b))


# 16 x 8 cells of 0.125 on [-1, 1] x [0.5, 1.5]; periodic, so the uniform flow stays uniform.
JOB = """name: flat
grid: {cells: [16, 8], size: [2.0, 1.0], origin: [-1.0, 0.5]}
boundary: {x: periodic, y: periodic}
velocity: {initial: {type: uniform, value: [1.0, 0.5]}}
scalars:
  density:
    initial: [{shape: sphere, center: [-0.5, 1.0], radius: 0.3, value: 1.0}]
time: {dt: 0.01, end: 0.01}
output: {directory: out, interval: 1.0, initial_frame: true}
"""
work = tempfile.mkdtemp()
with open(os.path.join(work, "flat.yaml"), "w", encoding="utf-8") as f:
    f.write(JOB)
run = subprocess.run([mpiexec, "-n", "2", "--oversubscribe", exe, "flat.yaml"], cwd=work,
                     capture_output=True, text=True, check=False)
check("the 2D job runs on 2 ranks (status %d)" % run.returncode, run.returncode == 0)
if run.returncode != 0:
    print(run.stdout[-3000:], run.stderr[-3000:])
    sys.exit(1)
xmf = os.path.join(work, "out", "flat.xmf")

readers = {
    "XDMF Reader": lambda: XDMFReader(FileNames=[xmf]),
    "Xdmf3 Reader S": lambda: Xdmf3ReaderS(FileName=xmf),
    "Xdmf3 Reader T": lambda: Xdmf3ReaderT(FileName=xmf),
}
h = 0.125
for name, make in readers.items():
    reader = make()
    reader.UpdatePipeline(0.0)
    data = servermanager.Fetch(reader)
    while data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    bounds = data.GetBounds()
    check("%s: bounds are x [-1, 1], y [0.5, 1.5], z one cell about 0 (got %s)" % (name, bounds),
          close(bounds, (-1.0, 1.0, 0.5, 1.5, -h / 2, h / 2)))
    cells = data.GetCellData()
    density, velocity = cells.GetArray("density"), cells.GetArray("velocity")
    check("%s: 128 cells with density and velocity" % name,
          data.GetNumberOfCells() == 128 and density is not None and velocity is not None)
    if density is None or velocity is None:
        continue
    mass, centroid = 0.0, [0.0, 0.0, 0.0]
    bad_velocity = 0
    for c in range(data.GetNumberOfCells()):
        box = data.GetCell(c).GetBounds()
        centre = [(box[0] + box[1]) / 2, (box[2] + box[3]) / 2, (box[4] + box[5]) / 2]
        d = density.GetTuple1(c)
        mass += d
        centroid = [centroid[a] + d * centre[a] for a in range(3)]
        u = velocity.GetTuple(c)
        if not close(u[:2], (1.0, 0.5), 1e-9) or any(abs(w) > 1e-12 for w in u[2:]):
            bad_velocity += 1
    centroid = [x / mass for x in centroid] if mass > 0 else centroid
    # The initial frame's disc is symmetric about its centre on this grid (a cell corner), so its
    # centroid is the centre to rounding; a swap of the axes, or a shift by a cell, moves it.
    check("%s: the dye's centroid is the disc's centre (-0.5, 1.0) (got %s)" % (name, centroid),
          close(centroid, (-0.5, 1.0, 0.0), 1e-9))
    check("%s: the velocity is (1, 0.5) in every cell (%d differ)" % (name, bad_velocity),
          bad_velocity == 0)
    arrows = Glyph(Input=CellCenters(Input=reader), GlyphType="Line",
                   OrientationArray=["POINTS", "velocity"],
                   ScaleArray=["POINTS", "No scale array"], ScaleFactor=1.0,
                   GlyphMode="All Points")
    arrows.UpdatePipeline(0.0)
    lines = servermanager.Fetch(arrows)
    while lines.IsA("vtkMultiBlockDataSet"):
        lines = lines.GetBlock(0)
    # Each glyph is a line (a polyline of several points) from its cell's centre along the
    # velocity: its first and last points give its direction.
    along = 0
    for c in range(lines.GetNumberOfCells()):
        ids = lines.GetCell(c).GetPointIds()
        a, b = lines.GetPoint(ids.GetId(0)), lines.GetPoint(ids.GetId(ids.GetNumberOfIds() - 1))
        d = [b[k] - a[k] for k in range(3)]
        # parallel to (1, 0.5, 0): d_y = d_x / 2 and no z
        if abs(d[1] - 0.5 * d[0]) <= 1e-6 * abs(d[0]) and abs(d[2]) <= 1e-9 and abs(d[0]) > 0:
            along += 1
    check("%s: every one of the 128 glyphs points along (1, 0.5, 0) (%d of %d)"
          % (name, along, lines.GetNumberOfCells()),
          along == 128 and lines.GetNumberOfCells() == 128)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed or not passed else 0)
