#!/usr/bin/env bash
# The heightmap of a generated terrain (voxen generate --scene terrain), end to end: generate,
# map (with voxel means, for sub-voxel heights), voxen heightmap --npy (the GPU's file equal to
# the CPU reference's), and a check of what a robot of 0.8 m with --max-slope 30 and --max-step
# 0.2 must get: two levels under the bridge (the ground and the deck), the 15 degree ramp's
# slope and no lethal cell on it, the 40 degree ramp lethal, the 0.4 m step lethal from the
# ground and the 0.1 m one not, and a table whose top is a level while the floor under it is
# not (but is for a 0.5 m robot); and a seed point choosing the ground under the bridge or on it.
# Feature positions come from generate --json; design heights from TerrainDesign
# (engine/testdata/include/voxen/testdata/synthetic_lidar.hpp).
#   terrain.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" terrain_heightmap "$@"

# One loop (about 65 m at 3 m/s) with the default 64 x 1024 lidar.
"$voxen" generate --scene terrain --cloud run.ply --trajectory run.txt --scans 220 --speed 3 \
  --json > generate.json
grep -q '"scene":"terrain"' generate.json || fail "generate --json does not say the terrain scene: $(cat generate.json)"
grep -q '"sensor_height":1.5' generate.json || fail "--scene terrain: the sensor is not at 1.5 m: $(cat generate.json)"
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --voxel-mean --quiet > map.log 2> map.err
no_validation map.err map
"$voxen" heightmap map.vxm --output hm.vxh --npy hm --json > hm.json 2> hm.err
no_validation hm.err heightmap
"$voxen" heightmap map.vxm --output low.vxh --robot-height 0.5 --npy low --quiet > low.log 2> low.err
no_validation low.err "heightmap --robot-height 0.5"
# Columns of several levels, ramps and steps: the GPU's cells equal the CPU reference's here too.
"$voxen" heightmap map.vxm --output gpu.vxh --device gpu --quiet > gpu.log 2> gpu.err
no_validation gpu.err "heightmap --device gpu"
"$voxen" heightmap map.vxm --output cpu.vxh --cpu --quiet > cpu.log
cmp gpu.vxh cpu.vxh || fail "the GPU's heightmap of the terrain differs from the CPU reference's"

# A seed chooses the ground: at the bridge's centre on the ground, the passage under the deck;
# on the deck, the deck (voxen export --seed: one level per column).
read -r bx by < <(python3 -c "import json,sys; f={f['name']:f for f in json.load(open('generate.json'))['features']}['bridge']; print((f['min'][0]+f['max'][0])/2, (f['min'][1]+f['max'][1])/2)")
"$voxen" export hm.vxh --seed "$bx" "$by" 0.0 --npy seedlow > seedlow.log || fail "export --seed on the ground: $(cat seedlow.log)"
"$voxen" export hm.vxh --seed "$bx" "$by" 1.2 --npy seedhigh > seedhigh.log || fail "export --seed on the deck: $(cat seedhigh.log)"
"$voxen" export hm.vxh --seed -500 0 0 --npy far > far.log 2> far.err && fail "export --seed outside the heightmap: accepted"
grep -q -- "--seed" far.err || fail "export --seed outside: the error does not name --seed: $(cat far.err)"
"$voxen" export hm.vxh --seed 0 0 0 --level 1 --npy both > both.log 2> both.err && fail "export --seed with --level: accepted"

python3 - generate.json hm low <<'PYTHON' || fail "the terrain's heightmap is wrong (above)"
import ast, json, math, struct, sys

features = {f["name"]: f for f in json.load(open(sys.argv[1]))["features"]}
PLATFORM, TABLE_TOP, LOW_STEP, HIGH_STEP = 1.2, 0.8, 0.1, 0.4  # TerrainDesign
LETHAL = 254
failures = []

def npy(path):  # float32 levels x rows x columns, without NumPy
    with open(path, "rb") as f:
        data = f.read()
    header_length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + header_length].decode())
    assert header["descr"] == "<f4" and not header["fortran_order"], header
    levels, rows, columns = header["shape"]
    values = struct.unpack("<%df" % (levels * rows * columns), data[10 + header_length:])
    return lambda level, row, column: values[(level * rows + row) * columns + column]

class Heightmap:
    def __init__(self, prefix):
        self.meta = json.load(open(prefix + ".json"))
        self.height, self.slope, self.cost = (npy(f"{prefix}-{a}.npy") for a in ("height", "slope", "cost"))
    def cells(self, x0, y0, x1, y1):  # (column, row, x, y) of the cells whose centres lie in the rectangle
        m = self.meta
        r = m["resolution"]
        for row in range(m["height"]):
            y = m["origin_y"] + (row + 0.5) * r
            for column in range(m["width"]):
                x = m["origin_x"] + (column + 0.5) * r
                if x0 <= x <= x1 and y0 <= y <= y1:
                    yield column, row, x, y
    def level(self, column, row, level=0):  # (height, slope, cost), or None where absent
        h = self.height(level, row, column)
        return None if math.isnan(h) else (h, self.slope(level, row, column), self.cost(level, row, column))

def inset(name, margin):
    f = features[name]
    return f["min"][0] + margin, f["min"][1] + margin, f["max"][0] - margin, f["max"][1] - margin

def check(what, ok, detail):
    print(("ok    " if ok else "FAIL  ") + what + ": " + detail)
    if not ok:
        failures.append(what)

