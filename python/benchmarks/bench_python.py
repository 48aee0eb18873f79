#!/usr/bin/env python3
"""The Python package against the C++ engine, on the same rays, map and items, in one run.

    PYTHONPATH=build/python python3 python/benchmarks/bench_python.py --voxen build/voxen [--json FILE]

Each row is a measure from Python beside its C++ reference, both measured here:
- integrate_rays: Mapper.integrate_rays of N rays from NumPy (a fresh Mapper each repetition,
  timed to the map being complete) against `voxen bench map --rays-file` on the same rays
  written as a ray cloud (its GPU path: `voxen map`'s, with a worker preparing rays);
- <query>_1: one call with one item (per-call overhead), against `voxen bench query
  --mapper` with a one-item --points-file/--rays-file on the same map file (voxen::Mapper,
  the C++ call the binding makes, which answers small batches on the CPU), and beside the
  same query as a GPU round trip (`voxen bench query` without --mapper: GpuQueries);
  classify's reference is occupancy's (classify is its answer's class);
- <query>_batch: one call of many items, against `voxen bench query --mapper` on the same
  items (on the GPU: the batch is far above MapperRunOptions::hostQueryVoxels).
The machine's load drifts (and a shared one's a lot), so the run is --repeat rounds, each
running the C++ side in a child process (on the same device: the default one, or --device)
and then Python; times are medians over the rounds (one-item calls: of each round's median
of --calls calls), ratios the medians of the rounds' ratios. Both sides warm up first.
Queries whose Python names do not exist yet (clearance before compute_clearance is bound)
are skipped and listed.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import voxen

GOAL_RATIO = 1.10  # Python's time over C++'s, for integration and batched queries
GOAL_CALL_US = 50.0  # a one-item query from Python, in microseconds


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
    return value


def positive_float(text):
    value = float(text)
    if not np.isfinite(value) or value <= 0.0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive finite number")
    return value


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voxen", default=os.environ.get("VOXEN_CLI", "build/voxen"),
                        help="the voxen CLI whose bench commands give the C++ references (default: $VOXEN_CLI, then build/voxen)")
    parser.add_argument("--rays", type=positive_int, default=1 << 20, help="rays integrated (default 1048576)")
    parser.add_argument("--points", type=positive_int, default=1 << 20,
                        help="points per batched occupancy/classify/clearance query (default 1048576)")
    parser.add_argument("--cast-rays", type=positive_int, default=1 << 18,
                        help="rays per batched ray cast (default 262144)")
    parser.add_argument("--range", type=positive_float, default=5.0, help="ray-cast range in metres (default 5)")
    parser.add_argument("--resolution", type=positive_float, default=0.1, help="voxel edge in metres (default 0.1)")
    parser.add_argument("--repeat", type=positive_int, default=3,
                        help="rounds of C++ then Python, medians reported (default 3)")
    parser.add_argument("--calls", type=positive_int, default=100,
                        help="one-item calls timed, median reported (default 100, at most 100)")
    parser.add_argument("--device", default=None, help="device index or name substring (default: Voxen's choice)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON to FILE")
    parser.add_argument("--workdir",
                        help="a new or empty folder to keep the rays, items and map in (default: a temporary one)")
    args = parser.parse_args(argv)
    if args.calls > 100:
        parser.error("--calls is at most 100 (voxen bench query --repeat's limit)")
    if args.workdir and os.path.isdir(args.workdir) and os.listdir(args.workdir):
        # Its files (rays.ply, map.vxm, ...) would replace ones of the same names there.
        parser.error(f"--workdir {args.workdir}: not empty (give a new or empty folder)")
    if not os.access(args.voxen, os.X_OK):
        parser.error(f"--voxen {args.voxen}: not an executable (build the CLI, or give its path)")
    return args


def progress(text):
    print(f"bench_python: {text}", file=sys.stderr, flush=True)


def lidar_rays(n, seed=23):
    """Rays of a sensor moving down a 40 x 12 x 4 m hall with pillars: 64 rings from -15 to
    +15 degrees, 1024 columns, a new pose every scan; each ray ends on the first surface."""
    rng = np.random.default_rng(seed)
    rings, columns = 64, 1024
    index = np.arange(n)
    scan = index // (rings * columns)
    elevation = np.radians(np.linspace(-15.0, 15.0, rings))[index // columns % rings]
    azimuth = 2.0 * np.pi * (index % columns) / columns
    origins = np.stack([-15.0 + 0.3 * scan, 0.5 * np.sin(0.2 * scan), np.full(n, 1.5)], axis=1)
    directions = np.stack([np.cos(elevation) * np.cos(azimuth), np.cos(elevation) * np.sin(azimuth),
                           np.sin(elevation)], axis=1)
    lo, hi = np.array([-20.0, -6.0, 0.0]), np.array([20.0, 6.0, 4.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        exits = np.where(directions > 0, (hi - origins) / directions, (lo - origins) / directions)
    t = np.min(np.where(directions != 0, exits, np.inf), axis=1)
    # Pillars: vertical cylinders of radius 0.4 m every 5 m on two rows.
    for cx in np.arange(-17.5, 20.0, 5.0):
        for cy in (-3.0, 3.0):
            ox, oy = origins[:, 0] - cx, origins[:, 1] - cy
            dx, dy = directions[:, 0], directions[:, 1]
            a = dx * dx + dy * dy
            b = ox * dx + oy * dy
            c = ox * ox + oy * oy - 0.16
            disc = b * b - a * c
            with np.errstate(divide="ignore", invalid="ignore"):
                hit = (-b - np.sqrt(np.maximum(disc, 0.0))) / a
            t = np.where((disc > 0) & (a > 0) & (hit > 0) & (hit < t), hit, t)
    t = np.minimum(t, 30.0) * (1.0 + 0.002 * rng.standard_normal(n))
    ends = origins + directions * t[:, None]
    return np.ascontiguousarray(origins), np.ascontiguousarray(ends)


def write_ply(path, columns):
    """A binary little-endian PLY of double vertex properties: columns = [(name, (N,) array)]."""
    n = len(columns[0][1])
    header = ["ply", "format binary_little_endian 1.0", f"element vertex {n}"]
    header += [f"property double {name}" for name, _ in columns] + ["end_header"]
    body = np.empty((n, len(columns)), dtype="<f8")
    for i, (_, values) in enumerate(columns):
        body[:, i] = values
    with open(path, "wb") as out:
        out.write(("\n".join(header) + "\n").encode("ascii"))
        out.write(body.tobytes())


def write_points(path, points):
    write_ply(path, [("x", points[:, 0]), ("y", points[:, 1]), ("z", points[:, 2])])


def write_query_rays(path, origins, directions):
    write_ply(path, [("ox", origins[:, 0]), ("oy", origins[:, 1]), ("oz", origins[:, 2]),
                     ("dx", directions[:, 0]), ("dy", directions[:, 1]), ("dz", directions[:, 2])])


def run_cli(args, command):
    line = [args.voxen] + command + (["--device", args.device] if args.device else []) + ["--json"]
    progress("running " + " ".join(line))
    done = subprocess.run(line, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench_python: {' '.join(line)} failed with status {done.returncode}:\n{done.stderr}")
    if re.search("validation (message|error|warning)", done.stderr, re.IGNORECASE):
        sys.exit(f"bench_python: {' '.join(line)}: the validation layer reported:\n{done.stderr}")
    return json.loads(done.stdout)


def python_seconds(calls, run):
    """Median of `calls` timed calls after one untimed."""
    run()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def row(name, items, rounds, reference, goal):
    """rounds: (python_s, cpp_s) of each round; the machine's load drifts, so each round runs
    the C++ side and then Python, and the ratio is the median of the rounds' ratios."""
    python_all = [p for p, _ in rounds]
    cpp_all = [c for _, c in rounds]
    ratio = statistics.median(p / c for p, c in rounds) if all(c > 0 for c in cpp_all) else None
    entry = {"name": name, "items": items, "python_s": statistics.median(python_all),
             "cpp_s": statistics.median(cpp_all), "python_over_cpp": ratio, "python_s_all": python_all,
             "cpp_s_all": cpp_all, "cpp_reference": reference, "goal": goal}
    if goal == "per_call":
        entry["meets_goal"] = entry["python_s"] * 1e6 < GOAL_CALL_US
    else:
        entry["meets_goal"] = ratio is not None and ratio <= GOAL_RATIO
    return entry


