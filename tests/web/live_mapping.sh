#!/usr/bin/env bash
# The page during a live run: `voxen play` serves a generated recording as a robot's Foxglove
# bridge would, `voxen map --live ... --serve :0` maps it and serves the map as it grows, and
# headless Chromium (live_mapping.mjs) watches the page: the map grows, the status says
# mapping, the path and pose arrive, and once every cloud is mapped the page holds what the
# status counts. SIGTERM (handled as Ctrl-C) then ends the run, and the saved map's occupied count
# (voxen info --verify) must equal the page's. Leaves live_page_mapping.png (mid-run) in the
# work folder; VOXEN_WEB_SCREENSHOTS=FOLDER also copies it there.
#
#   live_mapping.sh VOXEN NODE CHROMIUM WORK_DIR
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../cli/support/common.sh" live_mapping "$@"
node=$2
chromium=$3
scans=60

"$voxen" generate --recording r.mcap --scans "$scans" --rings 32 --columns 512 > generate.log 2>&1 || fail "generate: $(cat generate.log)"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done; wait 2> /dev/null' EXIT
address() {  # address FILE SCHEME: the first SCHEME:// address FILE names, waiting up to 30 s (empty: none)
  local found=""
  for _ in $(seq 300); do
    found=$(grep -oE "$2://[^ )\",]+" "$1" | head -1) || true
    [ -n "$found" ] && break
    sleep 0.1
  done
  echo "$found"
}

# play waits for the mapper to subscribe, so the run starts with the mapper listening.
"$voxen" play r.mcap --port 0 --wait-for-client 60 > play.out 2> play.err &
pids+=($!)
robot=$(address play.err ws)
[ -n "$robot" ] || fail "play named no ws:// address within 30 s: $(cat play.err)"
"$voxen" map --live "$robot" --serve :0 --output live.vxm > map.out 2> map.err &
map_pid=$!
pids+=("$map_pid")
page=$(address map.err http)
[ -n "$page" ] || fail "map --serve named no http:// address within 30 s: $(cat map.err)"
echo "robot $robot, map served at $page"

"$node" "$here/live_mapping.mjs" --url "$page" --clouds "$scans" --chromium "$chromium" \
  --screenshot live_page_mapping.png > page.log 2>&1 || fail "the page check failed: $(cat page.log); map said: $(cat map.err)"
cat page.log
shown=$(sed -n 's/^FINAL //p' page.log)
kill -TERM "$map_pid"  # as Ctrl-C (SIGINT is ignored by a background job of a script)
wait "$map_pid" || fail "map --live ended with an error when stopped: $(cat map.err)"
"$voxen" info live.vxm --verify --json > info.json 2> info.err || fail "info: $(cat info.err)"
saved=$(json_number occupied info.json)
[ "$shown" = "$saved" ] || fail "the page held $shown voxels at the end, the saved map has $saved"
echo "PASS: the page followed the live run to the saved map's $saved voxels"
if [ -n "${VOXEN_WEB_SCREENSHOTS:-}" ]; then
  cp live_page_mapping.png "$VOXEN_WEB_SCREENSHOTS"/
  echo "screenshot: $VOXEN_WEB_SCREENSHOTS/live_page_mapping.png"
fi
