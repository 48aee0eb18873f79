#!/usr/bin/env python3
"""Voxen's heightmap beside OHM's ohmheightmap (issue 39): ground heights per cell and the time
each tool reports for the heightmap computation.

OHM side: the PLY that `ohm2ply --map HM.ohm --cloud HM.ply --mode heightmap --colour type` writes
(binary or ASCII; x, y, z per heightmap cell, z the absolute ground height; the colour tells a
real surface (32,255,32), a non-base layer of a layered map (that colour darkened), a virtual
surface (255,128,32) and a vacant cell (0,0,0) apart), and the stdout of ohmheightmap runs, which
print "Heightmap generated in 632.016ms" (logutil's format: s, ms, us or ns).
Voxen side: `voxen heightmap MAP --npy PREFIX`'s (or `voxen export HM --npy PREFIX`'s)
PREFIX-height.npy (float32 [levels, rows, cols], NaN where a cell has no level; row = y, column = x) and PREFIX.json (origin_x, origin_y: the lower
corner of cell (row 0, col 0); resolution; width = cols; height = rows; levels), and the stdout of
`voxen heightmap ... --json` runs, which carry "compute_ms".

Cells are matched by world xy: each Voxen cell centre and each OHM point go to the key
floor(x / resolution), floor(y / resolution). "Both report" = a real OHM surface and a finite
Voxen height of the chosen level in the same key. Prints a markdown table; --json writes the same
figures. Pure Python (numpy is not on every interpreter here), so it reads .npy and PLY itself.
"""
import argparse
import ast
import json
import math
import re
import statistics
import struct
import sys
from array import array

PLY_TYPES = {  # PLY scalar type -> struct code
    "char": "b", "int8": "b", "uchar": "B", "uint8": "B", "short": "h", "int16": "h",
    "ushort": "H", "uint16": "H", "int": "i", "int32": "i", "uint": "I", "uint32": "I",
    "float": "f", "float32": "f", "double": "d", "float64": "d",
}


def fail(msg):
    print(f"heightmap_compare.py: {msg}", file=sys.stderr)
    sys.exit(1)


def read_ply_vertices(path):
    """Returns (property names, list of tuples) of a PLY file's vertex element."""
    try:
        f = open(path, "rb")
    except OSError as e:
        fail(f"cannot read OHM heightmap cloud '{path}': {e.strerror}")
    with f:
        if f.readline().strip() != b"ply":
            fail(f"'{path}' is not a PLY file (no 'ply' first line)")
        fmt, elements, current = None, [], None
        while True:
            line = f.readline()
            if not line:
                fail(f"'{path}': the header has no end_header")
            words = line.decode("ascii", "replace").split()
            if not words or words[0] in ("comment", "obj_info"):
                continue
            if words[0] == "end_header":
                break
            if words[0] == "format":
                fmt = words[1]
            elif words[0] == "element":
                current = {"name": words[1], "count": int(words[2]), "props": []}
                elements.append(current)
            elif words[0] == "property":
                if current is None:
                    fail(f"'{path}': a property before any element")
                if words[1] == "list":
                    fail(f"'{path}': list property '{words[-1]}' in element '{current['name']}' is not supported")
                if words[1] not in PLY_TYPES:
                    fail(f"'{path}': unknown property type '{words[1]}'")
                current["props"].append((words[2], PLY_TYPES[words[1]]))
        if fmt not in ("binary_little_endian", "binary_big_endian", "ascii"):
            fail(f"'{path}': unsupported PLY format '{fmt}'")
        rows = None
        for el in elements:
            names = [p[0] for p in el["props"]]
            if fmt == "ascii":
                data = []
                for _ in range(el["count"]):
                    words = f.readline().split()
                    data.append(tuple(float(w) for w in words[:len(names)]))
            else:
                st = struct.Struct(("<" if fmt == "binary_little_endian" else ">") + "".join(p[1] for p in el["props"]))
                raw = f.read(st.size * el["count"])
                if len(raw) != st.size * el["count"]:
                    fail(f"'{path}': element '{el['name']}' is cut short ({len(raw)} of {st.size * el['count']} bytes)")
                data = list(st.iter_unpack(raw))
            if el["name"] == "vertex":
                rows = (names, data)
                break
        if rows is None:
            fail(f"'{path}': no vertex element")
        return rows


