#!/usr/bin/env python3
"""Voxen's TSDF beside Open3D's ScalableTSDFVolume on the same depth frames (issue 40).

    PYTHONPATH=build/python /usr/bin/python3 scripts/bench/vs_open3d_tsdf.py \
        --voxen build/voxen --frames 30 --resolution 0.02 0.05 --repeat 3 --json out.json

1. `voxen generate --depth-recording WORK/tum/ --truth-mesh WORK/truth.ply --frames N`: the
   procedural building seen by a 640 x 480 depth camera (a TUM RGB-D folder: 16-bit PNGs at
   5000 units per metre, groundtruth.txt of the optical frame's poses, camera_info.yaml) and
   the scene's true surface.
2. Per resolution, --repeat times each (medians quoted):
   - Open3D: ScalableTSDFVolume(voxel_length = resolution, sdf_trunc = 4 voxels, NoColor);
     per frame integrate(RGBDImage, intrinsics, extrinsic = inverse of the camera pose), the
     RGBDImage made before the clock starts (depth_scale 5000, depth_trunc = --max-depth);
     then extract_triangle_mesh().
   - Voxen: voxen.Mapper(resolution, layers=["tsdf"]).integrate_depth(uint16 frame,
     (fx, fy, cx, cy), pose, depth_scale=1/5000, truncation=4, max_range=--max-depth) per
     frame; integration runs on the GPU behind the calls, so the rate is frames over the calls
     plus the final mapper.sync() (the map on the host). Then the same with
     Mapper(backend="cpu") (the CPU reference: the same voxels), integration alone. The GPU
     map is saved (untimed) and meshed with `voxen mesh MAP --output MESH.ply --json` three
     ways: the default (--device auto: the CPU reference on a CPU driver), --device gpu and
     --cpu; its compute_ms (the mesher itself, the map already loaded) and the wall time.
3. Accuracy of each mesh: the distance of every mesh vertex to the true surface (Open3D's
   RaycastingScene.compute_distance on the truth mesh), mean and 95th percentile.
   Completeness: points sampled uniformly on the truth mesh (sample_points_uniformly), kept
   where some frame observed them (inside its image, within its depth range, and its pixel's
   depth within 2 voxels of the point's: not occluded), and the fraction of those within
   1.5 voxels of the mesh.

Frames and the truth mesh are Voxen's own generator's; nothing is downloaded.
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import open3d as o3d

import voxen


def read_tum(folder):
    """Frames (stamp, uint16 image) and poses (4 x 4, optical frame to map) of a TUM folder."""
    depth = []
    with open(os.path.join(folder, "depth.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            stamp, name = line.split()
            depth.append((stamp, os.path.join(folder, name)))
    poses = {}
    with open(os.path.join(folder, "groundtruth.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            stamp, tx, ty, tz, qx, qy, qz, qw = line.split()
            x, y, z, w = map(float, (qx, qy, qz, qw))
            r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                          [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                          [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
            pose = np.eye(4)
            pose[:3, :3] = r
            pose[:3, 3] = (float(tx), float(ty), float(tz))
            poses[stamp] = pose
    frames = []
    for stamp, path in depth:
        image = np.asarray(o3d.io.read_image(path))
        assert image.dtype == np.uint16, path
        frames.append((image, poses[stamp]))
    return frames


def read_intrinsics(folder):
    """(width, height, fx, fy, cx, cy) from camera_info.yaml's camera_matrix."""
    text = open(os.path.join(folder, "camera_info.yaml")).read()
    width = int(text.split("image_width:")[1].split()[0])
    height = int(text.split("image_height:")[1].split()[0])
    k = [float(v) for v in text.split("camera_matrix:")[1].split("data: [")[1].split("]")[0].split(",")]
    return width, height, k[0], k[4], k[2], k[5]


