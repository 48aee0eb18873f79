#!/usr/bin/env bash
# Three `voxen map` processes map overlapping generated runs into one PostgreSQL store at the
# same time, each under its own session, checkpointing often; then the fused map equals
# `voxen merge --no-remainder` of the three runs mapped to files, bit for bit (the fused map
# keeps no occupancy_remainder), and each session equals its
# run's map.
#   pg_map_sessions.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" pg_map_sessions "$@"
source "$(dirname "$0")/../support/pg_cluster.sh"

layers=(--voxel-mean --hit-miss --traversal --touch-time)
for run in a:2:0 b:5:100 c:7:200; do
  IFS=: read -r name seed start <<< "$run"
  "$voxen" generate --cloud $name.ply --trajectory $name.txt --rings 16 --columns 256 --scans 6 --seed $seed --start-time $start > generate-$name.log
  "$voxen" map --cloud $name.ply --trajectory $name.txt --output $name.vxm --resolution 0.25 --quiet --cpu "${layers[@]}" > map-$name.log
done
"$voxen" merge a.vxm b.vxm c.vxm --no-remainder --output merged.vxm > merge.log 2> merge.err || fail "merge: $(cat merge.err)"

pids=()
for name in a b c; do
  "$voxen" map --cloud $name.ply --trajectory $name.txt --store "$pg_url" --session $name --checkpoint-s 0 --batch-size 4096 \
    --resolution 0.25 --quiet --cpu "${layers[@]}" > store-$name.log 2> store-$name.err &
  pids+=($!)
done
for i in 0 1 2; do wait ${pids[$i]} || fail "voxen map into the store ($i): $(cat store-*.err)"; done
for name in a b c; do no_validation store-$name.err "map $name into the store"; done
pg_psql "SELECT name, pushes FROM voxen_sessions ORDER BY name" > pushes.log
[ "$(pg_psql "SELECT min(pushes) FROM voxen_sessions")" -ge 4 ] || fail "each mapper should have pushed several checkpoints: $(cat pushes.log)"

"$voxen" convert "$pg_url" fused.vxm > fused.log 2> fused.err || fail "convert of the fused map: $(cat fused.err)"
cmp fused.vxm merged.vxm || fail "the fused map of three concurrent mappers differs from voxen merge of their maps"
for name in a b c; do
  "$voxen" convert "$pg_url" back-$name.vxm --session $name > /dev/null 2> back-$name.err || fail "read session $name: $(cat back-$name.err)"
  cmp $name.vxm back-$name.vxm || fail "session $name differs from the run mapped to a file"
done
echo "pg_map_sessions: ok"