def read_ohm_heightmap(path, resolution, include_virtual):
    """OHM cells: key -> height of the real (and, if asked, virtual) surface; also counts by kind."""
    names, data = read_ply_vertices(path)
    for need in ("x", "y", "z"):
        if need not in names:
            fail(f"'{path}': the vertex element has no '{need}' property")
    ix, iy, iz = names.index("x"), names.index("y"), names.index("z")
    colour = all(c in names for c in ("red", "green", "blue"))
    if not colour:
        print(f"heightmap_compare.py: '{path}' has no colours (ohm2ply without --colour type): every point is "
              "taken as a real surface, virtual surfaces and vacant cells included", file=sys.stderr)
    ir, ig, ib = (names.index(c) for c in ("red", "green", "blue")) if colour else (0, 0, 0)
    counts = {"surface": 0, "surface_extended_layer": 0, "virtual": 0, "vacant": 0}
    cells = {}  # key -> (is_base, height)
    duplicates = 0
    for row in data:
        if colour:
            r, g, b = row[ir], row[ig], row[ib]
            if r == 0 and g == 0 and b == 0:
                counts["vacant"] += 1
                continue
            if g > r:  # ColourHeightmapType's surface colour (32,255,32), darkened x0.4 off the base layer
                base = g >= 200
                counts["surface" if base else "surface_extended_layer"] += 1
            else:      # its virtual colour (255,128,32)
                counts["virtual"] += 1
                if not include_virtual:
                    continue
                base = r >= 200
        else:
            base = True
            counts["surface"] += 1
        key = (math.floor(row[ix] / resolution), math.floor(row[iy] / resolution))
        old = cells.get(key)
        if old is not None:
            duplicates += 1
            # A layered map holds several voxels per column: keep the base layer, else the lowest.
            if (old[0], -old[1]) >= (base, -row[iz]):
                continue
        cells[key] = (base, row[iz])
    return {k: v[1] for k, v in cells.items()}, counts, duplicates, len(data)


def read_npy_float32(path):
    """(shape, array('f') in C order) of a float32 .npy file."""
    try:
        f = open(path, "rb")
    except OSError as e:
        fail(f"cannot read Voxen height array '{path}': {e.strerror}")
    with f:
        magic = f.read(8)
        if magic[:6] != b"\x93NUMPY":
            fail(f"'{path}' is not a .npy file (bad magic)")
        major = magic[6]
        hlen = struct.unpack("<H" if major == 1 else "<I", f.read(2 if major == 1 else 4))[0]
        try:
            header = ast.literal_eval(f.read(hlen).decode("latin1"))
        except (ValueError, SyntaxError):
            fail(f"'{path}': unreadable .npy header")
        descr, shape = header.get("descr"), tuple(header.get("shape", ()))
        if descr not in ("<f4", ">f4", "|f4"):
            fail(f"'{path}': dtype {descr!r}, expected float32 ('<f4')")
        if header.get("fortran_order"):
            fail(f"'{path}': Fortran order is not supported")
        if len(shape) != 3:
            fail(f"'{path}': shape {shape}, expected [levels, rows, cols]")
        values = array("f")
        count = shape[0] * shape[1] * shape[2]
        raw = f.read(4 * count)
        if len(raw) != 4 * count:
            fail(f"'{path}': {len(raw)} bytes of data, shape {shape} needs {4 * count}")
        values.frombytes(raw)
        if (descr[0] == ">") != (sys.byteorder == "big"):
            values.byteswap()
        return shape, values


