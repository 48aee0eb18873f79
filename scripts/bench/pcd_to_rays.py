#!/usr/bin/env python3
"""Turn one PCD scan from a fixed sensor into a timed cloud plus a trajectory, the input
both OHM's ohmpop (--cloud --trajectory) and voxen map read the same way.

The sensor stands at the PCD's VIEWPOINT (or --origin) for the whole scan; the scan is
repeated --repeat times (each copy one second later) so that the mapper sees every ray
several times, as a robot standing still would. Points that are not finite (an organised
Kinect cloud marks missing depth with NaN) are dropped. Pure Python: numpy is not here.
"""
import argparse
import math
import os
import struct
import sys


def lzf_decompress(src, out_len):
    # LZF as PCL writes binary_compressed bodies (liblzf's format).
    out = bytearray(out_len)
    i = o = 0
    n = len(src)
    while i < n:
        ctrl = src[i]
        i += 1
        if ctrl < 32:
            ln = ctrl + 1
            if o + ln > out_len or i + ln > n:
                raise ValueError("LZF literal run past the end")
            out[o:o + ln] = src[i:i + ln]
            i += ln
            o += ln
        else:
            ln = ctrl >> 5
            ref = o - ((ctrl & 0x1F) << 8) - 1
            if ln == 7:
                ln += src[i]
                i += 1
            ref -= src[i]
            i += 1
            ln += 2
            if ref < 0 or o + ln > out_len:
                raise ValueError("LZF back reference out of range")
            for k in range(ln):  # overlapping copies repeat bytes, so byte by byte
                out[o + k] = out[ref + k]
            o += ln
    if o != out_len:
        raise ValueError("LZF gave %d bytes, header says %d" % (o, out_len))
    return bytes(out)


def read_pcd(path):
    with open(path, "rb") as f:
        data = f.read()
    header = {}
    pos = 0
    line_no = 0
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            raise ValueError("%s: no DATA line" % path)
        line = data[pos:end].decode("ascii", "replace").strip()
        pos = end + 1
        line_no += 1
        if not line or line.startswith("#"):
            continue
        words = line.split()
        header[words[0].upper()] = words[1:]
        if words[0].upper() == "DATA":
            break
    fields = header["FIELDS"]
    sizes = [int(s) for s in header["SIZE"]]
    types = header["TYPE"]
    counts = [int(c) for c in header.get("COUNT", ["1"] * len(fields))]
    points = int(header["POINTS"][0])
    viewpoint = [float(v) for v in header.get("VIEWPOINT", ["0", "0", "0", "1", "0", "0", "0"])]
    kind = header["DATA"][0]
    for axis in "xyz":
        if axis not in fields:
            raise ValueError("%s: FIELDS has no %s" % (path, axis))
    fmt = {("F", 4): "f", ("F", 8): "d", ("U", 1): "B", ("U", 2): "H", ("U", 4): "I", ("I", 1): "b",
           ("I", 2): "h", ("I", 4): "i"}
    xyz = [None, None, None]
    if kind == "binary_compressed":
        comp, raw_len = struct.unpack_from("<II", data, pos)
        raw = lzf_decompress(data[pos + 8:pos + 8 + comp], raw_len)
        off = 0  # field after field (structure of arrays)
        for f, s, t, c in zip(fields, sizes, types, counts):
            if f in ("x", "y", "z"):
                xyz["xyz".index(f)] = struct.unpack_from("<%d%s" % (points, fmt[(t, s)]), raw, off)
            off += s * c * points
    elif kind == "binary":
        row = "<" + "".join(fmt[(t, s)] * c for s, t, c in zip(sizes, types, counts))
        rows = list(struct.iter_unpack(row, data[pos:pos + struct.calcsize(row) * points]))
        col = 0
        for f, c in zip(fields, counts):
            if f in ("x", "y", "z"):
                xyz["xyz".index(f)] = [r[col] for r in rows]
            col += c
    elif kind == "ascii":
        lines = data[pos:].decode("ascii").split("\n")
        idx = [fields.index(a) for a in "xyz"]  # COUNT 1 assumed for x, y, z before them
        vals = [ln.split() for ln in lines if ln.strip()]
        for a in range(3):
            xyz[a] = [float(v[idx[a]]) for v in vals]
    else:
        raise ValueError("%s: DATA %s is not supported" % (path, kind))
    return xyz, viewpoint[:3]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pcd")
    p.add_argument("--cloud", required=True, help="output PLY (x y z float, time double)")
    p.add_argument("--trajectory", required=True, help="output trajectory text: time x y z")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--origin", help="sensor position x,y,z (default: the PCD's VIEWPOINT)")
    p.add_argument("--shift", help="x,y,z added to every point and to the sensor: the same scan in another map "
                   "frame (a sensor at 0,0,0 stands on a voxel corner, where mappers' tie rules differ)")
    p.add_argument("--limit", type=int, help="keep only this many finite points, spread over the scan")
    a = p.parse_args()
    if a.repeat < 1:
        p.error("--repeat must be at least 1")
    if a.limit is not None and a.limit < 1:
        p.error("--limit must be at least 1")
    try:
        xyz, origin = read_pcd(a.pcd)
    except (OSError, ValueError, KeyError, struct.error) as e:
        print("pcd_to_rays: %s: %s" % (a.pcd, e), file=sys.stderr)
        return 1
    if a.origin:
        origin = [float(v) for v in a.origin.split(",")]
        if len(origin) != 3 or not all(math.isfinite(v) for v in origin):
            p.error("--origin needs three finite numbers x,y,z")
    shift = (0.0, 0.0, 0.0)
    if a.shift:
        shift = [float(v) for v in a.shift.split(",")]
        if len(shift) != 3 or not all(math.isfinite(v) for v in shift):
            p.error("--shift needs three finite numbers x,y,z")
        origin = [o + s for o, s in zip(origin, shift)]
    pts = [(x + shift[0], y + shift[1], z + shift[2]) for x, y, z in zip(*xyz)
           if math.isfinite(x) and math.isfinite(y) and math.isfinite(z)]
    if not pts:
        print("pcd_to_rays: %s: no finite point" % a.pcd, file=sys.stderr)
        return 1
    if a.limit is not None and a.limit < len(pts):
        step = len(pts) / a.limit
        pts = [pts[int(k * step)] for k in range(a.limit)]
    n = len(pts)
    body = bytearray()
    for r in range(a.repeat):
        for i, (x, y, z) in enumerate(pts):
            body += struct.pack("<fffd", x, y, z, r + 0.9 * i / n)
    head = ("ply\nformat binary_little_endian 1.0\ncomment %d finite points of %s, %d times, sensor at %g %g %g\n"
            "element vertex %d\nproperty float x\nproperty float y\nproperty float z\nproperty double time\n"
            "end_header\n" % (n, os.path.basename(a.pcd), a.repeat, *origin, n * a.repeat)).encode()
    # Written beside and renamed, so that a failed run leaves no half file under the final name.
    for path, blob in ((a.cloud, head + bytes(body)),
                       (a.trajectory, ("%d %r %r %r\n%d %r %r %r\n" % (0, *origin, a.repeat, *origin)).encode())):
        tmp = path + ".part"
        with open(tmp, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
    print("pcd_to_rays: %d finite points x %d = %d rays, sensor at %s" % (n, a.repeat, n * a.repeat, origin),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
