#!/usr/bin/env bash
# voxen map --tsdf --store on a PostgreSQL server (a throwaway cluster, pg_cluster.sh): two
# depth runs, one per session (exact depths, and the same walk with depth noise), pushed at the
# end of each run; each session reads back as its run's map file byte for byte, and the fused
# map equals voxen merge --no-remainder of the two map files (the tsdf layer's weighted mean);
# a server without --session is refused by name.
#   pg_tsdf.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" pg_tsdf "$@"
source "$(dirname "$0")/../support/pg_cluster.sh"

"$voxen" generate --depth-recording clean/ --frames 4 --depth-width 160 --depth-height 120 > gen-clean.log
"$voxen" generate --depth-recording noisy/ --frames 4 --depth-width 160 --depth-height 120 --depth-noise 0.02 > gen-noisy.log
for run in clean noisy; do
  "$voxen" map --input $run --tsdf --resolution 0.05 --output $run.vxm --cpu --quiet
  "$voxen" map --input $run --tsdf --resolution 0.05 --store "$pg_url" --session $run --cpu --json > push-$run.json 2> push-$run.err ||
    fail "map --tsdf --store (session $run): $(cat push-$run.err)"
  grep -q "\"output\":\"PostgreSQL store .*session '$run'\"" push-$run.json || fail "the summary does not name the session: $(cat push-$run.json)"
  "$voxen" convert "$pg_url" back-$run.vxm --session $run > back-$run.log 2> back-$run.err || fail "read session $run: $(cat back-$run.err)"
  cmp $run.vxm back-$run.vxm || fail "session $run reads back as another map than its run's map file"
done
"$voxen" merge clean.vxm noisy.vxm --no-remainder --output merged.vxm > merge.log 2> merge.err || fail "merge: $(cat merge.err)"
"$voxen" convert "$pg_url" fused.vxm > fused.log 2> fused.err || fail "convert of the fused map: $(cat fused.err)"
cmp fused.vxm merged.vxm || fail "the fused map differs from voxen merge of the two runs"
if "$voxen" map --input clean --tsdf --store "$pg_url" > nosession.log 2>&1; then fail "a server store without --session was accepted"; fi
grep -q -- "--session NAME" nosession.log || fail "no session: $(cat nosession.log)"
echo "pg tsdf: ok"
