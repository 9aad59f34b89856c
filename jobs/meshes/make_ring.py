#!/usr/bin/env python3
"""Writes ring.obj, the obstacle of jobs/plume_through_ring_3d.yaml: a torus (major radius 1,
minor radius 0.3, about the y axis through the origin) of 64 x 24 quadrilaterals, each split into
two triangles, in Wavefront OBJ. Any closed triangle mesh will do for an obstacle (STL, OBJ, PLY,
...); this one is generated so that the repository carries its source.

usage: make_ring.py [output.obj]
"""
import math
import sys

MAJOR, MINOR = 1.0, 0.3
AROUND, ACROSS = 64, 24  # segments round the ring and round its tube


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "ring.obj"
    lines = ["# A torus: major radius %g, minor radius %g, axis y (make_ring.py)" % (MAJOR, MINOR)]
    for i in range(AROUND):
        u = 2 * math.pi * i / AROUND
        for j in range(ACROSS):
            v = 2 * math.pi * j / ACROSS
            r = MAJOR + MINOR * math.cos(v)
            lines.append("v %.6f %.6f %.6f" % (r * math.cos(u), MINOR * math.sin(v), r * math.sin(u)))

    def vertex(i, j):  # OBJ counts from 1
        return (i % AROUND) * ACROSS + (j % ACROSS) + 1

    for i in range(AROUND):
        for j in range(ACROSS):
            a, b = vertex(i, j), vertex(i + 1, j)
            c, d = vertex(i + 1, j + 1), vertex(i, j + 1)
            lines.append("f %d %d %d" % (a, b, c))
            lines.append("f %d %d %d" % (a, c, d))
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
