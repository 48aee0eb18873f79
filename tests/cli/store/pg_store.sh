#!/usr/bin/env bash
# The PostgreSQL store on a throwaway cluster (pg_cluster.sh): three concurrent writers push
# overlapping maps, many pushes each, and the fused map equals `voxen merge --no-remainder` of
# the three maps bit for bit (the fused map is merged from every session at once and keeps no
# occupancy_remainder); each session reads back as pushed; a second writer on a live session is refused
# naming the first; another model is refused naming both; a corrupt row is an error naming the
# region and layer; a writer whose connection is cut reconnects and finishes; a server killed
# mid-push leaves a consistent, readable store.
# Then the store's hidden Catch2 case "[.pg]" (three writer threads) runs on its own database.
#   pg_store.sh VOXEN_BINARY VOXEN_TESTS_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" pg_store "$@"
voxen_tests=$2
source "$(dirname "$0")/../support/pg_cluster.sh"

layers=(--voxel-mean --hit-miss --traversal --touch-time)
for run in a:2:0 b:5:100 c:7:200; do
  IFS=: read -r name seed start <<< "$run"
  "$voxen" generate --cloud $name.ply --trajectory $name.txt --rings 16 --columns 256 --scans 3 --seed $seed --start-time $start > generate-$name.log
  "$voxen" map --cloud $name.ply --trajectory $name.txt --output $name.vxm --resolution 0.25 --quiet --cpu "${layers[@]}" > map-$name.log
done
"$voxen" merge a.vxm b.vxm c.vxm --no-remainder --output merged.vxm > merge.log 2> merge.err || fail "merge: $(cat merge.err)"
grep -q "([1-9][0-9]* held by several inputs)" merge.log || fail "the three runs do not overlap: $(cat merge.log)"

# Three writers at once, a few regions per push: many pushes each, racing for shared regions.
pids=()
for name in a b c; do
  "$voxen" convert $name.vxm "$pg_url" --session $name --push-regions 1 > push-$name.log 2> push-$name.err &
  pids+=($!)
done
for i in 0 1 2; do wait ${pids[$i]} || fail "push ${i}: $(cat push-*.err)"; done
[ "$(pg_psql "SELECT min(pushes) FROM voxen_sessions")" -ge 10 ] || fail "fewer pushes than expected: $(pg_psql "SELECT name, pushes FROM voxen_sessions")"
"$voxen" convert "$pg_url" fused.vxm > fused.log 2> fused.err || fail "convert of the fused map: $(cat fused.err)"
cmp fused.vxm merged.vxm || fail "the fused map differs from voxen merge of the three maps"
for name in a b c; do
  "$voxen" convert "$pg_url" back-$name.vxm --session $name > /dev/null 2> back-$name.err || fail "read session $name: $(cat back-$name.err)"
  cmp $name.vxm back-$name.vxm || fail "session $name reads back as another map than it pushed"
done
# Reading commands take the URL and --session; the password never shows.
"$voxen" info "$pg_url" --session b > info.log 2> info.err || fail "info: $(cat info.err)"
grep -q "PostgreSQL store .* session 'b'" info.log || fail "info did not name the session: $(head -3 info.log)"
"$voxen" export "$pg_url" --occupied-ply fused.ply > /dev/null 2> export.err || fail "export of the fused map: $(cat export.err)"
"$voxen" export merged.vxm --occupied-ply merged.ply > /dev/null
cmp fused.ply merged.ply || fail "export of the fused map differs from export of the merged map"
set +e
"$voxen" info "postgresql://voxen:s3cret@/voxen?host=$pg_dir&port=1" > secret.log 2>&1; status=$?
set -e
[ $status -eq 1 ] && grep -q "voxen:\*\*\*@" secret.log && ! grep -q s3cret secret.log || fail "a password shows or no error ($status): $(cat secret.log)"

# Refusals.
expect_failure() {  # expect_failure STATUS PATTERN LOG COMMAND...
  local want=$1 pattern=$2 log=$3
  shift 3
  set +e
  "$@" > "$log" 2>&1
  local got=$?
  set -e
  [ $got -eq "$want" ] && grep -q -- "$pattern" "$log" || fail "$* exited $got (wanted $want, '$pattern'): $(cat "$log")"
}
expect_failure 2 "give --session NAME" nosession.log "$voxen" convert a.vxm "$pg_url"
for command in "info a.vxm" "export a.vxm --occupied-ply o.ply" "convert a.vxm a.vxs"; do
  expect_failure 2 "'a.vxm' is not a PostgreSQL store\|neither IN nor OUT is a PostgreSQL store" session-file.log $voxen $command --session a