def read_voxen_heightmap(prefix, level):
    meta_path = prefix + ".json"
    try:
        with open(meta_path) as f:
            meta = json.load(f)
    except OSError as e:
        fail(f"cannot read Voxen heightmap metadata '{meta_path}': {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"'{meta_path}': not JSON ({e})")
    for field in ("origin_x", "origin_y", "resolution", "width", "height", "levels"):
        if field not in meta:
            fail(f"'{meta_path}': no field '{field}'")
    shape, values = read_npy_float32(prefix + "-height.npy")
    levels, rows, cols = shape
    if (levels, rows, cols) != (int(meta["levels"]), int(meta["height"]), int(meta["width"])):
        fail(f"'{prefix}-height.npy' has shape {shape} but '{meta_path}' says levels {meta['levels']}, "
             f"height {meta['height']}, width {meta['width']}")
    if not 0 <= level < levels:
        fail(f"--level {level}: the Voxen heightmap has {levels} level(s)")
    res, ox, oy = float(meta["resolution"]), float(meta["origin_x"]), float(meta["origin_y"])
    if not res > 0:
        fail(f"'{meta_path}': resolution {meta['resolution']} is not positive")
    for name, o in (("origin_x", ox), ("origin_y", oy)):
        if abs(o / res - round(o / res)) > 1e-3:
            print(f"heightmap_compare.py: '{meta_path}': {name} {o} is not a multiple of the resolution {res}: "
                  "Voxen's cells straddle OHM's (whose faces lie on multiples of it), cells are matched by "
                  "the key holding each Voxen cell centre", file=sys.stderr)
    cells = {}
    base = level * rows * cols
    for r in range(rows):
        cy = oy + (r + 0.5) * res
        ky = math.floor(cy / res)
        off = base + r * cols
        for c in range(cols):
            h = values[off + c]
            if h == h:  # not NaN
                cells[(math.floor((ox + (c + 0.5) * res) / res), ky)] = float(h)
    return cells, res, meta


DURATION = re.compile(r"Heightmap generated in\s+(-?[0-9][0-9,]*(?:\.[0-9]+)?)\s*(ns|us|ms|s)\b")
UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1000.0}


def ohm_time_ms(path):
    try:
        text = open(path, errors="replace").read()
    except OSError as e:
        fail(f"cannot read ohmheightmap log '{path}': {e.strerror}")
    m = DURATION.search(text)
    if not m:
        fail(f"'{path}': no 'Heightmap generated in <time>' line (not an ohmheightmap log?)")
    return float(m.group(1).replace(",", "")) * UNIT_MS[m.group(2)]


def find_key(obj, key):
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        for v in obj.values():
            found = find_key(v, key)
            if found is not None:
                return found
    elif isinstance(obj, list):
        for v in obj:
            found = find_key(v, key)
            if found is not None:
                return found
    return None


def voxen_time_ms(path):
    try:
        text = open(path).read()
    except OSError as e:
        fail(f"cannot read voxen heightmap --json output '{path}': {e.strerror}")
    # The JSON object is the whole stdout; tolerate lines before it.
    start = text.find("{")
    try:
        obj = json.loads(text[start:]) if start >= 0 else None
    except json.JSONDecodeError as e:
        fail(f"'{path}': not JSON ({e})")
    ms = find_key(obj, "compute_ms")
    if not isinstance(ms, (int, float)):
        fail(f"'{path}': no numeric 'compute_ms' field")
    return float(ms)


