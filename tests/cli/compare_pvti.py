#!/usr/bin/python3
"""compare_pvti.py PVTI FRAME.h5 RANKS SOLID_CELLS

Checks a Catalyst .pvti extract against the solver's own HDF5 frame of the same step: the whole
extent is the grid, the pieces (one per rank) tile it exactly (no cell twice, none missing), and
every array holds exactly the frame's values (velocity at cell centres, every scalar, pressure,
the solid mask: the frame's cell-centred datasets, by their `centring` attribute);
the solid mask marks SOLID_CELLS cells. Exit 0 if all holds, 1 with the reason otherwise."""
import sys
import xml.etree.ElementTree as ElementTree

import h5py
import numpy
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLPImageDataReader


def fail(message):
    print("compare_pvti: " + message)
    sys.exit(1)


def main():
    pvti, frame_path, ranks, solid_cells = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with h5py.File(frame_path, "r") as frame:
        cells = [int(n) for n in frame.attrs["cells"]]  # x, y, z
        # Every cell-centred dataset, as each says of itself (the solid mask included; not the
        # job's text, nor the face values in /face_velocity).
        fields = {name: numpy.array(frame[name]) for name in frame
                  if isinstance(frame[name], h5py.Dataset)
                  and frame[name].attrs.get("centring") == b"cell"}
    if "solid" not in fields:
        fail("the frame has no solid mask")

    # The pieces, as the writer lists them: disjoint boxes that cover the grid.
    root = ElementTree.parse(pvti).getroot()
    image = root.find("PImageData")
    whole = [int(v) for v in image.get("WholeExtent").split()]
    if whole != [0, cells[0], 0, cells[1], 0, cells[2]]:
        fail(f"whole extent {whole}, expected the grid {cells}")
    pieces = [[int(v) for v in piece.get("Extent").split()] for piece in image.findall("Piece")]
    if len(pieces) != ranks:
        fail(f"{len(pieces)} pieces for {ranks} ranks")
    count = numpy.zeros(cells[::-1], dtype=int)
    for e in pieces:
        count[e[4]:e[5], e[2]:e[3], e[0]:e[1]] += 1
    if count.min() != 1 or count.max() != 1:
        fail(f"pieces do not tile the grid: cells covered {count.min()} to {count.max()} times")

    reader = vtkXMLPImageDataReader()
    reader.SetFileName(pvti)
    reader.Update()
    data = reader.GetOutput()
    if list(data.GetExtent()) != whole or data.GetNumberOfCells() != numpy.prod(cells):
        fail(f"read back extent {data.GetExtent()} with {data.GetNumberOfCells()} cells")
    cell_data = data.GetCellData()
    if cell_data.GetArray("vtkGhostType") is not None:
        fail("the extract carries ghost marks")
    shape = tuple(cells[::-1])
    for name, expected in fields.items():
        array = cell_data.GetArray(name)
        if array is None:
            fail(f"array {name} missing from the extract")
        values = vtk_to_numpy(array).reshape(expected.shape)
        if not numpy.array_equal(values, expected):
            worst = numpy.abs(values - expected).max()
            fail(f"{name} differs from the frame (max difference {worst:g})")
    solid = vtk_to_numpy(cell_data.GetArray("solid")).reshape(shape)
    if int(numpy.count_nonzero(solid)) != solid_cells:
        fail(f"solid marks {numpy.count_nonzero(solid)} cells, the solver has {solid_cells}")
    print(f"compare_pvti: {pvti}: {len(pieces)} pieces tile {cells}; "
          f"{', '.join(sorted(fields))} equal the frame; {solid_cells} solid cells")


if __name__ == "__main__":
    main()