done
[ ! -e a.vxs ] && [ ! -e o.ply ] || fail "a refused --session left an output"
"$pg_bin/createdb" -h "$pg_dir" -U voxen empty || fail "createdb empty failed"
expect_failure 1 "holds no Voxen store" empty.log "$voxen" info "postgresql:///empty?host=$pg_dir&user=voxen"
expect_failure 1 "no session 'nobody' (its sessions: 'a', 'b', 'c')" nobody.log "$voxen" convert "$pg_url" nobody.vxm --session nobody
[ ! -e nobody.vxm ] || fail "a failed read left nobody.vxm"
"$voxen" map --cloud a.ply --trajectory a.txt --output coarse.vxm --resolution 0.5 --quiet --cpu "${layers[@]}" > map-coarse.log
expect_failure 1 "holds a map of resolution 0.25 m, not 0.5 m" coarse.log "$voxen" convert coarse.vxm "$pg_url" --session coarse
# NDT maps fuse as voxen merge pools them (their Gaussians as independent sample sets).
"$voxen" map --cloud a.ply --trajectory a.txt --output ndt-a.vxm --resolution 0.25 --quiet --cpu --ndt om > map-ndt.log
"$voxen" map --cloud b.ply --trajectory b.txt --output ndt-b.vxm --resolution 0.25 --quiet --cpu --ndt om >> map-ndt.log
"$pg_bin/createdb" -h "$pg_dir" -U voxen ndt || fail "createdb ndt failed"
ndt_url="postgresql:///ndt?host=$pg_dir&user=voxen"
"$voxen" convert ndt-a.vxm "$ndt_url" --session a > ndt.log 2>&1 || fail "push of an NDT map: $(cat ndt.log)"
"$voxen" convert ndt-b.vxm "$ndt_url" --session b >> ndt.log 2>&1 || fail "push of an NDT map: $(cat ndt.log)"
"$voxen" merge ndt-a.vxm ndt-b.vxm --no-remainder --output ndt-merged.vxm > /dev/null
"$voxen" convert "$ndt_url" ndt-fused.vxm > /dev/null 2>> ndt.log || fail "read of the NDT fused map: $(cat ndt.log)"
cmp ndt-fused.vxm ndt-merged.vxm || fail "the fused NDT map differs from voxen merge of the two NDT maps"
"$voxen" map --cloud a.ply --trajectory a.txt --output ndt-wide.vxm --resolution 0.25 --quiet --cpu --ndt om --ndt-initial-deviation 0.3 > /dev/null
expect_failure 1 "NDT Gaussians were made with" ndt-wide.log "$voxen" convert ndt-wide.vxm "$ndt_url" --session wide

# Clearance is kept per session, not fused: a store of maps with clearance fuses to the merge
# of the maps without it.
"$pg_bin/createdb" -h "$pg_dir" -U voxen clear || fail "createdb clear failed"
clear_url="postgresql:///clear?host=$pg_dir&user=voxen"
"$voxen" merge a.vxm b.vxm --no-remainder --output ab.vxm > /dev/null
for name in a b; do
  "$voxen" clearance $name.vxm --output clear-$name.vxm --range 1 --cpu --quiet > /dev/null
  "$voxen" convert clear-$name.vxm "$clear_url" --session $name --quiet > /dev/null 2> clear-$name.err || fail "push with clearance: $(cat clear-$name.err)"
done
"$voxen" convert "$clear_url" clear-fused.vxm > /dev/null
cmp clear-fused.vxm ab.vxm || fail "the fused map of maps with clearance differs from the merge of the maps without it"
"$voxen" convert "$clear_url" clear-back-a.vxm --session a > /dev/null
cmp clear-a.vxm clear-back-a.vxm || fail "a session with clearance reads back as another map"
expect_failure 1 "holds a map of layers" clear-layers.log "$voxen" convert c.vxm "$clear_url" --session c

# A second writer on a live session: the first, paused once it holds the session, is named.
"$voxen" generate --cloud big.ply --trajectory big.txt --rings 32 --columns 512 --scans 6 --seed 11 > generate-big.log
"$voxen" map --cloud big.ply --trajectory big.txt --output big.vxm --resolution 0.25 --quiet --cpu "${layers[@]}" > map-big.log
wait_pushes() {  # wait_pushes SESSION N: until the session has N pushes (at most 60 s)
  for _ in $(seq 600); do
    [ "$(pg_psql "SELECT coalesce(max(pushes), 0) FROM voxen_sessions WHERE name = '$1'")" -ge "$2" ] && return 0
    sleep 0.1
  done
  fail "session $1 never reached $2 pushes"
}
"$voxen" convert big.vxm "$pg_url" --session big --push-regions 1 --quiet > big.log 2> big.err &
big=$!
wait_pushes big 2
kill -STOP $big
expect_failure 1 "session 'big' is being written by process $big on host '$(hostname)'" second.log \
  "$voxen" convert a.vxm "$pg_url" --session big
