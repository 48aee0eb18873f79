#!/usr/bin/env bash
# voxen map --tsdf --store (issue 40, item 2): a depth run's map written into a region store at
# the end of the run (no checkpoints) holds the map file's map byte for byte (voxen convert back
# to a map file), and the reading commands take it: voxen info lists the tsdf layer, voxen mesh
# makes the map file's mesh, voxen render draws it. A second run replaces the store; the
# checkpoint options (--resume, --checkpoint-s, --host-memory-mb), --output with --store and
# --session with a file are refused by name, without touching an existing store.
#   store_tsdf.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" store_tsdf "$@"

"$voxen" generate --depth-recording tum/ --frames 4 --depth-width 160 --depth-height 120 > gen.log
"$voxen" map --input tum --tsdf --resolution 0.05 --output file.vxm --cpu --quiet
"$voxen" map --input tum --tsdf --resolution 0.05 --store run.vxs --cpu --json > store.json 2> store.err ||
  fail "map --tsdf --store: $(cat store.err)"
grep -q '"output":"region store run.vxs"' store.json || fail "the summary does not name the store: $(cat store.json)"
"$voxen" convert run.vxs back.vxm > convert.log
cmp file.vxm back.vxm || fail "the store holds another map than the map file"

"$voxen" info run.vxs --json > info.json 2> info.err || fail "info of the store: $(cat info.err)"
grep -q '"tsdf"' info.json || fail "voxen info does not list the store's tsdf layer: $(cat info.json)"
"$voxen" mesh run.vxs --output store.ply --cpu --quiet > mesh-store.log
"$voxen" mesh file.vxm --output file.ply --cpu --quiet > mesh-file.log
cmp store.ply file.ply || fail "the store's mesh differs from the map file's"
"$voxen" render run.vxs --output store.png --view top --json > render.json 2> render.err || fail "render of the store: $(cat render.err)"
grep -q '"layer":"tsdf"' render.json || fail "the store is not drawn from its TSDF: $(cat render.json)"

# Another run replaces the store whole (a depth run's store is written once, at the end).
"$voxen" map --input tum --tsdf --resolution 0.05 --tsdf-max-weight 2 --store run.vxs --cpu --quiet > again.log
"$voxen" map --input tum --tsdf --resolution 0.05 --tsdf-max-weight 2 --output light.vxm --cpu --quiet
"$voxen" convert run.vxs again.vxm > convert-again.log
cmp light.vxm again.vxm || fail "a second run did not replace the store with its map"

cp run.vxs kept.vxs
expect_refusal() {  # expect_refusal WORDS ARGS...: a failure with WORDS in the message, kept.vxs untouched
  local words=$1
  shift
  if "$voxen" "$@" > refused.out 2> refused.err; then fail "accepted: $*"; fi
  grep -q -- "$words" refused.err || fail "$*: the error does not say '$words': $(cat refused.err)"
  cmp -s run.vxs kept.vxs || fail "a refused run changed the store: $*"
}
expect_refusal "--resume does not go with --tsdf" map --input tum --tsdf --store run.vxs --resume
expect_refusal "--checkpoint-s does not go with --tsdf" map --input tum --tsdf --store run.vxs --checkpoint-s 5
expect_refusal "--host-memory-mb does not go with --tsdf" map --input tum --tsdf --store run.vxs --host-memory-mb 64
expect_refusal "--store and --output" map --input tum --tsdf --store run.vxs --output x.vxm
expect_refusal "--session is for a server store" map --input tum --tsdf --store run.vxs --session a
expect_refusal "--tsdf needs --output MAP.vxm (or --store STORE)" map --input tum --tsdf
echo "store tsdf: ok"
