#!/usr/bin/env bash
# What a region store's checksums cover, on the command line (issue 35 item 4): a region moved
# to another key, two 8-byte layers' rows trading positions, a changed resolution or hit
# probability in the description, and a damaged first byte are each refused by info, convert
# or export with an error naming the store and the region, layer or field (they used to read
# as another map, or the damaged store as a bad map file), and a failed convert keeps its
# output.
#   store_integrity.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" store_integrity "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 128 --scans 2 --seed 3 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --resolution 0.25 --quiet --cpu --traversal --touch-time > map.log
"$voxen" convert map.vxm map.vxs > convert.log

tamper() {  # tamper COPY SQL: a copy of map.vxs changed by SQL
  cp map.vxs "$1"
  python3 - "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript(sys.argv[2])
db.commit()
PY
}
refused() {  # refused WHAT PATTERN COMMAND...: exit status 1 and PATTERN in its stderr
  local what=$1 pattern=$2
  shift 2
  set +e
  "$@" > refused.out 2> refused.err
  local status=$?
  set -e
  [ $status -eq 1 ] && grep -q -- "$pattern" refused.err || fail "$what: status $status, stderr: $(cat refused.err)"
}

# The first region (lowest key) and the positions of traversal and touch_time.
read -r x y z < <(python3 -c "
import sqlite3; db = sqlite3.connect('map.vxs')
print(*db.execute('SELECT x, y, z FROM regions ORDER BY x, y, z LIMIT 1').fetchone())")
where="x = $x AND y = $y AND z = $z"
traversal=$(python3 -c "import sqlite3; print(sqlite3.connect('map.vxs').execute(\"SELECT position FROM layers WHERE name = 'traversal'\").fetchone()[0])")
touch=$(python3 -c "import sqlite3; print(sqlite3.connect('map.vxs').execute(\"SELECT position FROM layers WHERE name = 'touch_time'\").fetchone()[0])")

echo keep > out.vxm
tamper moved.vxs "UPDATE regions SET x = x + 1000 WHERE $where"
refused "a region moved to another key" "moved.vxs.*region ($((x + 1000)),$y,$z) layer 'occupancy'.*checksum mismatch" \
  "$voxen" convert moved.vxs out.vxm
[ "$(cat out.vxm)" == keep ] || fail "a refused convert replaced its output"

tamper swapped.vxs "UPDATE regions SET layer = -1 WHERE layer = $traversal AND $where;
UPDATE regions SET layer = $traversal WHERE layer = $touch AND $where;
UPDATE regions SET layer = $touch WHERE layer = -1 AND $where"
refused "two layers' rows swapped" "swapped.vxs.*region ($x,$y,$z) layer '\(traversal\|touch_time\)'.*checksum mismatch" \
  "$voxen" export swapped.vxs --occupied-ply swapped.ply

tamper resolution.vxs "UPDATE description SET value = 0.5 WHERE key = 'resolution'"
refused "a changed resolution" "resolution.vxs.*description field 'resolution'.*does not match its checksum" "$voxen" info resolution.vxs
tamper hit.vxs "UPDATE description SET value = 0.9 WHERE key = 'hit_probability'"
refused "a changed hit probability" "hit.vxs.*description field 'hit_probability'.*does not match its checksum" \
  "$voxen" convert hit.vxs out.vxm

cp map.vxs damaged.vxs
printf 'X' | dd of=damaged.vxs bs=1 seek=0 conv=notrunc status=none
for command in "info damaged.vxs" "convert damaged.vxs out.vxm" "export damaged.vxs --occupied-ply damaged.ply"; do
  # shellcheck disable=SC2086
  refused "a damaged first byte ($command)" "store 'damaged.vxs': looks like a damaged region store.*byte 0" "$voxen" $command
done
[ "$(cat out.vxm)" == keep ] || fail "a refused convert replaced its output"

# The untouched store still reads as the map it came from.
"$voxen" convert map.vxs back.vxm > back.log
cmp map.vxm back.vxm || fail "the untouched store does not convert back to the same map"
echo "store_integrity: ok"