def percentile(sorted_values, q):
    if not sorted_values:
        return None
    i = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[i]


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ohm", required=True, help="ohm2ply --mode heightmap --colour type output (PLY)")
    ap.add_argument("--voxen", help="PREFIX given to voxen heightmap/export --npy (reads PREFIX-height.npy, PREFIX.json)")
    ap.add_argument("--ohm-log", nargs="*", default=[], help="ohmheightmap stdout logs (one per run)")
    ap.add_argument("--voxen-json", nargs="*", default=[], help="voxen heightmap --json stdout files (one per run)")
    ap.add_argument("--resolution", type=float, help="cell size in metres (default: the Voxen JSON's; needed without --voxen)")
    ap.add_argument("--level", type=int, default=0, help="the Voxen level compared (default 0)")
    ap.add_argument("--tolerance", type=float, help="|dz| counted as agreeing (default: one voxel, the resolution)")
    ap.add_argument("--include-virtual", action="store_true", help="count OHM's virtual surfaces as cells it reports")
    ap.add_argument("--worst", type=int, default=10, help="cells with the largest |dz| listed in --json (default 10)")
    ap.add_argument("--json", help="also write the figures as JSON")
    a = ap.parse_args()

    voxen_cells, res, meta = None, a.resolution, None
    if a.voxen:
        voxen_cells, vres, meta = read_voxen_heightmap(a.voxen, a.level)
        if res is not None and abs(res - vres) > 1e-9:
            fail(f"--resolution {res} differs from the Voxen heightmap's {vres}")
        res = vres
    if res is None or not res > 0:
        fail("--resolution (a positive number of metres) is needed without --voxen")
    tol = res if a.tolerance is None else a.tolerance
    ohm_cells, ohm_counts, ohm_dups, ohm_points = read_ohm_heightmap(a.ohm, res, a.include_virtual)

    out = {"resolution": res, "tolerance_m": tol, "level": a.level, "ohm_points": ohm_points,
           "ohm_counts": ohm_counts, "ohm_cells": len(ohm_cells), "ohm_duplicate_keys": ohm_dups}
    ohm_ms = [ohm_time_ms(p) for p in a.ohm_log]
    vox_ms = [voxen_time_ms(p) for p in a.voxen_json]
    out["ohm_ms_runs"], out["voxen_ms_runs"] = ohm_ms, vox_ms
    out["ohm_ms_median"] = statistics.median(ohm_ms) if ohm_ms else None
    out["voxen_ms_median"] = statistics.median(vox_ms) if vox_ms else None
    out["speedup"] = (out["ohm_ms_median"] / out["voxen_ms_median"]
                      if ohm_ms and vox_ms and out["voxen_ms_median"] > 0 else None)

    if voxen_cells is not None:
        both = sorted(set(ohm_cells) & set(voxen_cells))
        dz = [(voxen_cells[k] - ohm_cells[k], k) for k in both]
        adz = sorted(abs(d) for d, _ in dz)
        within = sum(1 for d in adz if d <= tol + 1e-6)
        out.update({
            "voxen_cells": len(voxen_cells), "both": len(both),
            "ohm_only": len(ohm_cells) - len(both), "voxen_only": len(voxen_cells) - len(both),
            "within": within, "within_fraction": within / len(both) if both else None,
            "median_abs_dz": statistics.median(adz) if adz else None,
            "median_dz": statistics.median(d for d, _ in dz) if dz else None,
            "p99_abs_dz": percentile(adz, 0.99), "max_abs_dz": adz[-1] if adz else None,
            "worst": [{"x": (k[0] + 0.5) * res, "y": (k[1] + 0.5) * res, "ohm_z": ohm_cells[k],
                       "voxen_z": voxen_cells[k], "dz": d}
                      for d, k in sorted(dz, key=lambda t: -abs(t[0]))[:max(0, a.worst)]],
        })

    print(f"Heightmap beside OHM: resolution {res} m, tolerance {tol} m, Voxen level {a.level}\n")
    print("| figure | OHM ohmheightmap | Voxen heightmap |")
    print("|---|---|---|")
    print(f"| cells reported (real surfaces{' + virtual' if a.include_virtual else ''}) | {len(ohm_cells):,} | "
          f"{'n/a' if voxen_cells is None else format(len(voxen_cells), ',')} |")
    print(f"| computation time, median of runs (ms) | {fmt(out['ohm_ms_median'], '.1f')} ({len(ohm_ms)} runs) | "
          f"{fmt(out['voxen_ms_median'], '.1f')} ({len(vox_ms)} runs) |")
    if voxen_cells is not None:
        frac = out["within_fraction"]
        print(f"\n| agreement | value |\n|---|---|")
        print(f"| cells both report | {out['both']:,} |")
        print(f"| OHM only / Voxen only | {out['ohm_only']:,} / {out['voxen_only']:,} |")
        print(f"| within one voxel (\\|dz\\| <= {tol} m) | {out['within']:,} = "
              f"{fmt(None if frac is None else 100 * frac, '.2f')}% |")
        print(f"| median \\|dz\\| / median dz (Voxen - OHM) | {fmt(out['median_abs_dz'], '.4f')} m / "
              f"{fmt(out['median_dz'], '+.4f')} m |")
        print(f"| 99th percentile / max \\|dz\\| | {fmt(out['p99_abs_dz'], '.4f')} m / {fmt(out['max_abs_dz'], '.4f')} m |")
    if out["speedup"] is not None:
        print(f"| speed-up (OHM time / Voxen time) | {out['speedup']:.1f}x |")
    print(f"\nOHM points by kind: {ohm_counts}; keys holding more than one point: {ohm_dups}")
    if a.json:
        try:
            with open(a.json, "w") as f:
                json.dump(out, f, indent=1)
        except OSError as e:
            fail(f"cannot write --json '{a.json}': {e.strerror}")


if __name__ == "__main__":
    main()
