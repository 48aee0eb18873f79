#!/usr/bin/env bash
# Region stores on the command line: voxen convert both ways (a .vxm to a store and back is the
# same bytes), info, export (with --bbox reading only the box's rows), query and clearance on
# a store, and the refusals (a missing input, a bad --bbox, a corrupt row, an output that would
# overwrite the input).
#   store.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" store "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 256 --scans 3 --seed 2 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --resolution 0.25 --quiet --cpu --voxel-mean --hit-miss > map.log

# Both ways, lossless: the .vxm written back is the same bytes as the one voxen map wrote.
"$voxen" convert map.vxm map.vxs > to-store.log 2> to-store.err || fail "convert to a store: $(cat to-store.err)"
grep -q "(region store)" to-store.log || fail "convert did not say it wrote a store: $(cat to-store.log)"
head -c 16 map.vxs | grep -aq "SQLite format 3" || fail "map.vxs is not an SQLite file"
[ ! -e map.vxs-wal ] || fail "the store was left with a write-ahead log"
"$voxen" convert map.vxs back.vxm > to-map.log 2> to-map.err || fail "convert to a map file: $(cat to-map.err)"
cmp map.vxm back.vxm || fail ".vxm -> store -> .vxm changed the bytes"

# info on a store: the same model, layers and region count as on the map file.
"$voxen" info map.vxm > info-map.log
"$voxen" info map.vxs --verify > info-store.log 2> info-store.err || fail "info on a store: $(cat info-store.err)"
grep -q "region store (SQLite) map.vxs" info-store.log || fail "info does not name the store: $(cat info-store.log)"
for line in "regions:" "layers:" "resolution" "bounds:"; do
  [ "$(grep "^ *$line" info-map.log)" == "$(grep "^ *$line" info-store.log)" ] ||
    fail "info '$line' differs between map file and store: $(grep "^ *$line" info-map.log) / $(grep "^ *$line" info-store.log)"
done
grep -q "^verified: *every region" info-store.log || fail "info --verify on a store: $(cat info-store.log)"
"$voxen" info map.vxs --json > info-store.json
grep -q '"kind":"region_store"' info-store.json || fail "info --json: no kind: $(cat info-store.json)"

# export and query read a store as they read the map file: the same outputs.
"$voxen" export map.vxm --occupied-ply map.ply > /dev/null
"$voxen" export map.vxs --occupied-ply store.ply > /dev/null
cmp map.ply store.ply || fail "export of the store differs from export of the map file"
printf '0 0 0\n1 1 1\n2 0 1\n-3 2 0.5\n' > points.txt
"$voxen" query map.vxm --points points.txt --kind occupancy --cpu --quiet > map.csv
"$voxen" query map.vxs --points points.txt --kind occupancy --cpu --quiet > store.csv
cmp map.csv store.csv || fail "query on the store differs from query on the map file"

# --bbox: only the regions that intersect the box are read (their rows, 3 layers each).
total=$(grep "^regions:" info-store.log | awk '{print $2}')
"$voxen" export map.vxs --bbox 0 0 0 7.9 7.9 7.9 --occupied-ply box.ply > /dev/null 2> box.err || fail "export --bbox: $(cat box.err)"
grep -q "voxen export: --bbox: read [0-9]* of $total regions of store map.vxs" box.err || fail "export --bbox did not report: $(cat box.err)"
read_regions=$(sed -n 's/.*read \([0-9]*\) of.*/\1/p' box.err)
read_rows=$(sed -n 's/.*(\([0-9]*\) rows).*/\1/p' box.err)
# Region edge 8 m (32 x 0.25 m): the box lies within region (0,0,0).
[ "$read_regions" -eq 1 ] || fail "--bbox inside one region read $read_regions regions: $(cat box.err)"
[ "$read_rows" -eq 3 ] || fail "--bbox read $read_rows rows for one region of 3 layers: $(cat box.err)"
"$voxen" convert map.vxs part.vxm --bbox -8 -8 -8 8 8 8 > part.log 2> part.err
"$voxen" info part.vxm > part-info.log
part=$(grep "^regions:" part-info.log | awk '{print $2}')
[ "$part" -gt 1 ] && [ "$part" -lt "$total" ] || fail "convert --bbox kept $part of $total regions"

# clearance on a store writes a store.
cp map.vxs clear.vxs
"$voxen" clearance clear.vxs --in-place --range 1 --cpu > clear.log 2> clear.err || fail "clearance on a store: $(cat clear.err)"
head -c 16 clear.vxs | grep -aq "SQLite format 3" || fail "clearance in place turned the store into another format"
"$voxen" info clear.vxs | grep -q "^clearance:" || fail "the store lacks the clearance layer after voxen clearance"

# Refusals: exit status 2 for usage errors, 1 for failed runs, and no output left behind.
set +e
"$voxen" export map.vxs --bbox 1 0 0 0 1 1 --occupied-ply x.ply 2> bbox.err; status=$?
set -e
[ $status -eq 2 ] && grep -q "xmin 1.* is greater than xmax 0" bbox.err || fail "--bbox min > max: status $status: $(cat bbox.err)"
set +e
"$voxen" export map.vxs --bbox 0 0 nan 1 1 1 --occupied-ply x.ply 2> nan.err; status=$?
set -e
[ $status -eq 2 ] || fail "--bbox nan: status $status: $(cat nan.err)"
set +e
"$voxen" convert map.vxm map.vxm 2> same.err; status=$?
set -e
[ $status -eq 2 ] || fail "convert IN onto itself: status $status: $(cat same.err)"
set +e
"$voxen" convert map.vxm out.vxm 2> ext.err; status=$?
set -e
[ $status -eq 2 ] && grep -q "converts to a region store" ext.err || fail "a store named .vxm: status $status: $(cat ext.err)"
set +e
"$voxen" convert missing.vxm out.vxs 2> missing.err; status=$?
set -e
[ $status -eq 1 ] && grep -q "missing.vxm" missing.err || fail "a missing input: status $status: $(cat missing.err)"
[ ! -e out.vxs ] || fail "a failed convert left its output"
# A corrupt row: an Error naming the store, the region and the layer; the old output stays.
cp map.vxs corrupt.vxs
python3 - corrupt.vxs <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE regions SET data = x'00010203' WHERE id = (SELECT min(id) FROM regions WHERE layer = 1)")
db.commit()
PY
echo keep > old.vxm
set +e
"$voxen" convert corrupt.vxs old.vxm 2> corrupt.err; status=$?
set -e
[ $status -eq 1 ] && grep -q "corrupt.vxs" corrupt.err && grep -q "region (.*) layer 'voxel_mean'" corrupt.err ||
  fail "a corrupt row: status $status: $(cat corrupt.err)"
[ "$(cat old.vxm)" == keep ] || fail "a failed convert replaced its output"
echo "store: ok"
