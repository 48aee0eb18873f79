#!/usr/bin/env bash
# A robot's stream (issue 41, items 1 and 2): voxen play serves a generated recording as a
# Foxglove bridge would, voxen map --live maps it, and the map equals voxen map --input's of the
# same file byte for byte, from an MCAP file (ROS 2, cdr) and a bag (ROS 1, ros1); with
# --serve, a client that follows the run holds, at its end, every occupied voxel of the saved
# map and the status "done". A lost connection is retried: the player stopped and another
# started on the same port, the run maps the clouds of both; into a store, a run stopped by
# SIGTERM and resumed holds that same map. voxen serve sends a map's voxels
# (voxen info's count) to 20 clients at once, survives clients that come and go, refuses
# pages of other origins (403) and handshakes without the protocol (400), and serves the page.
#   live_stream.sh VOXEN_BINARY PYTHON WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../support/common.sh" live_stream "$@"
source "$here/live_support.sh" "$@"

occupied_of() {  # occupied_of MAP: voxen info's occupied voxel count
  "$voxen" info "$1" --verify --json 2> /dev/null | grep -o '"occupied":[0-9]*' | head -1 | cut -d: -f2
}

"$voxen" generate --recording run.mcap --scans 10 --rings 16 --columns 256 > gen.log 2>&1 || fail "generate: $(cat gen.log)"
"$voxen" generate --recording run.bag --scans 10 --rings 16 --columns 256 > gen-bag.log 2>&1 || fail "generate: $(cat gen-bag.log)"

for rec in run.mcap run.bag; do
  "$voxen" map --input "$rec" --output "file-$rec.vxm" --quiet > "file-$rec.log" 2>&1 || fail "map --input $rec: $(cat "file-$rec.log")"
  "$voxen" play "$rec" --port 0 --rate 2 --wait-for-client 60 --quiet > "play-$rec.log" 2>&1 &
  pids+=($!)
  port=$(server_port "play-$rec.log")
  "$voxen" map --live "ws://127.0.0.1:$port" --output "live-$rec.vxm" --duration 8 --json > "live-$rec.json" 2> "live-$rec.err" ||
    fail "map --live ($rec): $(cat "live-$rec.err")"
  no_validation "live-$rec.err" "map --live $rec"
  [ "$(json_number clouds_mapped "live-$rec.json")" = 10 ] || fail "$rec: not every cloud mapped: $(cat "live-$rec.json")"
  [ "$(json_number dropped_behind "live-$rec.json")" = 0 ] || fail "$rec: clouds dropped: $(cat "live-$rec.json")"
  cmp -s "live-$rec.vxm" "file-$rec.vxm" || fail "$rec: the live map differs from voxen map --input's"
done

# --serve: a client follows the run; at its end it holds the saved map's occupied voxels.
"$voxen" play run.mcap --port 0 --wait-for-client 60 --quiet > play-serve.log 2>&1 &
pids+=($!)
port=$(server_port play-serve.log)
"$voxen" map --live "ws://127.0.0.1:$port" --output served.vxm --duration 8 --serve :0 --serve-rate 5 > serve-run.log 2>&1 &
run=$!
pids+=($run)
serve_port=$(server_port serve-run.log)
"$python" "$peers" collect "ws://127.0.0.1:$serve_port" followed.json --seconds 60 || fail "the following client failed"
wait "$run" || fail "map --live --serve: $(cat serve-run.log)"
grep -q "this machine only: --bind 0.0.0.0" serve-run.log || fail "--serve on 127.0.0.1 does not say it is local: $(cat serve-run.log)"
"$python" - followed.json "$(occupied_of served.vxm)" <<'EOF' || fail "the following client's map: $(cat followed.json)"
import json, sys
r = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
assert r["status"]["state"] == "done", r["status"]
assert r["occupied"] == want, (r["occupied"], want)
assert r["status"]["occupied_voxels"] == want, r["status"]
assert r["status"]["clouds"] == 10 and r["status"]["dropped_clouds"] == 0, r["status"]
EOF

# --serve on a file run: the client ends holding the file map's voxels, state done; a
# two-phase run is refused (its publications would cut batches).
"$voxen" map --input run.mcap --output served-file.vxm --serve :0 --serve-rate 20 --serve-linger 3 > file-serve.log 2>&1 &
run=$!
pids+=($run)
serve_port=$(server_port file-serve.log)
"$python" "$peers" collect "ws://127.0.0.1:$serve_port" file-followed.json --seconds 60 || fail "the file run's client failed"
wait "$run" || fail "map --input --serve: $(cat file-serve.log)"
cmp -s served-file.vxm file-run.mcap.vxm || fail "--serve changed the file run's map"
"$python" - file-followed.json "$(occupied_of served-file.vxm)" <<'EOF' || fail "the file run's client: $(cat file-followed.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"]["state"] == "done" and r["occupied"] == int(sys.argv[2]), (r["status"], r["occupied"], sys.argv[2])
EOF
status=0
"$voxen" map --input run.mcap --output two.vxm --update-order two-phase --serve :0 > two-phase.log 2>&1 || status=$?
[ "$status" = 2 ] && grep -q "cuts a batch" two-phase.log || fail "--serve with two-phase: $(cat two-phase.log)"