def bench_integration(args, context, work):
    origins, ends = lidar_rays(args.rays)
    rays_file = os.path.join(work, "rays.ply")
    write_ply(rays_file, [("x", ends[:, 0]), ("y", ends[:, 1]), ("z", ends[:, 2]),
                          ("ox", origins[:, 0]), ("oy", origins[:, 1]), ("oz", origins[:, 2])])
    last = {}

    def integrate():
        # Timed from the first ray: a new Mapper's empty host map is not in the C++ path's time.
        mapper = voxen.Mapper(resolution=args.resolution, context=context)
        start = time.perf_counter()
        mapper.integrate_rays(origins, ends)
        mapper.sync()  # integrate_rays returns once the rays are submitted; bench map's time includes the GPU's
        seconds = time.perf_counter() - start
        last.update(mapper=mapper, stats=mapper.stats(), seconds=seconds)

    integrate()  # warm-up (the device, the pipelines), as bench map warms up too
    rounds = []
    for round_index in range(args.repeat):
        cpp = run_cli(args, ["bench", "map", "--rays-file", rays_file, "--resolution", str(args.resolution),
                             "--repeat", "1"])["runs"][0]
        progress(f"round {round_index + 1}/{args.repeat}: integrate_rays of {args.rays} rays from Python")
        last.clear()
        integrate()
        rounds.append((last["seconds"], cpp["gpu_s"]))
        if last["stats"]["voxel_updates"] != cpp["voxel_updates"]:
            sys.exit(f"bench_python: Python's integration made {last['stats']['voxel_updates']} voxel updates, "
                     f"voxen bench map's {cpp['voxel_updates']}: not the same rays or map")
    entry = row("integrate_rays", args.rays, rounds, "voxen bench map --rays-file --repeat 1 (its GPU path, gpu_s)",
                "ratio")
    entry["voxel_updates"] = cpp["voxel_updates"]
    return entry, last["mapper"]