def run_open3d(frames, camera, resolution, max_depth):
    width, height, fx, fy, cx, cy = camera
    intrinsic = o3d.camera.PinholeCameraIntrinsic(width, height, fx, fy, cx, cy)
    colour = o3d.geometry.Image(np.zeros((height, width, 3), np.uint8))
    images = [o3d.geometry.RGBDImage.create_from_color_and_depth(colour, o3d.geometry.Image(d), depth_scale=5000.0,
                                                                  depth_trunc=max_depth, convert_rgb_to_intensity=False)
              for d, _ in frames]
    extrinsics = [np.linalg.inv(pose) for _, pose in frames]
    volume = o3d.pipelines.integration.ScalableTSDFVolume(voxel_length=resolution, sdf_trunc=4 * resolution,
                                                          color_type=o3d.pipelines.integration.TSDFVolumeColorType.NoColor)
    times = []
    for image, extrinsic in zip(images, extrinsics):
        start = time.perf_counter()
        volume.integrate(image, intrinsic, extrinsic)
        times.append(time.perf_counter() - start)
    start = time.perf_counter()
    mesh = volume.extract_triangle_mesh()
    mesh_s = time.perf_counter() - start
    return {"frame_s": times, "total_s": sum(times), "mesh_s": mesh_s, "mesh": mesh}


def run_voxen(frames, camera, resolution, max_depth, voxen_binary, work):
    _, _, fx, fy, cx, cy = camera
    mapper = voxen.Mapper(resolution=resolution, layers=["tsdf"])
    times, blocks = [], []
    for depth, pose in frames:
        start = time.perf_counter()
        result = mapper.integrate_depth(depth, (fx, fy, cx, cy), pose, depth_scale=1.0 / 5000.0, truncation=4.0,
                                        max_range=max_depth)
        times.append(time.perf_counter() - start)
        blocks.append(result["blocks"])
    start = time.perf_counter()
    mapper.sync()
    sync_s = time.perf_counter() - start
    map_path = os.path.join(work, f"voxen_{resolution:g}.vxm")
    mapper.save(map_path)
    out = {"frame_s": times, "sync_s": sync_s, "total_s": sum(times) + sync_s, "blocks": blocks}
    # auto: what `voxen mesh` does by default (on a CPU driver such as lavapipe it takes the CPU
    # reference); gpu: the GPU mesher forced; cpu: the CPU reference. The same mesh each time.
    for device, extra in (("auto", []), ("gpu", ["--device", "gpu"]), ("cpu", ["--cpu"])):
        ply = os.path.join(work, f"voxen_{resolution:g}_{device}.ply")
        start = time.perf_counter()
        done = subprocess.run([voxen_binary, "mesh", map_path, "--output", ply, "--json", "--quiet"] + extra, check=True,
                              capture_output=True, text=True)
        wall = time.perf_counter() - start
        summary = json.loads(done.stdout)
        out[f"mesh_{device}_compute_s"] = summary["compute_ms"] / 1e3
        out[f"mesh_{device}_wall_s"] = wall
        out[f"mesh_{device}_ply"] = ply
        out[f"mesh_{device}_path"] = summary["path"]
    out["mesh"] = o3d.io.read_triangle_mesh(out["mesh_auto_ply"])
    return out


def run_voxen_cpu(frames, camera, resolution, max_depth):
    """Integration alone with Mapper(backend="cpu"): the CPU reference, the same voxels."""
    _, _, fx, fy, cx, cy = camera
    mapper = voxen.Mapper(resolution=resolution, layers=["tsdf"], backend="cpu")
    times = []
    for depth, pose in frames:
        start = time.perf_counter()
        mapper.integrate_depth(depth, (fx, fy, cx, cy), pose, depth_scale=1.0 / 5000.0, truncation=4.0, max_range=max_depth)
        times.append(time.perf_counter() - start)
    return {"frame_s": times, "total_s": sum(times)}


def observed_samples(truth, frames, camera, resolution, max_depth, count, seed):
    """Points on the true surface that some frame saw (see the module's docstring)."""
    o3d.utility.random.seed(seed)
    points = np.asarray(truth.sample_points_uniformly(number_of_points=count).points)
    width, height, fx, fy, cx, cy = camera
    seen = np.zeros(len(points), bool)
    homogeneous = np.hstack([points, np.ones((len(points), 1))])
    for depth, pose in frames:
        p = (np.linalg.inv(pose) @ homogeneous.T).T
        z = p[:, 2]
        ok = (z > 0.2) & (z <= max_depth)
        u = np.full(len(points), -1, np.int64)
        v = np.full(len(points), -1, np.int64)
        u[ok] = np.rint(fx * p[ok, 0] / z[ok] + cx).astype(np.int64)
        v[ok] = np.rint(fy * p[ok, 1] / z[ok] + cy).astype(np.int64)
        ok &= (u >= 0) & (u < width) & (v >= 0) & (v < height)
        d = np.zeros(len(points))
        d[ok] = depth[v[ok], u[ok]] / 5000.0
        ok &= (d > 0) & (np.abs(d - z) <= 2 * resolution)
        seen |= ok
    return points[seen]


