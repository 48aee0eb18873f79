#!/usr/bin/env bash
# Bad input and faults of voxen map --live (issue 41, item 6): a peer that is not a Foxglove
# server (an HTTP server; a WebSocket server of another protocol), a cloud topic that never
# arrives (the error names the topics the server has), clouds that do not decode (counted and
# skipped, the run goes on), flags that do not go with --live, a recording to play that is not
# there; none of them crashes, hangs or touches an existing output file.
#   live_faults.sh VOXEN_BINARY PYTHON WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../support/common.sh" live_faults "$@"
source "$here/live_support.sh" "$@"

wait_port() {  # wait_port FILE: the port a stand-in wrote there
  for _ in $(seq 200); do [ -s "$1" ] && break; sleep 0.05; done
  [ -s "$1" ] || fail "the stand-in server did not start"
  cat "$1"
}
echo "an older map" > keep.vxm
# live_fails NAME WANT ARGS...: voxen map --live ARGS fails (exit 1 or 2) with WANT in its
# message, and keep.vxm is untouched.
live_fails() {
  local name=$1 want=$2
  shift 2
  local status=0
  timeout 60 "$voxen" map "$@" --output keep.vxm > "$name.log" 2>&1 || status=$?
  [ "$status" = 1 ] || [ "$status" = 2 ] || fail "$name: exit status $status (want 1 or 2): $(cat "$name.log")"
  grep -q -- "$want" "$name.log" || fail "$name: the message does not say '$want': $(cat "$name.log")"
  [ "$(cat keep.vxm)" = "an older map" ] || fail "$name: the existing output was changed"
}

"$python" "$peers" http http.port > http.log 2>&1 &
pids+=($!)
live_fails http "not a Foxglove WebSocket server" --live "ws://127.0.0.1:$(wait_port http.port)" --duration 20

"$python" "$peers" ws-other ws.port > ws.log 2>&1 &
pids+=($!)
live_fails ws-other "without the subprotocol foxglove.websocket.v1" --live "ws://127.0.0.1:$(wait_port ws.port)" --duration 20

"$voxen" generate --recording run.mcap --scans 3 --rings 8 --columns 64 > gen.log 2>&1 || fail "generate: $(cat gen.log)"
"$voxen" play run.mcap --port 0 --loop --quiet > play.log 2>&1 &
pids+=($!)
port=$(server_port play.log)
live_fails no-topic "no point cloud arrived on topic /lidar/points in 2 s; the server advertises" \
  --live "ws://127.0.0.1:$port" --cloud-topic /lidar/points --topic-timeout 2 --duration 30
grep -q "/points (sensor_msgs/msg/PointCloud2, cdr)" no-topic.log || fail "no-topic: the topics there are not named: $(cat no-topic.log)"

"$python" "$peers" fake-foxglove fake.port 5 > fake.log 2>&1 &
pids+=($!)
live_fails malformed "no ray was mapped" --live "ws://127.0.0.1:$(wait_port fake.port)" --duration 3
grep -q "5 malformed" malformed.log || fail "malformed: the 5 clouds are not counted: $(cat malformed.log)"
grep -q "first: ws://127.0.0.1:[0-9]*: topic /points, cloud 0" malformed.log ||
  fail "malformed: the first error does not name the topic and cloud: $(cat malformed.log)"

live_fails with-input "give one of them" --live ws://127.0.0.1:1 --input run.mcap
live_fails with-store "--store and --output: a run maps into one of them" --live ws://127.0.0.1:1 --store s.vxs
live_fails bad-url "is not a WebSocket URL" --live http://127.0.0.1:1
live_fails depth "with --live: a stream's depth images into a TSDF are not supported yet" --live ws://127.0.0.1:1 --depth-topic /camera/depth
live_fails decay-store "--decay-s with --live --store" --live ws://127.0.0.1:1 --store s.vxs --decay-s 2
status=0
"$voxen" play no-such.mcap --port 0 > play-missing.log 2>&1 || status=$?
[ "$status" = 1 ] && grep -q "no-such.mcap" play-missing.log || fail "play of a missing file: exit $status: $(cat play-missing.log)"
live_fails bad-serve "--serve 'nope'" --live "ws://127.0.0.1:$port" --serve nope --duration 1
status=0
"$voxen" map --live ws://127.0.0.1:1 > no-output.log 2>&1 || status=$?
[ "$status" = 2 ] && grep -q -- "--output MAP.vxm (or --store STORE) is required" no-output.log ||
  fail "--live without --output: $(cat no-output.log)"
echo "live_faults: ok"
