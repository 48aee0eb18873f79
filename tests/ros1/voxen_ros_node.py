#!/usr/bin/python3
"""voxen_ros end to end (issue 41, item 3), on a throwaway roscore in a temporary folder.

Usage: voxen_ros_node.py VOXEN VOXEN_ROS GENERATED_PYTHON_DIR WORK_DIR

1. A recording from `voxen generate --recording X.bag`, played with `rosbag play` into the node
   (GPU on the default device); once its status says every cloud is in its published snapshot:
   - the node's map file (saved at SIGINT) equals `voxen map --input X.bag --cpu --clearance 2`'s
     byte for byte, and so does the one its save_map service wrote;
   - the OccupancyGrid equals the Nav2 export of `voxen heightmap` of that map, cell for cell;
   - the occupied-voxel PointCloud2 and CUBE_LIST markers hold the map's occupied voxels;
   - query_occupancy, query_clearance and raycast answer an occupied, a free and an unknown
     point, and check_path two swept spheres, as `voxen query` answers them on the reference map.
2. Bad input, on a second node: a cloud topic that never arrives is reported after ~cloud_timeout
   naming the point cloud topics published; clouds without an x field are counted and skipped;
   clouds arriving faster than the node takes them are dropped whole and counted, and clouds tf
   never poses are counted with tf's reason;
   a node that integrated nothing leaves an existing output file as it was; a third node with a
   resolution of -1 stops at start-up naming the parameter, and names a misspelt one.
The roscore, nodes and players are killed at exit, also on failure. Exit 77: no roscore.
"""
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

VOXEN, VOXEN_ROS, GEN_PY, WORK = (os.path.abspath(a) for a in sys.argv[1:5])
SCANS = 20
CLEARANCE = 2.0

os.makedirs(WORK, exist_ok=True)
TMP = tempfile.mkdtemp(prefix="ros1-", dir=WORK)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


PORT = free_port()
os.environ.update({
    "ROS_MASTER_URI": f"http://127.0.0.1:{PORT}",
    "ROS_HOME": os.path.join(TMP, "ros_home"),
    "ROS_LOG_DIR": os.path.join(TMP, "ros_log"),
    "ROS_IP": "127.0.0.1",
    "ROSCONSOLE_STDOUT_LINE_BUFFERED": "1",
})
os.environ.pop("ROS_HOSTNAME", None)
sys.path.insert(0, GEN_PY)

if shutil.which("roscore") is None or shutil.which("rosbag") is None:
    print("SKIP: roscore or rosbag not installed (python3-roslaunch, python3-rosbag)")
    sys.exit(77)

import rosgraph  # noqa: E402
import rospy  # noqa: E402
from nav_msgs.msg import OccupancyGrid  # noqa: E402
from sensor_msgs.msg import PointCloud2, PointField  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from visualization_msgs.msg import Marker, MarkerArray  # noqa: E402
from geometry_msgs.msg import Point, Vector3  # noqa: E402
from voxen_ros.srv import CheckPath, QueryClearance, QueryOccupancy, Raycast, SaveMap  # noqa: E402

processes = []  # (name, Popen): killed at exit, each in its own process group


def start(name, cmd):
    log = open(os.path.join(TMP, name + ".log"), "w")
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=TMP)
    processes.append((name, p))
    return p


def stop(p, sig=signal.SIGINT, timeout=60):
    if p.poll() is None:
        os.killpg(p.pid, sig)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    return p.returncode


def cleanup():
    for name, p in reversed(processes):
        if p.poll() is None:
            try:
                stop(p, signal.SIGINT, 15)
            except ProcessLookupError:
                pass


def log_of(name):
    with open(os.path.join(TMP, name + ".log")) as f:
        return f.read()


failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def run(cmd):
    r = subprocess.run(cmd, cwd=TMP, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"command failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return r.stdout


def csv_rows(text):
    lines = [l for l in text.strip().splitlines() if l]
    head = lines[0].split(",")
    return [dict(zip(head, l.split(","))) for l in lines[1:]]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def read_pgm(path):
    with open(path, "rb") as f:
        data = f.read()
    parts, pos = [], 0
    while len(parts) < 4:  # magic, width, height, maxval
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        parts.append(data[pos:end])
        pos = end
    assert parts[0] == b"P5", parts
    w, h = int(parts[1]), int(parts[2])
    return w, h, data[pos + 1:pos + 1 + w * h]


def read_ply_vertices(path):
    """Occupied voxel centres (double x, y, z, float value) of voxen export --occupied-ply --double --with-value."""
    with open(path, "rb") as f:
        data = f.read()
    head_end = data.index(b"end_header\n") + len(b"end_header\n")
    n = int([l for l in data[:head_end].split(b"\n") if l.startswith(b"element vertex")][0].split()[2])
    return [struct.unpack_from("<dddf", data, head_end + 28 * i) for i in range(n)]


def wait_status(topic, predicate, timeout):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = json.loads(rospy.wait_for_message(topic, String, timeout=2).data)
        except rospy.ROSException:
            continue
        if predicate(last):
            return last
        time.sleep(0.2)
    return last


try:
    roscore = start("roscore", ["roscore", "-p", str(PORT)])
    master = rosgraph.Master("/voxen_ros_test")
    for _ in range(300):
        try:
            master.getPid()
            break
        except Exception:
            time.sleep(0.1)
    else:
        raise SystemExit("roscore did not come up:\n" + log_of("roscore"))

    # The recording and what the file tools make of it.
    bag = os.path.join(TMP, "run.bag")
    run([VOXEN, "generate", "--recording", bag, "--scans", str(SCANS), "--rings", "16", "--columns", "512"])
    ref = os.path.join(TMP, "ref.vxm")
    run([VOXEN, "map", "--input", bag, "--output", ref, "--cpu", "--clearance", str(CLEARANCE), "--quiet"])
    run([VOXEN, "heightmap", ref, "--output", os.path.join(TMP, "ref.vxh"), "--cpu", "--quiet"])
    run([VOXEN, "export", os.path.join(TMP, "ref.vxh"), "--nav2", os.path.join(TMP, "ref_nav2.yaml")])
    run([VOXEN, "export", ref, "--occupied-ply", os.path.join(TMP, "ref.ply"), "--double", "--with-value"])
    voxels = read_ply_vertices(os.path.join(TMP, "ref.ply"))

    # 1. The node, fed by rosbag play.
    output = os.path.join(TMP, "node.vxm")
    node = start("node", [VOXEN_ROS, "__name:=voxen_ros", "_cloud_topic:=/points", f"_output:={output}",
                          "_publish_rate:=2.0", f"_clearance:={CLEARANCE}", "_queue_size:=200"])
    rospy.init_node("voxen_ros_test", anonymous=True, disable_signals=True)
    rospy.wait_for_service("/voxen_ros/query_occupancy", timeout=120)
    player = start("rosbag_play", ["rosbag", "play", "-q", "-d", "1", bag])
    check(player.wait(120) == 0, "rosbag play played the recording")
    # Every cloud taken from the queue (integrated or not) and in the published snapshot.
    status = wait_status("/voxen_ros/status", lambda s: s["clouds_received"] >= SCANS and s["clouds_queued"] == 0
                         and s["snapshot_clouds"] == s["clouds_integrated"]
                         and s["clouds_integrated"] + s["clouds_dropped"] + s["clouds_malformed"] + s["clouds_without_tf"]
                         + s["clouds_backwards"] >= SCANS, 180)
    print("status:", json.dumps(status), flush=True)
    check(status is not None and status["clouds_received"] == SCANS and status["clouds_integrated"] == SCANS
          and status["snapshot_clouds"] == SCANS, f"the node received and integrated all {SCANS} clouds")
    check(status is not None and status["clouds_dropped"] == 0 and status["clouds_malformed"] == 0
          and status["clouds_without_tf"] == 0, "no cloud dropped, malformed or without tf")

    # The 2D map against the Nav2 export of the reference map's heightmap.
    grid = rospy.wait_for_message("/voxen_ros/map", OccupancyGrid, timeout=30)
    yaml_text = open(os.path.join(TMP, "ref_nav2.yaml")).read()
    fields = {l.split(":", 1)[0].strip(): l.split(":", 1)[1].strip() for l in yaml_text.splitlines() if ":" in l and not l.startswith("#")}
    origin = [float(v) for v in fields["origin"].strip("[]").split(",")]
    w, h, pixels = read_pgm(os.path.join(TMP, "ref_nav2.pgm"))
    check(grid.info.width == w and grid.info.height == h, f"OccupancyGrid {grid.info.width} x {grid.info.height} cells, the Nav2 export's {w} x {h}")
    check(abs(grid.info.resolution - float(fields["resolution"])) < 1e-6, f"OccupancyGrid resolution {grid.info.resolution}")
    check(abs(grid.info.origin.position.x - origin[0]) < 1e-9 and abs(grid.info.origin.position.y - origin[1]) < 1e-9,
          f"OccupancyGrid origin ({grid.info.origin.position.x}, {grid.info.origin.position.y}) = the YAML's {origin[:2]}")
    expected = []
    for y in range(h):
        row = pixels[(h - 1 - y) * w:(h - y) * w]  # the PGM's rows are top first
        expected += [0 if p == 254 else 100 if p == 0 else -1 for p in row]
    values = list(grid.data)
    counts = {v: values.count(v) for v in (0, 100, -1)}
    check(values == expected, f"OccupancyGrid cells equal the Nav2 export's (free {counts[0]}, lethal {counts[100]}, unknown {counts[-1]})")
    check(grid.header.frame_id == "map", f"OccupancyGrid in frame '{grid.header.frame_id}'")

    # The occupied voxels as a cloud and as markers.
    cloud = rospy.wait_for_message("/voxen_ros/occupied_voxels", PointCloud2, timeout=30)
    check(cloud.width * cloud.height == len(voxels), f"occupied-voxel cloud of {cloud.width} points, the map's {len(voxels)} occupied voxels")
    got = sorted(struct.unpack_from("<fff", cloud.data, cloud.point_step * i) for i in range(cloud.width))
    want = sorted((f32(x), f32(y), f32(z)) for x, y, z, _ in voxels)
    check(got == want, "occupied-voxel cloud holds the map's voxel centres")
    markers = rospy.wait_for_message("/voxen_ros/occupied_markers", MarkerArray, timeout=30)
    m = markers.markers[0]
    check(m.type == Marker.CUBE_LIST and len(m.points) == len(voxels) and len(m.colors) == len(voxels)
          and abs(m.scale.x - 0.1) < 1e-9, f"CUBE_LIST marker of {len(m.points)} voxel cubes, coloured")

    # Services against voxen query on the reference map.
    occupied = voxels[len(voxels) // 2][:3]
    points = [occupied, (0.5, 0.0, 1.2), (1000.0, 1000.0, 1000.0)]
    with open(os.path.join(TMP, "points.txt"), "w") as f:
        f.writelines(f"{x!r} {y!r} {z!r}\n" for x, y, z in points)
    ros_points = [Point(*p) for p in points]
    occ = rospy.ServiceProxy("/voxen_ros/query_occupancy", QueryOccupancy)(ros_points)
    ref_occ = csv_rows(run([VOXEN, "query", ref, "--kind", "occupancy", "--points", "points.txt", "--cpu", "--quiet"]))
    check(occ.success and list(occ.occupancy) == [1, 0, -1], f"query_occupancy: occupied, free, unknown ({list(occ.occupancy)})")
    check([r["class"] for r in ref_occ] == ["occupied", "free", "unknown"] and list(occ.status) == [r["status"] for r in ref_occ]
          and all(f32(a) == f32(r["value"]) for a, r in zip(occ.log_odds[:2], ref_occ[:2])),
          f"query_occupancy's log-odds and status equal voxen query's ({list(occ.log_odds)}, {list(occ.status)})")
    clr = rospy.ServiceProxy("/voxen_ros/query_clearance", QueryClearance)(ros_points)
    ref_clr = csv_rows(run([VOXEN, "query", ref, "--kind", "clearance", "--points", "points.txt", "--cpu", "--quiet"]))
    check(clr.success and all(f32(a) == f32(r["clearance"]) for a, r in zip(clr.clearance, ref_clr))
          and list(clr.status) == [r["status"] for r in ref_clr],
          f"query_clearance equals voxen query's ({list(clr.clearance)}, {list(clr.status)})")
    origin_pt = (0.5, 0.0, 1.2)
    direction = tuple(o - s for o, s in zip(occupied, origin_pt))
    reach = sum(d * d for d in direction) ** 0.5 + 1.0
    with open(os.path.join(TMP, "rays.txt"), "w") as f:
        f.write(" ".join(repr(v) for v in origin_pt + direction) + "\n" + "0.5 0.0 1.2 0.0 0.0 1.0\n")
    ray = rospy.ServiceProxy("/voxen_ros/raycast", Raycast)([Point(*origin_pt)] * 2, [Vector3(*direction), Vector3(0, 0, 1)], reach, False)
    ref_ray = csv_rows(run([VOXEN, "query", ref, "--kind", "raycast", "--rays", "rays.txt", "--max-range", repr(reach), "--cpu", "--quiet"]))
    check(ray.success and list(ray.hit) == [int(r["hit"]) for r in ref_ray] and ray.hit[0] == 1
          and abs(ray.distance[0] - float(ref_ray[0]["distance"])) <= 1e-9 * max(1.0, ray.distance[0])
          and list(ray.status) == [r["status"] for r in ref_ray],
          f"raycast towards an occupied voxel hits it at {ray.distance[0]:.4f} m, as voxen query's ({ref_ray[0]['distance']})")
    # Two swept spheres: into the occupied voxel, and a short one at the sensor's start.
    ends = [occupied, (0.6, 0.0, 1.2)]
    with open(os.path.join(TMP, "paths.txt"), "w") as f:
        f.writelines(" ".join(repr(v) for v in origin_pt + tuple(e)) + "\n" for e in ends)
    path_points = [Point(*origin_pt), Point(*ends[0]), Point(*origin_pt), Point(*ends[1])]
    paths = rospy.ServiceProxy("/voxen_ros/check_path", CheckPath)(path_points, [0, 2, 4], 0.1, "")
    ref_path = csv_rows(run([VOXEN, "query", ref, "--kind", "path", "--paths", "paths.txt", "--radius", "0.1", "--cpu", "--quiet"]))
    check(paths.success and list(paths.collides) == [int(r["collides"]) for r in ref_path] and paths.collides[0] == 1
          and list(paths.segment) == [int(r["segment"]) for r in ref_path]
          and all(f32(a) == f32(r["t"]) for a, r in zip(paths.t, ref_path)) and list(paths.status) == [r["status"] for r in ref_path],
          f"check_path: the path into an occupied voxel collides (t {paths.t[0]:.4f}), as voxen query --kind path says")
    saved = os.path.join(TMP, "saved_by_service.vxm")
    save = rospy.ServiceProxy("/voxen_ros/save_map", SaveMap)(saved)
    check(save.success and save.clouds == SCANS and os.path.exists(saved), f"save_map: {save.message} ({save.clouds} clouds)")

    # SIGINT: the node saves its map; it equals voxen map's.
    rc = stop(node)
    check(rc == 0, f"the node ended on SIGINT with status {rc}")
    validation = [l for l in log_of("node").splitlines() if "VUID" in l or "alidation" in l]
    check(not validation, "no Vulkan validation message from the node (VOXEN_VALIDATION=1 under ctest)"
          + (": " + validation[0] if validation else ""))
    same = os.path.exists(output) and open(output, "rb").read() == open(ref, "rb").read()
    check(same, "the node's map file (saved at SIGINT) equals voxen map --cpu --clearance's byte for byte")
    check(os.path.exists(saved) and open(saved, "rb").read() == open(ref, "rb").read(), "so does save_map's")
    run([VOXEN, "export", output, "--occupied-ply", os.path.join(TMP, "node.ply"), "--double", "--with-value"])
    check(open(os.path.join(TMP, "node.ply"), "rb").read() == open(os.path.join(TMP, "ref.ply"), "rb").read(),
          f"the node's occupied voxels equal voxen map's ({len(voxels)}, values included)")

    # 2. Bad input, on a second node that maps on the CPU reference.
    keep = os.path.join(TMP, "keep.vxm")
    with open(keep, "wb") as f:
        f.write(b"an earlier map, not to be destroyed")
    bad = start("node_bad", [VOXEN_ROS, "__name:=voxen_bad", "_cloud_topic:=/bad_points", "_cloud_timeout:=1.5",
                             "_device:=cpu", "_publish_rate:=10.0", f"_output:={keep}", "_queue_size:=1", "_tf_wait:=1.0"])
    decoy = rospy.Publisher("/decoy_points", PointCloud2, queue_size=1, latch=True)
    bad_pub = rospy.Publisher("/bad_points", PointCloud2, queue_size=10)
    rospy.wait_for_service("/voxen_bad/query_occupancy", timeout=60)
    deadline = time.time() + 20
    while time.time() < deadline and "no cloud on /bad_points" not in log_of("node_bad"):
        time.sleep(0.2)
    warning = [l for l in log_of("node_bad").splitlines() if "no cloud on /bad_points" in l]
    print("warning:", warning[:1], flush=True)
    check(bool(warning) and "/decoy_points" in warning[0],
          "a cloud topic that never arrives: warned after ~cloud_timeout, naming the point cloud topics published")
    for _ in range(50):
        if bad_pub.get_num_connections() > 0:
            break
        time.sleep(0.1)
    malformed = PointCloud2()
    malformed.header.frame_id = "lidar"
    malformed.height, malformed.width = 1, 4
    malformed.fields = [PointField("y", 0, PointField.FLOAT32, 1), PointField("z", 4, PointField.FLOAT32, 1)]
    malformed.point_step, malformed.row_step = 8, 32
    malformed.data = bytes(32)
    for i in range(3):
        malformed.header.stamp = rospy.Time(1, i)
        bad_pub.publish(malformed)
        time.sleep(0.1)
    status = wait_status("/voxen_bad/status", lambda s: s["clouds_malformed"] == 3, 30)
    print("bad node status:", json.dumps(status), flush=True)
    check(status is not None and status["clouds_malformed"] == 3 and status["clouds_integrated"] == 0
          and "x" in status["last_error"], "clouds without an x field: counted and skipped, naming the field")
    check(bad.poll() is None, "the node is still running after them")
    # Good clouds with no tf at all, faster than the node takes them: each waits ~tf_wait for a
    # pose, so with ~queue_size 1 the ones behind it are dropped whole; the rest end without tf.
    good = PointCloud2()
    good.header.frame_id = "lidar"
    good.height, good.width = 1, 4
    good.fields = [PointField(n, 4 * i, PointField.FLOAT32, 1) for i, n in enumerate("xyz")]
    good.point_step, good.row_step = 12, 48
    good.data = struct.pack("<12f", *([1.0, 0.0, 0.0] * 4))
    for i in range(6):
        good.header.stamp = rospy.Time(2, i * 1000)
        bad_pub.publish(good)
        time.sleep(0.02)
    status = wait_status("/voxen_bad/status", lambda s: s["clouds_received"] == 9 and s["clouds_queued"] == 0
                         and s["clouds_dropped"] + s["clouds_without_tf"] == 6, 60)
    print("bad node status:", json.dumps(status), flush=True)
    check(status is not None and status["clouds_dropped"] >= 1 and status["clouds_without_tf"] >= 1
          and status["clouds_dropped"] + status["clouds_without_tf"] == 6 and status["clouds_integrated"] == 0,
          "clouds faster than the node takes them: dropped whole and counted; clouds tf never poses: counted")
    check("cloud dropped whole" in log_of("node_bad") and "no tf from the sensor frame" in log_of("node_bad"),
          "both said in the log")
    rc = stop(bad)
    check(rc == 0, f"the second node ended on SIGINT with status {rc}")
    check(open(keep, "rb").read() == b"an earlier map, not to be destroyed", "a node that integrated nothing left the existing output file as it was")
    refused = start("node_param", [VOXEN_ROS, "__name:=voxen_param", "_resolution:=-1.0", "_resolutoin:=0.2"])
    try:
        rc = refused.wait(60)
    except subprocess.TimeoutExpired:
        rc = stop(refused)
    check(rc == 2 and "parameter ~resolution" in log_of("node_param"),
          f"a resolution of -1 is refused at start-up naming ~resolution (status {rc})")
    check("parameter ~resolutoin is not one the node reads" in log_of("node_param"), "a misspelt parameter is named")
finally:
    try:
        rospy.signal_shutdown("test done")
    except Exception:
        pass
    cleanup()

if failures:
    print(f"{len(failures)} check(s) failed; logs in {TMP}:")
    for name, _ in processes:
        print(f"---- {name}.log (tail)\n" + "\n".join(log_of(name).splitlines()[-25:]))
    sys.exit(1)
print("all checks passed")
shutil.rmtree(TMP, ignore_errors=True)