# A lost connection: the player stops after its clouds, and another starts on the same port
# with the robot's next 10 scans (later stamps: a cloud stamped before the last one mapped is
# dropped, as the file reader drops it).
"$voxen" generate --recording later.mcap --scans 10 --rings 16 --columns 256 --start-time 100 > gen-later.log 2>&1 ||
  fail "generate: $(cat gen-later.log)"
"$voxen" play run.mcap --port 0 --wait-for-client 60 --quiet > play-a.log 2>&1 &
first=$!
pids+=($first)
port=$(server_port play-a.log)
"$voxen" map --live "ws://127.0.0.1:$port" --output reconnect.vxm --duration 12 --json > reconnect.json 2> reconnect.err &
run=$!
pids+=($run)
wait "$first" || fail "the first player failed: $(cat play-a.log)"
"$voxen" play later.mcap --port "$port" --wait-for-client 10 --quiet > play-b.log 2>&1 &
pids+=($!)
wait "$run" || fail "map --live across a lost connection: $(cat reconnect.err)"
grep -q "connection lost" reconnect.err || fail "the lost connection was not reported: $(cat reconnect.err)"
[ "$(json_number clouds_mapped reconnect.json)" = 20 ] || fail "not both plays' clouds mapped: $(cat reconnect.json)"
[ "$(json_number reconnects reconnect.json)" -ge 1 ] || fail "no reconnect counted: $(cat reconnect.json)"

# A robot that reboots continues its map: a --store run stopped by SIGTERM keeps a checkpoint
# and stays unfinished; voxen map --store STORE --resume (its options recorded) maps the next
# scans; the store then holds the map of one uninterrupted run over both, byte for byte.
"$voxen" play run.mcap --port 0 --wait-for-client 60 --quiet > play-c.log 2>&1 &
pids+=($!)
port=$(server_port play-c.log)
"$voxen" map --live "ws://127.0.0.1:$port" --store robot.vxs > robot-a.log 2>&1 &
run=$!
pids+=($run)
for _ in $(seq 300); do grep -q "10 clouds mapped" robot-a.log && break; sleep 0.1; done
grep -q "10 clouds mapped" robot-a.log || fail "the store run did not map the first 10 clouds: $(cat robot-a.log)"
kill -TERM "$run"
wait "$run" || fail "the store run stopped by SIGTERM failed: $(cat robot-a.log)"
grep -q "checkpoint 1 kept in robot.vxs; resume with: voxen map --store robot.vxs --resume" robot-a.log ||
  fail "the stopped store run does not say how to resume: $(cat robot-a.log)"
"$voxen" play later.mcap --port "$port" --wait-for-client 60 --quiet > play-d.log 2>&1 &
pids+=($!)
"$voxen" map --store robot.vxs --resume --duration 8 > robot-b.log 2>&1 || fail "--resume: $(cat robot-b.log)"
grep -q "continuing the run in robot.vxs" robot-b.log || fail "--resume does not say it continues: $(cat robot-b.log)"
"$voxen" convert robot.vxs robot.vxm > convert.log 2>&1 || fail "convert: $(cat convert.log)"
cmp -s robot.vxm reconnect.vxm || fail "the resumed store's map differs from one run over both plays"

# voxen serve: 20 clients at once, clients coming and going, origins, the protocol, the page.
want=$(occupied_of file-run.mcap.vxm)
"$voxen" serve file-run.mcap.vxm --port 0 --duration 60 > serve.log 2>&1 &
serve=$!
pids+=($serve)
port=$(server_port serve.log)
"$python" "$peers" churn "ws://127.0.0.1:$port" 30 || fail "clients that come and go"
"$python" "$peers" clients "ws://127.0.0.1:$port" 20 clients.json 3 || fail "20 clients"
"$python" - clients.json "$want" <<'EOF' || fail "20 clients: $(head -c 600 clients.json)"
import json, sys
rs = json.load(open(sys.argv[1]))
assert len(rs) == 20
for r in rs:
    assert r["occupied"] == int(sys.argv[2]), (r["occupied"], sys.argv[2])
    assert r["status"]["state"] == "serving" and r["grid_cells"] > 0, r
EOF
[ "$("$python" "$peers" handshake "ws://127.0.0.1:$port" --origin http://evil.example)" = 403 ] || fail "a page of another origin was let in"
[ "$("$python" "$peers" handshake "ws://127.0.0.1:$port" --origin "http://127.0.0.1:$port")" = 101 ] || fail "the server's own page was refused"
[ "$("$python" "$peers" handshake "ws://127.0.0.1:$port" --origin https://app.foxglove.dev)" = 101 ] || fail "Foxglove's web app was refused"
[ "$("$python" "$peers" handshake "ws://127.0.0.1:$port" --no-subprotocol)" = 400 ] || fail "a handshake without the protocol was let in"
status=$("$python" -c "import urllib.request, sys
try:
    print(urllib.request.urlopen('http://127.0.0.1:$port/').status)
except Exception as e:
    print(getattr(e, 'code', e))")
[ "$status" = 200 ] || [ "$status" = 404 ] || fail "GET / answered $status"
kill "$serve"
wait "$serve" 2> /dev/null || true
echo "live_stream: ok (MCAP and bag maps equal, --serve, reconnect, 20 clients, origins)"