# Its connection cut while it is paused: it reconnects, pushes again and ends with its map.
pg_psql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'voxen' AND pid <> pg_backend_pid() AND backend_type = 'client backend'" > /dev/null
kill -CONT $big
wait $big || fail "the writer whose connection was cut did not finish: $(cat big.err)"
grep -q "pushes were retried" big.err || fail "the writer did not say it retried a push: $(cat big.err)"
"$voxen" convert "$pg_url" back-big.vxm --session big > /dev/null
cmp big.vxm back-big.vxm || fail "the reconnected writer's session differs from its map"

# The server killed mid-push: every committed push is there, and the fused map is still the
# merge of the sessions as stored (a push is one transaction, fused rows included).
"$voxen" convert big.vxm "$pg_url" --session crash --push-regions 1 --quiet > crash.log 2> crash.err &
crash=$!
wait_pushes crash 5
pg_restart_immediate
wait $crash && echo "note: the writer finished after the restart (it reconnected)" >&2 || true
"$voxen" convert "$pg_url" crash.vxm --session crash > /dev/null 2> crash-read.err || fail "the store is unreadable after the crash: $(cat crash-read.err)"
[ "$(pg_psql "SELECT count(DISTINCT (x, y, z)) FROM voxen_session_rows WHERE session = 'crash'")" -ge 5 ] || fail "committed pushes were lost"
"$voxen" merge a.vxm b.vxm c.vxm back-big.vxm crash.vxm --no-remainder --output all.vxm > /dev/null 2> all.err || fail "merge: $(cat all.err)"
"$voxen" convert "$pg_url" fused-all.vxm > /dev/null
cmp fused-all.vxm all.vxm || fail "after the crash the fused map differs from the merge of the sessions as stored"

# A corrupt row: an error naming the session, the region and the layer.
pg_psql "UPDATE voxen_session_rows SET data = '\\x00'::bytea WHERE session = 'b' AND layer = (SELECT position FROM voxen_layers WHERE name = 'hit_miss') AND (x, y, z) = (SELECT x, y, z FROM voxen_session_rows WHERE session = 'b' ORDER BY x, y, z LIMIT 1)"
key=$(pg_psql "SELECT '(' || x || ',' || y || ',' || z || ')' FROM voxen_session_rows WHERE session = 'b' ORDER BY x, y, z LIMIT 1")
expect_failure 1 "corrupt row: session 'b' region $key layer 'hit_miss'" corrupt.log "$voxen" convert "$pg_url" corrupt.vxm --session b
[ ! -e corrupt.vxm ] || fail "a failed read left corrupt.vxm"
# Store format 2: row checksums cover the key, and description fields carry their own, so a
# region moved to another key and a changed resolution are refused by name, not read as
# another map.
read -r mx my mz <<< "$(pg_psql "SELECT x, y, z FROM voxen_session_rows WHERE session = 'c' ORDER BY x, y, z LIMIT 1" | tr '|' ' ')"
pg_psql "UPDATE voxen_session_rows SET x = x + 1000 WHERE session = 'c' AND x = $mx AND y = $my AND z = $mz" > /dev/null
expect_failure 1 "corrupt row: session 'c' region ($((mx + 1000)),$my,$mz) layer 'occupancy'.*checksum mismatch" moved.log \
  "$voxen" convert "$pg_url" moved.vxm --session c
pg_psql "UPDATE voxen_description SET value = '0.5' WHERE key = 'resolution'" > /dev/null
expect_failure 1 "description field 'resolution'.*does not match its checksum" resolution.log "$voxen" info "$pg_url"

# Three writer threads in one process, each with its own connection, on an empty database.
"$pg_bin/createdb" -h "$pg_dir" -U voxen threads || fail "createdb threads failed"
VOXEN_TEST_PG_URL="postgresql:///threads?host=$pg_dir&user=voxen" "$voxen_tests" "[.pg]" > catch.log 2>&1 ||
  fail "Catch2 [.pg]: $(tail -40 catch.log)"
grep -q "All tests passed" catch.log || fail "Catch2 [.pg] ran no case: $(tail -5 catch.log)"
echo "pg_store: ok"
