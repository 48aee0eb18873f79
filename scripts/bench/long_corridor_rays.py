#!/usr/bin/env python3
"""A ray cloud whose map has many regions: a sensor driven LENGTH metres along x, casting
RAYS_PER_POSE short rays (to random points up to 4 m sideways and 3 m up or down) every STEP
metres. At 0.1 m and 32^3 regions it touches about 2.5 regions per metre of track, so 8 km
make a map of about 20,000 regions (2.5 GB in memory): the benchmark of a map many times the
host memory limit (scripts/bench/store_mapping.sh).

    long_corridor_rays.py OUT.ply [--length 8000] [--step 0.4] [--rays-per-pose 24] [--seed 1]

Writes a binary little-endian ray cloud (double x y z ox oy oz time), the format voxen map
--cloud reads without a trajectory."""
import argparse
import random
import struct
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--length", type=float, default=8000.0, help="metres of track")
    parser.add_argument("--step", type=float, default=0.4, help="metres between poses")
    parser.add_argument("--rays-per-pose", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.length <= 0 or args.step <= 0 or args.rays_per_pose <= 0:
        sys.exit("long_corridor_rays.py: --length, --step and --rays-per-pose must be positive")
    rng = random.Random(args.seed)
    poses = int(args.length / args.step)
    count = poses * args.rays_per_pose
    header = ("ply\nformat binary_little_endian 1.0\ncomment long corridor ray cloud\n"
              f"element vertex {count}\n"
              "property double x\nproperty double y\nproperty double z\n"
              "property double ox\nproperty double oy\nproperty double oz\n"
              "property double time\nend_header\n")
    pack = struct.Struct("<7d").pack
    with open(args.out, "wb") as out:
        out.write(header.encode("ascii"))
        for p in range(poses):
            ox, oy, oz, t = p * args.step + 0.05, 0.05, 0.05, p * 0.1
            rows = []
            for _ in range(args.rays_per_pose):
                rows.append(pack(ox + rng.uniform(-1.6, 1.6), oy + rng.uniform(-4.0, 4.0), oz + rng.uniform(-3.0, 3.0),
                                 ox, oy, oz, t))
            out.write(b"".join(rows))
            if p % 5000 == 0:
                print(f"\r{p * 100 // poses}%", end="", file=sys.stderr)
    print(f"\r{count} rays, {poses} poses over {args.length:g} m -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