def zero_area(mesh):
    """Which triangles have (almost) no area: marching cubes makes a few where a crossing lies
    on a voxel centre. They add nothing to a distance (their points lie on their neighbours'
    edges), and Debian's Open3D 0.16 aborts on them in compute_distance (an Eigen assertion)."""
    v = np.asarray(mesh.vertices)
    t = np.asarray(mesh.triangles)
    if len(t) == 0:
        return np.zeros(0, bool)
    area = 0.5 * np.linalg.norm(np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]]), axis=1)
    return area <= 1e-10


def distances_to(mesh, points):
    v = np.asarray(mesh.vertices, np.float32)
    t = np.asarray(mesh.triangles, np.uint32)[~zero_area(mesh)]
    scene = o3d.t.geometry.RaycastingScene()
    scene.add_triangles(o3d.core.Tensor(v), o3d.core.Tensor(t))
    return scene.compute_distance(o3d.core.Tensor(np.asarray(points, np.float32))).numpy()


def quality(mesh, truth_distance, samples, resolution):
    vertices = np.asarray(mesh.vertices)
    if len(vertices) == 0:
        return {"vertices": 0, "triangles": 0, "mean_m": math.nan, "p95_m": math.nan, "completeness": 0.0}
    d = truth_distance(vertices)
    near = distances_to(mesh, samples) <= 1.5 * resolution
    return {"vertices": len(vertices), "triangles": len(mesh.triangles), "zero_area_triangles": int(zero_area(mesh).sum()),
            "mean_m": float(np.mean(d)),
            "p95_m": float(np.percentile(d, 95)), "completeness": float(np.mean(near))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--voxen", default="build/voxen")
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--resolution", type=float, nargs="+", default=[0.02, 0.05])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per resolution and library (medians)")
    parser.add_argument("--max-depth", type=float, default=8.0, help="the generator's --max-depth (metres)")
    parser.add_argument("--samples", type=int, default=200000, help="points sampled on the true surface")
    parser.add_argument("--work", help="keep the recording, maps and meshes here (default: a temporary folder)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()

    work = args.work or tempfile.mkdtemp(prefix="vs_open3d_tsdf.")
    os.makedirs(work, exist_ok=True)
    tum = os.path.join(work, "tum")
    truth_path = os.path.join(work, "truth.ply")
    shutil.rmtree(tum, ignore_errors=True)
    subprocess.run([args.voxen, "generate", "--depth-recording", tum + "/", "--truth-mesh", truth_path, "--frames",
                    str(args.frames), "--max-depth", str(args.max_depth)], check=True, stdout=subprocess.DEVNULL)
    frames = read_tum(tum)
    camera = read_intrinsics(tum)
    truth = o3d.io.read_triangle_mesh(truth_path)
    truth_scene = o3d.t.geometry.RaycastingScene()
    truth_scene.add_triangles(o3d.t.geometry.TriangleMesh.from_legacy(truth))

    def truth_distance(points):
        return truth_scene.compute_distance(o3d.core.Tensor(np.asarray(points, np.float32))).numpy()

    results = []
    for resolution in args.resolution:
        samples = observed_samples(truth, frames, camera, resolution, args.max_depth, args.samples, 1)
        o3d_runs = [run_open3d(frames, camera, resolution, args.max_depth) for _ in range(args.repeat)]
        vx_runs = [run_voxen(frames, camera, resolution, args.max_depth, args.voxen, work) for _ in range(args.repeat)]
        cpu_runs = [run_voxen_cpu(frames, camera, resolution, args.max_depth) for _ in range(args.repeat)]
        med = lambda runs, key: statistics.median(r[key] for r in runs)
        row = {
            "resolution": resolution,
            "frames": len(frames),
            "observed_samples": int(len(samples)),
            "open3d": {
                "ms_per_frame_median": 1e3 * statistics.median(t for r in o3d_runs for t in r["frame_s"]),
                "frames_per_s": len(frames) / med(o3d_runs, "total_s"),
                "mesh_ms": 1e3 * med(o3d_runs, "mesh_s"),
                "runs_total_s": [r["total_s"] for r in o3d_runs],
                **quality(o3d_runs[0]["mesh"], truth_distance, samples, resolution),
            },
            "voxen": {
                "ms_per_frame_median": 1e3 * statistics.median(t for r in vx_runs for t in r["frame_s"]),
                "frames_per_s": len(frames) / med(vx_runs, "total_s"),
                "sync_ms": 1e3 * med(vx_runs, "sync_s"),
                "blocks_per_frame_median": statistics.median(vx_runs[0]["blocks"]),
                "mesh_auto_ms": 1e3 * med(vx_runs, "mesh_auto_compute_s"),
                "mesh_auto_path": vx_runs[0]["mesh_auto_path"],
                "mesh_gpu_ms": 1e3 * med(vx_runs, "mesh_gpu_compute_s"),
                "mesh_cpu_ms": 1e3 * med(vx_runs, "mesh_cpu_compute_s"),
                "mesh_auto_command_ms": 1e3 * med(vx_runs, "mesh_auto_wall_s"),
                "runs_total_s": [r["total_s"] for r in vx_runs],
                **quality(vx_runs[0]["mesh"], truth_distance, samples, resolution),
            },
            "voxen_cpu_backend": {
                "ms_per_frame_median": 1e3 * statistics.median(t for r in cpu_runs for t in r["frame_s"]),
                "frames_per_s": len(frames) / med(cpu_runs, "total_s"),
                "runs_total_s": [r["total_s"] for r in cpu_runs],
            },
        }
        o, v = row["open3d"], row["voxen"]
        row["goals"] = {
            "accuracy_mean": v["mean_m"] <= o["mean_m"],
            "accuracy_p95": v["p95_m"] <= o["p95_m"],
            "completeness": v["completeness"] >= o["completeness"],
            "integration_2x_gpu": v["frames_per_s"] >= 2 * o["frames_per_s"],
            "integration_2x_cpu_backend": row["voxen_cpu_backend"]["frames_per_s"] >= 2 * o["frames_per_s"],
            "meshing_2x_gpu": v["mesh_gpu_ms"] * 2 <= o["mesh_ms"],
            "meshing_2x_default": v["mesh_auto_ms"] * 2 <= o["mesh_ms"],
        }
        results.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)

    print(f"Voxen {voxen.__version__ if hasattr(voxen, '__version__') else ''} beside Open3D {o3d.__version__}: "
          f"{len(frames)} frames of {camera[0]} x {camera[1]}, medians of {args.repeat} runs\n")
    head = ("resolution", "library", "ms/frame", "frames/s", "mesh ms", "vertices", "mean mm", "p95 mm", "complete")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in results:
        v, c = row["voxen"], row["voxen_cpu_backend"]
        for name, r, mesh_ms in (("Open3D", row["open3d"], f"{row['open3d']['mesh_ms']:.0f}"),
                                 ("Voxen (GPU)", v, f"{v['mesh_gpu_ms']:.0f} GPU, {v['mesh_cpu_ms']:.0f} CPU ref")):
            print(f"| {row['resolution']:g} m | {name} | {r['ms_per_frame_median']:.1f} | {r['frames_per_s']:.2f} | {mesh_ms} | "
                  f"{r['vertices']:,} | {1e3 * r['mean_m']:.2f} | {1e3 * r['p95_m']:.2f} | {100 * r['completeness']:.1f}% |")
        print(f"| {row['resolution']:g} m | Voxen (CPU ref) | {c['ms_per_frame_median']:.1f} | {c['frames_per_s']:.2f} | "
              f"(default: {v['mesh_auto_ms']:.0f}, {v['mesh_auto_path']}) | same voxels | | | |")
    print()
    for row in results:
        print(f"{row['resolution']:g} m goals: " + ", ".join(f"{k} {'met' if ok else 'MISSED'}" for k, ok in row["goals"].items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"open3d_version": o3d.__version__, "frames": len(frames), "repeat": args.repeat, "results": results}, f,
                      indent=2)


if __name__ == "__main__":
    main()
