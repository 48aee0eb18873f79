#!/usr/bin/env bash
# Voxen's Foxglove WebSocket server and client against the protocol's reference implementation
# (npm @foxglove/ws-protocol, from web/node_modules; ws_protocol_interop.mjs does the talking):
#   serve:  the reference client reads `voxen serve` of a generated map: every channel of
#           docs/live.md advertised as documented, the regions' occupied counts summing to
#           voxen info's count, the status "serving".
#   play:   the reference client reads `voxen play` of a generated MCAP recording: /points,
#           /tf, /tf_static advertised as ROS 2 (cdr, ros2msg), every cloud and transform
#           message received and decoded.
#   server: the reference server replays what `voxen play` sends of a generated ROS 1 bag (the
#           same channels, schemas and bytes, at the recorded 10 Hz); `voxen map --live` maps it
#           into the very map `voxen map --input` makes of the bag (cmp), 5 of 5 clouds, none
#           dropped. So voxen's client works with a server other than its own. The same again
#           from an MCAP recording (ROS 2: cdr, ros2msg).
#
#   ws_protocol_interop.sh VOXEN NODE serve|play|server WORK_DIR
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../cli/support/common.sh" "ws_protocol_interop ${3:-}" "$@"
node=$2
part=$3
script="$here/ws_protocol_interop.mjs"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null; wait "$p" 2> /dev/null; done' EXIT

# server_url LOG PID: the ws:// address a voxen server names on stderr (waits up to 30 s).
server_url() {
  local url=""
  for _ in $(seq 300); do
    url=$(grep -oE 'ws://[0-9.]+:[0-9]+' "$1" | head -1) || true
    [ -n "$url" ] && break
    kill -0 "$2" 2> /dev/null || fail "exited before listening: $(cat "$1")"
    sleep 0.1
  done
  [ -n "$url" ] || fail "no server address in $1 within 30 s: $(cat "$1")"
  echo "$url"
}

case "$part" in
serve)
  "$voxen" generate --cloud g.ply --trajectory g.txt --scans 10 > generate.log 2>&1 || fail "generate: $(cat generate.log)"
  "$voxen" map --cloud g.ply --trajectory g.txt --output m.vxm --quiet > map.log 2>&1 || fail "map: $(cat map.log)"
  "$voxen" info m.vxm --verify --json > info.json 2> info.err || fail "info: $(cat info.err)"
  expected=$(json_number occupied info.json)
  [ -n "$expected" ] || fail "voxen info --verify --json gives no occupied count: $(cat info.json)"
  "$voxen" serve m.vxm --port 0 --duration 120 > serve.out 2> serve.err &
  pids+=("$!")
  url=$(server_url serve.err $!) || exit 1
  "$node" "$script" serve --url "$url" --expected "$expected" --docs "$here/../../docs/live.md" ||
    fail "the reference client's check of voxen serve failed (above); serve said: $(cat serve.err)"
  kill -0 "${pids[0]}" 2> /dev/null || fail "voxen serve died during the check: $(cat serve.err)"
  ;;
play)
  "$voxen" generate --recording rec.mcap --scans 5 > generate.log 2>&1 || fail "generate: $(cat generate.log)"
  "$voxen" play rec.mcap --port 0 --wait-for-client 30 --json > play.json 2> play.err &
  pids+=("$!")
  url=$(server_url play.err $!) || exit 1
  "$node" "$script" play --url "$url" --clouds 5 --summary play.json ||
    fail "the reference client's check of voxen play failed (above); play said: $(cat play.err)"
  wait "${pids[0]}" || fail "voxen play failed: $(cat play.err)"
  ;;
server)
  for rec in rec.bag rec.mcap; do
    "$voxen" generate --recording $rec --scans 5 > generate-$rec.log 2>&1 || fail "generate: $(cat generate-$rec.log)"
    "$voxen" map --input $rec --output file-$rec.vxm --quiet > file-$rec.log 2>&1 || fail "map --input $rec: $(cat file-$rec.log)"
    "$voxen" play $rec --port 0 --wait-for-client 30 --quiet > play-$rec.log 2>&1 &
    pids+=("$!")
    url=$(server_url play-$rec.log $!) || exit 1
    "$node" "$script" relay --url "$url" --clouds 5 --out-file relay-$rec.url > relay-$rec.log 2>&1 &
    relay=$!
    pids+=("$relay")
    for _ in $(seq 300); do
      [ -s relay-$rec.url ] && break
      kill -0 "$relay" 2> /dev/null || fail "$rec: the reference server did not start: $(cat relay-$rec.log)"
      sleep 0.1
    done
    [ -s relay-$rec.url ] || fail "$rec: the reference server named no address within 30 s: $(cat relay-$rec.log)"
    reference=$(cat relay-$rec.url)
    "$voxen" map --live "$reference" --output live-$rec.vxm --duration 10 --json > live-$rec.json 2> live-$rec.err ||
      fail "$rec: map --live $reference (the reference server): $(cat live-$rec.err); the server: $(cat relay-$rec.log)"
    no_validation live-$rec.err "map --live ($rec)"
    cat live-$rec.err relay-$rec.log
    grep -q "^replayed " relay-$rec.log ||
      fail "$rec: the reference server had not replayed every message when the run ended: $(cat relay-$rec.log)"
    [ "$(json_number clouds_mapped live-$rec.json)" = 5 ] || fail "$rec: not 5 of 5 clouds mapped from the reference server: $(cat live-$rec.json)"
    for count in dropped_behind dropped_backwards dropped_no_pose malformed; do
      [ "$(json_number $count live-$rec.json)" = 0 ] || fail "$rec: $count is not 0: $(cat live-$rec.json)"
    done
    cmp live-$rec.vxm file-$rec.vxm || fail "$rec: the map from the reference server differs from voxen map --input $rec's"
    echo "$rec: voxen map --live from the reference server: 5 of 5 clouds, the map equals voxen map --input's byte for byte"
    kill "$relay"
  done
  ;;
*)
  fail "usage: ws_protocol_interop.sh VOXEN NODE serve|play|server WORK_DIR"
  ;;
esac
