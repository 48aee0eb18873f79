#!/usr/bin/env python3
"""Writes the recordings tests/cli/map/inputs.sh maps, from a generated binary PLY run, with the
standard library only (the test must not depend on Voxen's own writers):

  recordings.py pcd RUN.ply FOLDER FILES           the run's points cut into FILES binary PCD files (every
                                                   property as F8, so the values stay exact), no VIEWPOINT
  recordings.py pcd-viewpoint RUN.ply TRAJ FOLDER RAYS.ply
                                                   three PCD files (one ascii, two binary; binary_compressed
                                                   needs LZF, which tests/input/test_pcd.cpp covers), each with
                                                   a pose of the trajectory as VIEWPOINT; RAYS.ply: the same
                                                   rays as an ascii ray cloud
  recordings.py kitti RUN.ply FOLDER RAYS.ply      a KITTI sequence of three scans (float32 points, poses with
                                                   exact products) and the rays it holds as an ascii ray cloud
"""
import os
import struct
import sys

PLY_TYPES = {"char": "b", "int8": "b", "uchar": "B", "uint8": "B", "short": "h", "int16": "h", "ushort": "H",
             "uint16": "H", "int": "i", "int32": "i", "uint": "I", "uint32": "I", "float": "f", "float32": "f",
             "double": "d", "float64": "d"}


def read_ply(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    names, codes, count = [], "<", 0
    for line in data[:end].decode().splitlines():
        w = line.split()
        if w[:2] == ["element", "vertex"]:
            count = int(w[2])
        elif w and w[0] == "property":
            codes += PLY_TYPES[w[1]]
            names.append(w[2])
    row = struct.calcsize(codes)
    rows = [struct.unpack_from(codes, data, end + i * row) for i in range(count)]
    return names, rows


def write_pcd(path, names, rows, viewpoint=None, ascii_body=False):
    head = "# .PCD v0.7\nVERSION 0.7\nFIELDS %s\nSIZE %s\nTYPE %s\nCOUNT %s\nWIDTH %d\nHEIGHT 1\n" % (
        " ".join(names), " ".join("8" for _ in names), " ".join("F" for _ in names), " ".join("1" for _ in names),
        len(rows))
    if viewpoint is not None:
        head += "VIEWPOINT %s 1 0 0 0\n" % " ".join(repr(v) for v in viewpoint)
    head += "POINTS %d\nDATA %s\n" % (len(rows), "ascii" if ascii_body else "binary")
    with open(path, "wb") as f:
        f.write(head.encode())
        if ascii_body:
            f.write("".join(" ".join(repr(float(v)) for v in r) + "\n" for r in rows).encode())
        else:
            f.write(b"".join(struct.pack("<%dd" % len(r), *r) for r in rows))


def write_ray_cloud(path, rays):  # (x, y, z, ox, oy, oz, time, intensity) doubles, ascii: exact
    with open(path, "w") as f:
        f.write("ply\nformat ascii 1.0\nelement vertex %d\n" % len(rays))
        for n in ("x", "y", "z", "ox", "oy", "oz", "time", "intensity"):
            f.write("property double %s\n" % n)
        f.write("end_header\n")
        for r in rays:
            f.write(" ".join(repr(float(v)) for v in r) + "\n")


def main():
    mode = sys.argv[1]
    names, rows = read_ply(sys.argv[2])
    if mode == "pcd":
        folder, files = sys.argv[3], int(sys.argv[4])
        os.makedirs(folder, exist_ok=True)
        cuts = [len(rows) * k // files for k in range(files + 1)]
        for k in range(files):
            write_pcd(os.path.join(folder, "scan%03d.pcd" % k), names, rows[cuts[k]:cuts[k + 1]])
    elif mode == "pcd-viewpoint":
        poses = [l.split() for l in open(sys.argv[3]) if l.strip() and not l.startswith("#")]
        folder, rays_path = sys.argv[4], sys.argv[5]
        os.makedirs(folder, exist_ok=True)
        ix, iy, iz, it = (names.index(n) for n in ("x", "y", "z", "time"))
        ii = names.index("intensity") if "intensity" in names else None
        cuts = [len(rows) * k // 3 for k in range(4)]
        rays = []
        for k in range(3):
            origin = [float(v) for v in poses[10 * k][1:4]]
            part = rows[cuts[k]:cuts[k + 1]]
            write_pcd(os.path.join(folder, "scan%d.pcd" % k), names, part, origin, ascii_body=(k == 0))
            rays += [(r[ix], r[iy], r[iz], *origin, r[it], r[ii] if ii is not None else 0.0) for r in part]
        write_ray_cloud(rays_path, rays)
    elif mode == "kitti":
        folder, rays_path = sys.argv[3], sys.argv[4]
        os.makedirs(os.path.join(folder, "velodyne"), exist_ok=True)
        # Tr and camera poses as in tests/input/test_kitti.cpp, whose lidar poses (worked out
        # there by hand) have 0/1 rotations and short binary fractions: every product is exact.
        with open(os.path.join(folder, "calib.txt"), "w") as f:
            f.write("Tr: 0 -1 0 0.25 0 0 -1 -0.5 1 0 0 0.75\n")
        with open(os.path.join(folder, "poses.txt"), "w") as f:
            f.write("1 0 0 0 0 1 0 0 0 0 1 0\n1 0 0 0 0 1 0 0 0 0 1 2\n0 0 -1 0 0 1 0 0 1 0 0 4\n")
        with open(os.path.join(folder, "times.txt"), "w") as f:
            f.write("0.0\n0.125\n0.25\n")
        lidar = [((1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 0)), ((1, 0, 0), (0, 1, 0), (0, 0, 1), (2, 0, 0)),
                 ((0, -1, 0), (1, 0, 0), (0, 0, 1), (3.5, 1, 0))]  # rows of the rotation, then the translation
        ix, iy, iz = (names.index(n) for n in ("x", "y", "z"))
        cuts = [len(rows) * k // 3 for k in range(4)]
        rays = []
        for k in range(3):
            rot0, rot1, rot2, t = lidar[k]
            with open(os.path.join(folder, "velodyne", "%06d.bin" % k), "wb") as f:
                for n, r in enumerate(rows[cuts[k]:cuts[k + 1]]):
                    # Lidar-frame points: the run's, relative to the origin, as float32.
                    p = struct.unpack("<4f", struct.pack("<4f", r[ix], r[iy], r[iz] - 1.0, (n % 100) / 4.0))
                    f.write(struct.pack("<4f", *p))
                    world = [rot[0] * p[0] + rot[1] * p[1] + rot[2] * p[2] + t[a] for a, rot in enumerate((rot0, rot1, rot2))]
                    rays.append((*world, *t, (0.0, 0.125, 0.25)[k], p[3]))
        write_ray_cloud(rays_path, rays)


main()
