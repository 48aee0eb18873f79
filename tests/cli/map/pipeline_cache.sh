#!/bin/bash
# voxen map's persistent pipeline cache (issue 26): the first run writes one file under
# VOXEN_PIPELINE_CACHE (and the list of kernels it used beside it), the next reads it
# ("loaded" in --profile --json's setup) and creates the pipelines of that list ahead on a
# worker thread (setup.pipelines_created_ahead), two runs at
# once leave a file the next run accepts, a corrupt file is ignored and replaced, and
# --profile reports the device set-up by stage in text and JSON.
source "$(dirname "$0")/../support/common.sh" cli_pipeline_cache "$@"
export VOXEN_PIPELINE_CACHE="$work/cache"
# Every run says --device gpu: 100 rays are --device auto's to map on the CPU reference.

"$voxen" generate --cloud c.ply --trajectory t.txt --rings 1 --columns 100 --scans 1 > /dev/null 2>&1 || fail "generate"
profile_json() {  # profile_json NAME: voxen map --profile --json into NAME.json
  "$voxen" map --cloud c.ply --trajectory t.txt --output "$1.vxm" --quiet --profile --json --device gpu > "$1.json" 2> "$1.err" ||
    fail "map $1: $(cat "$1.err")"
  no_validation "$1.err" "map $1"
}
cache_state() { grep -o '"state":"[^"]*"' "$1.json" | cut -d'"' -f4; }

# The first run on a device says that it compiles shaders (a slow first run is no hang); with
# --quiet it says nothing (first.err is checked below); a run with the cache says nothing either.
"$voxen" map --cloud c.ply --trajectory t.txt --output talk.vxm --device gpu > /dev/null 2> talk-first.err || fail "map: $(cat talk-first.err)"
grep -q "compiling shaders" talk-first.err || fail "the first run did not say it compiles shaders: $(cat talk-first.err)"
"$voxen" map --cloud c.ply --trajectory t.txt --output talk.vxm --device gpu > /dev/null 2> talk-second.err || fail "map: $(cat talk-second.err)"
grep -q "compiling shaders" talk-second.err && fail "a run with the cache said it compiles shaders: $(cat talk-second.err)"
rm -rf "$work/cache"

profile_json first
grep -q "compiling shaders" first.err && fail "--quiet: the first run still said it compiles shaders"
[ "$(cache_state first)" = "none yet" ] || fail "first run: cache state '$(cache_state first)', expected 'none yet'"
files=("$work"/cache/*.bin)
[ ${#files[@]} -eq 1 ] && [ -f "${files[0]}" ] || fail "first run left ${#files[@]} cache files in the cache folder: ${files[*]}"
all=("$work"/cache/*)
[ ${#all[@]} -eq 2 ] && [ -f "${files[0]%.bin}.kernels" ] || fail "first run left ${all[*]}: expected the cache and its .kernels list"
for field in instance_ms device_ms shader_library_ms scheduler_ms pipeline_ms first_batch_ms sync_ms pipelines_created; do
  [ -n "$(json_number "$field" first.json)" ] || fail "--profile --json has no setup.$field: $(cat first.json)"
done
[ "$(json_number pipelines_created first.json)" -gt 0 ] || fail "first run created no pipelines"

profile_json second
[ "$(cache_state second)" = "loaded" ] || fail "second run: cache state '$(cache_state second)', expected 'loaded'"
ahead=$(json_number pipelines_created_ahead second.json)
[ -n "$ahead" ] && [ "$ahead" -ge 0 ] || fail "--profile --json has no setup.pipelines_created_ahead: $(cat second.json)"
[ "$(json_number pipelines_created second.json)" -eq "$(json_number pipelines_created first.json)" ] ||
  fail "the second run created $(json_number pipelines_created second.json) pipelines, the first $(json_number pipelines_created first.json)"

# Two runs at once, then a third that must accept what they left.
rm -rf "$work/cache"
profile_json racer_a & a=$!
profile_json racer_b & b=$!
wait $a || fail "racer a"
wait $b || fail "racer b"
files=("$work"/cache/*)
[ ${#files[@]} -eq 2 ] || fail "two concurrent runs left ${#files[@]} files: ${files[*]}"
files=("$work"/cache/*.bin)
profile_json after_race
[ "$(cache_state after_race)" = "loaded" ] || fail "after two concurrent runs: cache state '$(cache_state after_race)'"

# A corrupt file: ignored (named in a debug line under VOXEN_DEBUG), replaced, then read.
printf 'not a cache' > "${files[0]}"
VOXEN_DEBUG=1 "$voxen" map --cloud c.ply --trajectory t.txt --output corrupt.vxm --quiet --device gpu > /dev/null 2> corrupt.err ||
  fail "map over a corrupt cache file: $(cat corrupt.err)"
grep -q "pipeline cache .* ignored" corrupt.err || fail "no debug line about the corrupt cache file: $(cat corrupt.err)"
profile_json replaced
[ "$(cache_state replaced)" = "loaded" ] || fail "the corrupt file was not replaced: state '$(cache_state replaced)'"

# Off: no folder at all; the text profile names the stages.
rm -rf "$work/cache"
VOXEN_PIPELINE_CACHE=off "$voxen" map --cloud c.ply --trajectory t.txt --output off.vxm --quiet --profile --device gpu > off.txt 2> off.err ||
  fail "map with the cache off: $(cat off.err)"
[ ! -e "$work/cache" ] || fail "VOXEN_PIPELINE_CACHE=off still wrote $work/cache"
grep -q "Device set-up (wall ms): instance .*, device .*, shader library and pipeline cache .*, scheduler" off.txt ||
  fail "--profile has no device set-up line: $(cat off.txt)"
grep -q "pipeline cache: off" off.txt || fail "--profile does not say the cache is off: $(cat off.txt)"
echo "cli_pipeline_cache: ok"