def median(values):
    values = sorted(values)
    return values[len(values) // 2] if values else float("nan")

hm, low = Heightmap(sys.argv[2]), Heightmap(sys.argv[3])

# Under the bridge: the ground and the deck, two levels in one column.
cells = list(hm.cells(*inset("bridge", 0.3)))
both = sum(1 for c, r, x, y in cells if (a := hm.level(c, r, 0)) and (b := hm.level(c, r, 1))
           and abs(a[0]) < 0.1 and abs(b[0] - PLATFORM) < 0.1)
check("bridge", both >= 0.8 * len(cells), f"{both} of {len(cells)} cells have the ground (0 m) and the deck ({PLATFORM} m) as levels 0 and 1")

# The ramps: heights on the incline, the median slope within `tolerance` degrees of the design,
# the gentle one without a lethal cell, the steep one lethal. (On the steep ramp a column's
# surface voxel, its highest occupied one, holds the top of the column's incline: the slopes
# read about 2 degrees steep there.)
def ramp(name, degrees, tolerance, lethal_wanted):
    f = features[name]
    x0, y0, x1, y1 = inset(name, 0.3)
    falling = degrees > 20  # the steep ramp falls eastward, the gentle one rises
    slopes, off, lethal, count = [], 0, 0, 0
    for c, r, x, y in hm.cells(x0, y0, x1, y1):
        count += 1
        level = hm.level(c, r, 0)
        if level is None:
            off += 1
            continue
        along = (x - f["min"][0]) / (f["max"][0] - f["min"][0])
        expected = PLATFORM * ((1 - along) if falling else along)
        off += abs(level[0] - expected) > 0.1
        slopes.append(level[1])
        lethal += level[2] == LETHAL
    m = median(slopes)
    check(name + " heights", off <= 0.1 * count, f"{count - off} of {count} cells within 0.1 m of the incline")
    check(name + " slope", abs(m - degrees) <= tolerance, f"median slope {m:.1f} degrees, {degrees} +- {tolerance} wanted")
    if lethal_wanted:
        check(name + " lethal", lethal >= 0.8 * count, f"{lethal} of {count} cells lethal (steeper than --max-slope 30)")
    else:
        check(name + " passable", lethal == 0, f"{lethal} of {count} cells lethal, none wanted")

ramp("gentle ramp", 15.0, 2.0, False)
ramp("steep ramp", 40.0, 4.0, True)

# The steps, approached from the west along each row through them: the ground within 0.25 m
# of the 0.4 m step's face is lethal; nothing up to and onto the 0.1 m step is.
def step_rows(name):
    f = features[name]
    rows = {}
    for c, r, x, y in hm.cells(f["min"][0] - 0.25, f["min"][1] + 0.2, f["min"][0] + 0.05, f["max"][1] - 0.2):
        level = hm.level(c, r, 0)
        rows.setdefault(r, []).append(level is not None and level[2] == LETHAL)
    return rows

high = step_rows("high step")
blocked = sum(1 for row in high.values() if any(row))
check("high step", blocked >= 0.9 * len(high), f"{blocked} of {len(high)} rows meet a lethal cell at the 0.4 m face")
lowrows = step_rows("low step")
clear = sum(1 for row in lowrows.values() if not any(row))
check("low step", clear >= 0.9 * len(lowrows), f"{clear} of {len(lowrows)} rows cross the 0.1 m face without a lethal cell")
for name, top in (("high step", HIGH_STEP), ("low step", LOW_STEP)):
    cells = list(hm.cells(*inset(name, 0.3)))
    on = sum(1 for c, r, x, y in cells if (l := hm.level(c, r, 0)) and abs(l[0] - top) < 0.05 and l[2] != LETHAL)
    check(name + " top", on >= 0.9 * len(cells), f"{on} of {len(cells)} cells a passable level at {top} m")

# The table: its top is a level; the floor under it has 0.7 m of room, too little for 0.8 m,
# but enough for a 0.5 m robot (so the floor was seen).
cells = list(hm.cells(*inset("table", 0.15)))
tops = sum(1 for c, r, x, y in cells if (l := hm.level(c, r, 0)) and abs(l[0] - TABLE_TOP) < 0.1)
floors = sum(1 for c, r, x, y in cells if (l := hm.level(c, r, 0)) and l[0] < 0.3)
check("table top", tops >= 0.8 * len(cells), f"{tops} of {len(cells)} cells have the top ({TABLE_TOP} m) as level 0")
check("under the table", floors == 0, f"{floors} of {len(cells)} cells have the floor as a level for a 0.8 m robot")
floors_low = sum(1 for c, r, x, y in low.cells(*inset("table", 0.15)) if (l := low.level(c, r, 0)) and abs(l[0]) < 0.1)
check("under the table, 0.5 m robot", floors_low >= 0.5 * len(cells),
      f"{floors_low} of {len(cells)} cells have the floor as level 0 for a 0.5 m robot")

# Open ground: flat and passable.
cells = list(hm.cells(*inset("open ground", 0.0)))
flat = sum(1 for c, r, x, y in cells if (l := hm.level(c, r, 0)) and abs(l[0]) < 0.05 and l[2] < LETHAL)
check("open ground", flat >= 0.95 * len(cells), f"{flat} of {len(cells)} cells flat (0 m) and passable")

# The seeds' ground under the bridge (one level each).
for prefix, want, what in (("seedlow", 0.0, "the passage under the deck"), ("seedhigh", PLATFORM, "the deck")):
    seeded = Heightmap(prefix)
    cells = list(seeded.cells(*inset("bridge", 0.3)))
    on = sum(1 for c, r, x, y in cells if (l := seeded.level(c, r, 0)) and abs(l[0] - want) < 0.1)
    check("seed " + prefix, on >= 0.8 * len(cells), f"{on} of {len(cells)} bridge cells are {what} ({want} m)")

sys.exit(1 if failures else 0)
PYTHON
echo "terrain heightmap: ok"
