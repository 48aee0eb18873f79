#!/usr/bin/env python3
"""Map a simulated lidar run with Voxen, plan a path through it by clearance, check the path
with ray casts, and draw a slice of the map with the path coloured by clearance.

    PYTHONPATH=build/python python3 examples/python/plan_with_clearance.py --output plan.png

The run is made here with NumPy: a sensor drives through a 16 m x 8 m room with pillars and
a dividing wall, and each scan's rays end where they meet the first surface. Nothing but
NumPy, matplotlib and voxen is needed.
"""
import argparse
import heapq
import time

import numpy as np

import voxen

ROOM = np.array([[-8.0, -4.0, 0.0], [8.0, 4.0, 3.0]])  # lo, hi corners (m)
PILLARS = [(-4.0, 1.0, 0.5), (-1.0, -1.5, 0.6), (2.5, 1.2, 0.5), (5.0, -1.8, 0.4)]  # x, y, radius
WALL = (0.8, -4.0, 1.2, 1.0)  # a wall across the room from y=-4 to y=1, x in [0.8, 1.2]


def first_hit(origin, directions):
    """Distance along each unit direction from origin to the first surface of the scene."""
    far = np.full(len(directions), np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        # The room's six faces, seen from inside.
        for axis in range(3):
            for bound in ROOM[:, axis]:
                t = (bound - origin[axis]) / directions[:, axis]
                far = np.where(t > 1e-9, np.minimum(far, t), far)
        # Vertical pillars: |(o + t d)_xy - c| = r.
        for cx, cy, r in PILLARS:
            ox, oy = origin[0] - cx, origin[1] - cy
            a = directions[:, 0] ** 2 + directions[:, 1] ** 2
            b = 2 * (ox * directions[:, 0] + oy * directions[:, 1])
            c = ox * ox + oy * oy - r * r
            disc = b * b - 4 * a * c
            t = (-b - np.sqrt(np.maximum(disc, 0))) / (2 * a)
            far = np.where((disc >= 0) & (t > 1e-9), np.minimum(far, t), far)
        # The wall: an axis-aligned box (slab test).
        lo = np.array([WALL[0], WALL[1], ROOM[0, 2]])
        hi = np.array([WALL[2], WALL[3], ROOM[1, 2]])
        t0 = (lo - origin) / directions
        t1 = (hi - origin) / directions
        near = np.nanmax(np.minimum(t0, t1), axis=1)
        exit_ = np.nanmin(np.maximum(t0, t1), axis=1)
        far = np.where((near <= exit_) & (near > 1e-9), np.minimum(far, near), far)
    return far


def simulate_run(scans, beams, rng):
    """A lidar on a robot driving along y = 2.5 (past the wall's end): points, their times and
    the trajectory (t x y z), as a recorded run would give them."""
    times = np.linspace(0.0, 10.0, scans)
    trajectory = np.column_stack([times, np.linspace(-7, 7, scans), np.full(scans, 2.5), np.full(scans, 1.2)])
    points, point_times = [], []
    for t, x, y, z in trajectory:
        directions = rng.normal(size=(beams, 3))
        directions[:, 2] *= 0.4  # a lidar's beams are mostly level
        directions /= np.linalg.norm(directions, axis=1, keepdims=True)
        origin = np.array([x, y, z])
        points.append(origin + directions * first_hit(origin, directions)[:, None])
        point_times.append(np.full(beams, t))
    return np.concatenate(points), np.concatenate(point_times), trajectory


def plan(free, cost, start, goal):
    """A* over the 8-connected free cells of a 2D grid; each step costs its length times the
    cell's cost. Returns the cells from start to goal, or raises if there is no way."""
    rows, cols = free.shape
    steps = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx]
    best = {start: 0.0}
    came = {}
    queue = [(0.0, start)]
    while queue:
        _, cell = heapq.heappop(queue)
        if cell == goal:
            path = [cell]
            while cell in came:
                cell = came[cell]
                path.append(cell)
            return path[::-1]
        for dy, dx in steps:
            nxt = (cell[0] + dy, cell[1] + dx)
            if not (0 <= nxt[0] < rows and 0 <= nxt[1] < cols) or not free[nxt]:
                continue
            g = best[cell] + np.hypot(dy, dx) * cost[nxt]
            if g < best.get(nxt, np.inf):
                best[nxt] = g
                came[nxt] = cell
                heapq.heappush(queue, (g + np.hypot(goal[0] - nxt[0], goal[1] - nxt[1]), nxt))
    raise SystemExit("no path: the start and the goal are not connected through free space")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="plan.png", help="the figure (PNG)")
    parser.add_argument("--scans", type=int, default=60, help="lidar scans along the run")
    parser.add_argument("--beams", type=int, default=20000, help="rays per scan")
    parser.add_argument("--resolution", type=float, default=0.1, help="voxel edge (m)")
    parser.add_argument("--height", type=float, default=1.2, help="the planning slice's height (m)")
    args = parser.parse_args()

    rng = np.random.default_rng(7)
    points, times, trajectory = simulate_run(args.scans, args.beams, rng)
    mapper = voxen.Mapper(resolution=args.resolution)
    started = time.perf_counter()
    stats = mapper.integrate_cloud(points, times, trajectory)
    mapper.sync()  # integrate_cloud returns once the rays are submitted; wait for the GPU to time it
    print(f"mapped {stats['rays']:,} rays in {time.perf_counter() - started:.2f} s")

    # Clearance up to 1.5 m; unknown space counts as an obstacle (unknown_free=False). The floor
    # is left out (ignore_below: voxels whose centre is below 0.2 m are never obstacles): a ground
    # robot drives on it, and with it every free voxel at 1.2 m would read about 1.2 m, the
    # distance down to the floor, instead of the room to the walls and pillars.
    mapper.compute_clearance(1.5, ignore_below=0.2)
    lo, hi = mapper.bounds
    classes = mapper.slice(args.height)  # [row = y, col = x]
    rows, cols = classes.shape
    res = mapper.resolution
    xs = lo[0] + (np.arange(cols) + 0.5) * res
    ys = lo[1] + (np.arange(rows) + 0.5) * res
    gx, gy = np.meshgrid(xs, ys)
    centres = np.column_stack([gx.ravel(), gy.ravel(), np.full(gx.size, args.height)])
    clearance = mapper.clearance(centres).reshape(rows, cols)
    clearance = np.nan_to_num(clearance, nan=0.0)

    # Plan from the room's west end to behind the wall: free cells at least one robot radius
    # (0.3 m) from obstacles, cheaper the more room there is.
    robot_radius = 0.3
    free = (classes == 0) & (clearance >= robot_radius)
    cost = 1.0 + 4.0 / np.maximum(clearance, 0.05)

    def cell_of(x, y):
        return int((y - lo[1]) / res), int((x - lo[0]) / res)

    path = plan(free, cost, cell_of(-6.5, 2.5), cell_of(3.0, -3.0))
    path_xyz = np.array([[xs[c], ys[r], args.height] for r, c in path])
    path_clearance, gradient = mapper.clearance(path_xyz, gradient=True)

    # Every leg of the path, cast against the map: nothing occupied (or unknown) between waypoints.
    legs = np.diff(path_xyz, axis=0)
    lengths = np.linalg.norm(legs, axis=1)
    hits = mapper.raycast(path_xyz[:-1], legs, lengths, unknown_blocks=True)
    if hits["hit"].any():
        raise SystemExit(f"the planned path crosses {int(hits['hit'].sum())} blocked legs")
    print(f"path: {len(path)} waypoints, {lengths.sum():.1f} m, clearance min {path_clearance.min():.2f} m; "
          f"{len(legs)} legs cast, none blocked")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    fig, ax = plt.subplots(figsize=(11, 6))
    palette = ListedColormap(["#d9d9d9", "#ffffff", "#303030"])  # unknown, free, occupied
    ax.imshow(classes + 1, cmap=palette, vmin=0, vmax=2, origin="lower", interpolation="nearest",
              extent=(lo[0], lo[0] + cols * res, lo[1], lo[1] + rows * res))
    line = ax.scatter(path_xyz[:, 0], path_xyz[:, 1], c=path_clearance, cmap="viridis", s=12, zorder=3)
    ax.plot(trajectory[:, 1], trajectory[:, 2], "--", color="tab:red", lw=1, label="sensor trajectory")
    fig.colorbar(line, ax=ax, label="clearance along the path (m)")
    handles = [Patch(facecolor="#303030", label="occupied"), Patch(facecolor="#ffffff", edgecolor="k", label="free"),
               Patch(facecolor="#d9d9d9", label="unknown"), ax.get_legend_handles_labels()[0][0]]
    fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=9, frameon=False)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title(f"Voxen: slice at z = {args.height} m, path planned by clearance (robot radius {robot_radius} m)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