def query_items(box, n_points, n_rays, seed=5):
    lo, hi = box
    rng = np.random.default_rng(seed)
    points = rng.uniform(lo, hi, size=(n_points, 3))
    origins = rng.uniform(lo, hi, size=(n_rays, 3))
    directions = rng.uniform(-1.0, 1.0, size=(n_rays, 3)) + 1e-9
    return points, origins, directions


def python_query(mapper, kind, points, origins, directions, range_m):
    if kind == "occupancy":
        return lambda: mapper.occupancy(points)
    if kind == "classify":
        return lambda: mapper.classify(points)
    if kind == "clearance":
        return lambda: mapper.clearance(points)
    return lambda: mapper.raycast(origins, directions, range_m)


def bench_queries(args, context, mapper, work):
    kinds = ["occupancy", "classify", "raycast"]
    skipped = []
    if hasattr(mapper, "compute_clearance") and hasattr(mapper, "clearance"):
        mapper.compute_clearance(1.0)
        kinds.append("clearance")
    else:
        skipped.append("clearance (Mapper.compute_clearance/clearance are not bound)")
    map_file = os.path.join(work, "map.vxm")
    mapper.save(map_file)
    loaded = voxen.load(map_file, context=context)
    box = (np.array([-20.0, -6.0, 0.0]), np.array([20.0, 6.0, 4.0]))  # the hall of lidar_rays
    only = []
    for kind in kinds:
        if kind != "classify":  # classify's reference is occupancy's
            only += ["--only", kind]
    rows = []
    for label, n_points, n_rays, calls in (("1", 1, 1, args.calls), ("batch", args.points, args.cast_rays, 1)):
        points, origins, directions = query_items(box, n_points, n_rays)
        points_file, rays_file = os.path.join(work, f"points_{label}.ply"), os.path.join(work, f"query_rays_{label}.ply")
        write_points(points_file, points)
        write_query_rays(rays_file, origins, directions)
        rounds = {kind: [] for kind in kinds}
        round_trips = {kind: [] for kind in kinds}
        command = ["bench", "query", "--map", map_file, "--points-file", points_file, "--rays-file", rays_file,
                   "--range", str(args.range), "--repeat", str(calls)] + only
        for round_index in range(args.repeat):
            cpp_rows = {r["kind"]: r for r in run_cli(args, command + ["--mapper"])["rows"]}
            if label == "1":  # what the same call costs as a GPU round trip (GpuQueries)
                for r in run_cli(args, command)["rows"]:
                    for kind in kinds:
                        if r["kind"] == ("occupancy" if kind == "classify" else kind):
                            round_trips[kind].append(r["gpu_s"])
            for kind in kinds:
                progress(f"round {round_index + 1}/{args.repeat}: {kind} of "
                         f"{n_rays if kind == 'raycast' else n_points} item(s) from Python, {calls} timed call(s)")
                python_s = python_seconds(calls, python_query(loaded, kind, points, origins, directions, args.range))
                rounds[kind].append((python_s, cpp_rows["occupancy" if kind == "classify" else kind]["gpu_s"]))
        for kind in kinds:
            source = (f"voxen bench query --mapper --only {'occupancy' if kind == 'classify' else kind} "
                      f"--repeat {calls} (voxen::Mapper, the call Python makes; median gpu_s)")
            entry = row(f"{kind}_{label}", n_rays if kind == "raycast" else n_points, rounds[kind], source,
                        "per_call" if label == "1" else "ratio")
            if round_trips[kind]:
                entry["gpu_round_trip_s"] = statistics.median(round_trips[kind])
            rows.append(entry)
    return rows, skipped


