#!/usr/bin/env bash
# voxen map --store on the command line: the store of a run equals the map file of the same run
# (with and without --host-memory-mb); a run killed with SIGKILL mid-run leaves a readable store
# at its last checkpoint, which info/export read while the run writes, and --resume ends with the
# uninterrupted map byte for byte; the refusals (flags without --store, --store with --output, a
# store that already holds a run, other settings on resume, a complete run, a second writer).
#   store_mapping.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" store_mapping "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 512 --scans 40 --seed 3 > generate.log
run=(--cloud run.ply --trajectory run.txt --resolution 0.2 --hit-miss --quiet)
"$voxen" map "${run[@]}" --output ref.vxm > ref.log 2> ref.err || fail "reference map: $(cat ref.err)"

# Into a store, with default settings and with a host limit of 1 MB (the map is several MB).
"$voxen" map "${run[@]}" --store plain.vxs > plain.log 2> plain.err || fail "map --store: $(cat plain.err)"
"$voxen" convert plain.vxs plain.vxm > /dev/null
cmp ref.vxm plain.vxm || fail "the store's map differs from the map file's"
"$voxen" map "${run[@]}" --store small.vxs --host-memory-mb 1 --json > small.json 2> small.err || fail "map --host-memory-mb: $(cat small.err)"
"$voxen" convert small.vxs small.vxm > /dev/null
cmp ref.vxm small.vxm || fail "the map kept within 1 MB of host memory differs from the map file's"
grep -q '"evictions":[1-9]' small.json || fail "--host-memory-mb 1 dropped no region: $(cat small.json)"
grep -q '"peak_rss_mb":[0-9]' small.json || fail "no peak_rss_mb in --json: $(cat small.json)"
"$voxen" info small.vxs > small-info.log
grep -q "^mapping run: *complete" small-info.log || fail "info does not show the complete run: $(cat small-info.log)"

# NDT into a store: the store records the NDT settings (its description is written before the
# integrator starts), so that it merges with a map file of the same settings. (The CPU
# reference: the GPU's NDT fold orders its float updates by CAS, so two GPU runs may differ in
# the last bits.)
"$voxen" map "${run[@]}" --cpu --ndt om --store ndt.vxs > ndt.log 2> ndt.err || fail "map --ndt --store: $(cat ndt.err)"
"$voxen" map "${run[@]}" --cpu --ndt om --output ndt.vxm > /dev/null 2> ndt-file.err || fail "map --ndt: $(cat ndt-file.err)"
"$voxen" convert ndt.vxs ndt-back.vxm > /dev/null
cmp ndt.vxm ndt-back.vxm || fail "the NDT store's map differs from the NDT map file's"
"$voxen" merge ndt.vxs ndt.vxm --output ndt-merged.vxm > merge.log 2> merge.err || fail "merge of an NDT store: $(cat merge.err)"

# SIGKILL mid-run (the CPU reference, one thread, a checkpoint after every chunk: slow enough to
# be caught running), watched from here with voxen info as a second terminal would.
"$voxen" map "${run[@]}" --cpu --batch-size 4096 --threads 1 --store killed.vxs --checkpoint-s 0 > killed.log 2> killed.err &
pid=$!
checkpoints=0
for _ in $(seq 1 600); do
  if "$voxen" info killed.vxs --json > watch.json 2> watch.err; then
    checkpoints=$(sed -n 's/.*"checkpoints":\([0-9]*\).*/\1/p' watch.json)
    [ "${checkpoints:-0}" -ge 3 ] && break
  fi
  kill -0 $pid 2> /dev/null || break
  sleep 0.05
done
kill -KILL $pid 2> /dev/null ||
  fail "the run ended before it could be killed (checkpoints seen: $checkpoints; last info: $(cat watch.err); the run: $(cat killed.err))"
wait $pid 2> /dev/null || true
[ "${checkpoints:-0}" -ge 3 ] || fail "voxen info never saw 3 checkpoints of the running map: $(cat watch.json 2>/dev/null)"
"$voxen" info killed.vxs --verify > killed-info.log 2> killed-info.err || fail "the killed run's store is not readable: $(cat killed-info.err)"
grep -q "^mapping run: *stopped: its writer (pid $pid on this host) is gone" killed-info.log ||
  fail "info does not show the stopped run: $(cat killed-info.log)"
grep -q "voxen map --store killed.vxs --resume continues it" killed-info.log || fail "info does not say how to resume: $(cat killed-info.log)"
"$voxen" export killed.vxs --occupied-ply killed.ply > /dev/null 2> export.err || fail "export of the killed run's store: $(cat export.err)"

