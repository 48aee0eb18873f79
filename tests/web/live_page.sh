#!/usr/bin/env bash
# The browser page end to end: a generated run is mapped, `voxen serve` serves the map, and
# headless Chromium (live_page.mjs, puppeteer-core from web/node_modules) loads the page from
# it, waits for the first regions drawn, and checks that the canvas shows them, that the voxel
# count the page shows equals `voxen info --verify`'s occupied count, and that a second page
# joins in under a second. The screenshots are left in the work folder: live_page.png (the
# whole map) and live_page_slice.png (cut at 70% of its height, by the slice slider);
# VOXEN_WEB_SCREENSHOTS=FOLDER also copies both there (docs/images/ is made so).
#
#   live_page.sh VOXEN NODE CHROMIUM WORK_DIR
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../cli/support/common.sh" live_page "$@"
node=$2
chromium=$3

"$voxen" generate --cloud g.ply --trajectory g.txt --scans 10 > generate.log 2>&1 || fail "generate: $(cat generate.log)"
"$voxen" map --cloud g.ply --trajectory g.txt --output m.vxm --quiet > map.log 2>&1 || fail "map: $(cat map.log)"
"$voxen" info m.vxm --verify --json > info.json 2> info.err || fail "info: $(cat info.err)"
expected=$(json_number occupied info.json)
[ -n "$expected" ] || fail "voxen info --verify --json gives no occupied count: $(cat info.json)"

"$voxen" serve m.vxm --port 0 > serve.out 2> serve.err &
serve_pid=$!
trap 'kill "$serve_pid" 2> /dev/null; wait "$serve_pid" 2> /dev/null' EXIT
# serve says where it listens on stderr: "Foxglove WebSocket server on ws://HOST:PORT (page:
# http://HOST:PORT/)", or "(page: no browser page in this build)".
url=""
for _ in $(seq 300); do
  url=$(grep -oE 'http://[^ )",]+' serve.err | head -1) || true
  [ -n "$url" ] && break
  grep -q "no browser page" serve.err && fail "serve has no page to serve: $(cat serve.err)"
  kill -0 "$serve_pid" 2> /dev/null || fail "serve exited before listening: $(cat serve.err)"
  sleep 0.1
done
[ -n "$url" ] || fail "serve named no address within 30 s: $(cat serve.err)"
echo "serving $expected voxels at $url"

"$node" "$here/live_page.mjs" --url "$url" --expected "$expected" --chromium "$chromium" --screenshot live_page.png ||
  fail "the page check failed (above); serve said: $(cat serve.err)"
kill -0 "$serve_pid" 2> /dev/null || fail "serve died while the page was open: $(cat serve.err)"
if [ -n "${VOXEN_WEB_SCREENSHOTS:-}" ]; then
  cp live_page.png live_page_slice.png "$VOXEN_WEB_SCREENSHOTS"/
  echo "screenshots: $VOXEN_WEB_SCREENSHOTS/live_page.png, live_page_slice.png"
fi