def print_table(result):
    print(f"Voxen from Python against C++ on {result['device']}: medians of {result['repeat']} rounds of C++ then "
          f"Python (one-item calls: each round's median of {result['calls']}); Py/C++: median of the rounds' ratios")
    print(f"{'measure':<22} {'items':>9} {'Python':>12} {'C++':>12} {'Py/C++':>7}  goal")
    for r in result["rows"]:
        if r["goal"] == "per_call":
            python, cpp = f"{r['python_s'] * 1e6:.2f} us", f"{r['cpp_s'] * 1e6:.2f} us"
            goal = f"< {GOAL_CALL_US:.0f} us: {'met' if r['meets_goal'] else 'MISSED'}"
        else:
            python, cpp = f"{r['items'] / r['python_s']:.4g}/s", f"{r['items'] / r['cpp_s']:.4g}/s"
            goal = f"<= {GOAL_RATIO:.2f}: {'met' if r['meets_goal'] else 'MISSED'}"
        ratio = f"{r['python_over_cpp']:.3f}" if r["python_over_cpp"] is not None else "-"
        trip = f"  (as a GPU round trip: {r['gpu_round_trip_s'] * 1e6:.1f} us)" if "gpu_round_trip_s" in r else ""
        print(f"{r['name']:<22} {r['items']:>9} {python:>12} {cpp:>12} {ratio:>7}  {goal}{trip}")
    for s in result["skipped"]:
        print(f"skipped: {s}")


def main(argv=None):
    args = parse_args(argv)
    context = voxen.Context(device=args.device) if args.device else voxen.Context()
    with tempfile.TemporaryDirectory(prefix="voxen-bench-python-") as temporary:
        work = args.workdir or temporary
        os.makedirs(work, exist_ok=True)
        integration, mapper = bench_integration(args, context, work)
        query_rows, skipped = bench_queries(args, context, mapper, work)
    result = {"device": context.device_name, "repeat": args.repeat, "calls": args.calls, "rays": args.rays,
              "resolution": args.resolution, "rows": [integration] + query_rows, "skipped": skipped,
              "validation_messages": list(context.validation_messages)}
    print_table(result)
    if args.json:
        with open(args.json + ".part", "w") as out:
            json.dump(result, out, indent=2)
        os.replace(args.json + ".part", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