# Resumed with other settings: refused by flag; then resumed as it was: the uninterrupted map.
if "$voxen" map --cloud run.ply --trajectory run.txt --resolution 0.25 --hit-miss --quiet --cpu --store killed.vxs --resume \
  > other.log 2> other.err; then fail "--resume with another --resolution was accepted"; fi
grep -q "was started with --resolution" other.err || grep -q "resolution" other.err || fail "other settings: $(cat other.err)"
"$voxen" map "${run[@]}" --cpu --batch-size 4096 --store killed.vxs --resume > resumed.log 2> resumed.err || fail "--resume: $(cat resumed.err)"
"$voxen" convert killed.vxs resumed.vxm > /dev/null
"$voxen" map "${run[@]}" --cpu --output ref-cpu.vxm > /dev/null
cmp ref-cpu.vxm resumed.vxm || fail "the resumed run's map differs from the uninterrupted run's"

# A full disk during a checkpoint (a file size limit: writes fail with EFBIG once the store's file
# or its log reaches 120 KB, about half the finished store, as each checkpoint is folded into
# the file): the run fails naming the store, the store is readable at a checkpoint, and
# --resume (with room again) ends with the uninterrupted map.
if (ulimit -f 120; trap '' XFSZ; exec "$voxen" map "${run[@]}" --cpu --batch-size 4096 --threads 1 --store full.vxs --checkpoint-s 0) \
  > full.log 2> full.err; then fail "the run into a store on a full disk succeeded"; fi
# (The checkpoint's commit fails, and the store holds the previous one; or the commit lands in
# the log and folding it into the file fails, and the log holds it.)
grep -q "store 'full.vxs'" full.err && grep -q "which a resumed run continues" full.err || fail "a full disk: $(cat full.err)"
"$voxen" info full.vxs --verify > full-info.log 2> full-info.err || fail "the store after a full disk is not readable: $(cat full-info.err)"
grep -q "^mapping run: *stopped" full-info.log || fail "full disk: $(cat full-info.log)"
"$voxen" map "${run[@]}" --cpu --batch-size 4096 --store full.vxs --resume > full-resumed.log 2> full-resumed.err ||
  fail "--resume after a full disk: $(cat full-resumed.err)"
"$voxen" convert full.vxs full.vxm > /dev/null
cmp ref-cpu.vxm full.vxm || fail "the run resumed after a full disk differs from the uninterrupted run's"

# Refusals, each naming what is wrong; none touches an existing file.
expect_usage() {  # expect_usage WHAT TEXT ARGS...
  local what=$1 text=$2
  shift 2
  if "$voxen" map "$@" > usage.log 2> usage.err; then fail "$what was accepted"; fi
  grep -q -- "$text" usage.err || fail "$what: expected '$text' in: $(cat usage.err)"
}
expect_usage "--host-memory-mb without --store" "--host-memory-mb needs --store" "${run[@]}" --output x.vxm --host-memory-mb 4
expect_usage "--resume without --store" "--resume needs --store" "${run[@]}" --output x.vxm --resume
expect_usage "--store with --output" "--store and --output" "${run[@]}" --output x.vxm --store x.vxs
expect_usage "--session with a file" "--session is for a server store" "${run[@]}" --store x.vxs --session a
expect_usage "a store that holds a run" "already holds a mapping run (complete" "${run[@]}" --store plain.vxs
expect_usage "--resume of a complete run" "is complete: there is nothing to resume" "${run[@]}" --store plain.vxs --resume
expect_usage "--clearance with --store" "--clearance does not go with --store" "${run[@]}" --store x.vxs --clearance 1
expect_usage "a store that is not one" "not a region store" "${run[@]}" --store run.txt
[ ! -e x.vxm ] && [ ! -e x.vxs ] || fail "a refused run left an output"
cmp ref.vxm plain.vxm || fail "a refused run changed a store"

# A second writer while a run writes: refused, naming the first (its pid).
"$voxen" map "${run[@]}" --cpu --batch-size 4096 --threads 1 --store busy.vxs --checkpoint-s 0 > busy.log 2> busy.err &
pid=$!
for _ in $(seq 1 200); do [ -e busy.vxs ] && break; sleep 0.05; done
sleep 0.3
if kill -0 $pid 2> /dev/null; then
  if "$voxen" map "${run[@]}" --store busy.vxs --resume > second.log 2> second.err; then fail "a second writer was accepted"; fi
  # Unless the first run completed meanwhile (a fast machine): a store says complete only once
  # its writer has finished, and the refusal then says so, which is right too.
  grep -q "locked by another writer (pid $pid\|is complete: there is nothing to resume" second.err ||
    fail "the second writer's error does not name the first: $(cat second.err)"
fi
kill -KILL $pid 2> /dev/null || true
wait $pid 2> /dev/null || true
echo "store_mapping: ok"
