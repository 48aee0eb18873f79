# Sourced by the live tests (live_stream.sh, live_faults.sh) after support/common.sh, with
# `here` their folder and their second argument the python that has websockets: the stand-in
# peers, the background processes killed at exit, and where a server listens.
python=$2
peers="$here/live_peers.py"
pids=()  # background processes: append each one's pid
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

# server_port LOG: the port a voxen server said it listens on (waits up to 30 s for the line).
server_port() {
  local port=""
  for _ in $(seq 300); do
    port=$(sed -n 's/.*Foxglove WebSocket server on ws:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$1" | head -1)
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || fail "no server line in $1: $(cat "$1")"
  echo "$port"
}
