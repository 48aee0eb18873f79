#!/usr/bin/env python3
"""Jaccard index of the occupied voxels of two maps, each given as a PLY of its occupied
voxels (voxen export --occupied-ply, ohm2ply --mode occupancy-centre): |A and B| / |A or B|
over voxel keys floor(p / resolution). Prints one JSON object. Pure Python (no numpy here).
"""
import argparse
import json
import math
import struct
import sys

TYPES = {"char": "b", "int8": "b", "uchar": "B", "uint8": "B", "short": "h", "int16": "h", "ushort": "H",
         "uint16": "H", "int": "i", "int32": "i", "uint": "I", "uint32": "I", "float": "f", "float32": "f",
         "double": "d", "float64": "d"}


def voxel_keys(path, resolution):
    with open(path, "rb") as f:
        data = f.read()
    end = data.find(b"end_header")
    if not data.startswith(b"ply") or end < 0:
        raise ValueError("not a PLY file (no ply magic or no end_header)")
    body = data.index(b"\n", end) + 1
    fmt = None
    elements = []  # (name, count, [(type, name)])
    for line in data[:end].decode("ascii", "replace").splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "format":
            fmt = w[1]
        elif w[0] == "element":
            elements.append((w[1], int(w[2]), []))
        elif w[0] == "property":
            if w[1] == "list":
                if elements and elements[0][0] == "vertex" and len(elements) == 1:
                    raise ValueError("list property in the vertex element is not supported")
                elements[-1][2].append(("list", w[-1]))
            else:
                elements[-1][2].append((w[1], w[2]))
    if not elements or elements[0][0] != "vertex":
        raise ValueError("the first element is not vertex")
    _, count, props = elements[0]
    names = [n for _, n in props]
    try:
        ix = [names.index(a) for a in "xyz"]
    except ValueError:
        raise ValueError("the vertex element has no x, y, z (it has: %s)" % ", ".join(names))
    keys = set()
    if fmt == "ascii":
        lines = data[body:].decode("ascii").split("\n")
        rows = (ln.split() for ln in lines[:count])
        for r in rows:
            keys.add(tuple(math.floor(float(r[i]) / resolution) for i in ix))
    elif fmt in ("binary_little_endian", "binary_big_endian"):
        row = ("<" if fmt == "binary_little_endian" else ">") + "".join(TYPES[t] for t, _ in props)
        size = struct.calcsize(row)
        if len(data) - body < size * count:
            raise ValueError("truncated: %d vertices need %d bytes, %d there" % (count, size * count, len(data) - body))
        for r in struct.iter_unpack(row, data[body:body + size * count]):
            keys.add((math.floor(r[ix[0]] / resolution), math.floor(r[ix[1]] / resolution),
                      math.floor(r[ix[2]] / resolution)))
    else:
        raise ValueError("unknown PLY format %r" % fmt)
    return keys


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--resolution", type=float, default=0.1)
    a = p.parse_args()
    if not (a.resolution > 0 and math.isfinite(a.resolution)):
        p.error("--resolution must be a finite number above 0")
    sets = []
    for path in (a.a, a.b):
        try:
            sets.append(voxel_keys(path, a.resolution))
        except (OSError, ValueError, KeyError, UnicodeDecodeError) as e:
            print("occupied_jaccard: %s: %s" % (path, e), file=sys.stderr)
            return 1
    inter = len(sets[0] & sets[1])
    union = len(sets[0] | sets[1])
    print(json.dumps({"a": len(sets[0]), "b": len(sets[1]), "both": inter,
                      "jaccard": inter / union if union else 1.0}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
