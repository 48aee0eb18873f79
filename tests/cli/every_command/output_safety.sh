#!/usr/bin/env bash
# What the voxen commands do with their output paths (the rules: docs/architecture.md,
# "Output files"): an output that is the same file as an input, or an output folder that
# cannot be written, is refused before any work, naming the flags, and the input is left
# untouched; devices stay devices, symbolic links stay links, permissions are kept, a
# read-only file is refused; SIGTERM or SIGINT during a save leaves no temporary file and
# the old target as it was; a full disk (a small tmpfs, where mounting is allowed) leaves the
# old file and no temporary or truncated one.
#   output_safety.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
voxen=$1
work=$2
umount "$work/small-disk" 2> /dev/null || true  # left mounted by a run that was killed
rm -rf "$work"
mkdir -p "$work"
cd "$work"

fail() { echo "output_safety: $*" >&2; exit 1; }
sum() { sha256sum "$1" | cut -d' ' -f1; }
no_temporary_files() {  # no_temporary_files WHEN
  local left
  left=$(find . -name '.*.tmp-*')
  [ -z "$left" ] || fail "$1: temporary files left behind: $left"
}
# expect_refusal STATUS PATTERN COMMAND...: the command fails with STATUS and a message
# matching PATTERN.
expect_refusal() {
  local want=$1 pattern=$2 status
  shift 2
  set +e
  "$@" > refusal.out 2> refusal.err
  status=$?
  set -e
  [ $status -eq "$want" ] || fail "$*: exit status $status (want $want): $(cat refusal.err)"
  grep -q -- "$pattern" refusal.err || fail "$*: the error lacks '$pattern': $(cat refusal.err)"
}

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 8 --columns 128 --scans 2 --seed 3 > /dev/null
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --cpu --quiet > /dev/null
cloud_sum=$(sum run.ply) trajectory_sum=$(sum run.txt) map_sum=$(sum map.vxm)
ln -s run.ply cloud-link.ply
ln run.txt trajectory-hardlink.txt

# An output that is an input: refused before any work (usage error, exit 2), naming both.
expect_refusal 2 "--output is the same file as --cloud" \
  "$voxen" map --cloud run.ply --trajectory run.txt --output run.ply --cpu --quiet
expect_refusal 2 "--output is the same file as --cloud" \
  "$voxen" map --cloud run.ply --trajectory run.txt --output cloud-link.ply --cpu --quiet
expect_refusal 2 "--output is the same file as --trajectory" \
  "$voxen" map --cloud run.ply --trajectory run.txt --output trajectory-hardlink.txt --cpu --quiet
expect_refusal 2 "--output is the same file as the map" "$voxen" render map.vxm --output map.vxm
expect_refusal 2 "--octomap is the same file as the map" "$voxen" export map.vxm --octomap map.vxm
expect_refusal 2 "--occupied-ply is the same file as the map" "$voxen" export map.vxm --occupied-ply ./map.vxm
expect_refusal 2 "--output is the same file as the input" "$voxen" import-octomap map.vxm --output map.vxm
expect_refusal 2 "--trajectory is the same file as --cloud" \
  "$voxen" generate --cloud new.ply --trajectory ./new.ply --scans 1
[ "$(sum run.ply)" = "$cloud_sum" ] || fail "the cloud changed"
[ "$(sum run.txt)" = "$trajectory_sum" ] || fail "the trajectory changed"
[ "$(sum map.vxm)" = "$map_sum" ] || fail "the map changed"
[ ! -e new.ply ] || fail "generate wrote new.ply although its outputs were refused"

# An output folder that cannot be written: refused before any work, naming the flag and the
# folder. (Root ignores permission bits, so a regular file stands where the folder should be.)
expect_refusal 2 "--output: .*'run.ply' is not a folder" \
  "$voxen" map --cloud run.ply --trajectory run.txt --output run.ply/out.vxm --cpu --quiet
expect_refusal 2 "--output: .*folder 'missing' does not exist" \
  "$voxen" map --cloud run.ply --trajectory run.txt --output missing/out.vxm --cpu --quiet
expect_refusal 2 "--cloud: .*folder 'missing' does not exist" "$voxen" generate --cloud missing/run.ply --scans 1
expect_refusal 2 "--slice-png: .*is a directory" "$voxen" export map.vxm --slice-png . --z 1
grep -q "rays" refusal.out && fail "export did work before refusing its output"

# A read-only output is refused, even for root; permissions of a writable one are kept.
cp map.vxm locked.vxm
chmod 0444 locked.vxm
expect_refusal 2 "locked.vxm.*read-only" "$voxen" map --cloud run.ply --trajectory run.txt --output locked.vxm --cpu --quiet
[ "$(sum locked.vxm)" = "$map_sum" ] || fail "the read-only map changed"
cp map.vxm private.vxm
chmod 0600 private.vxm
"$voxen" map --cloud run.ply --trajectory run.txt --output private.vxm --cpu --quiet --hit-miss > /dev/null
[ "$(stat -c %a private.vxm)" = 600 ] || fail "private.vxm lost its mode 0600: $(stat -c %a private.vxm)"
[ "$(sum private.vxm)" != "$map_sum" ] || fail "private.vxm was not rewritten"

# A symbolic link is written through; a device stays a device; a FIFO gets the bytes.
mkdir real
ln -s real/linked.png link.png
"$voxen" export map.vxm --slice-png link.png --z 1 > /dev/null
[ -L link.png ] || fail "link.png is no longer a symbolic link"
head -c 8 real/linked.png | od -An -c | grep -q "P   N   G" || fail "the link's target is not a PNG"
"$voxen" map --cloud run.ply --trajectory run.txt --output /dev/null --cpu --quiet > /dev/null
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
"$voxen" generate --cloud /dev/null --trajectory /dev/null --rings 4 --columns 64 --scans 1 > /dev/null
[ -c /dev/null ] || fail "/dev/null is no longer a character device after generate"
mkfifo pipe.ply
cat pipe.ply > from-pipe.ply &
reader=$!
"$voxen" export map.vxm --occupied-ply pipe.ply > /dev/null
wait $reader
[ -p pipe.ply ] || fail "pipe.ply is no longer a FIFO"
head -1 from-pipe.ply | grep -q "^ply" || fail "the FIFO's reader got no PLY"
# /dev/stdout into a pipe: /proc/self/fd/1's link text is "pipe:[N]", not a path.
# (head may close the pipe early: the exporter's SIGPIPE is no failure here.)
{ "$voxen" export map.vxm --occupied-ply /dev/stdout 2> /dev/null || true; } | head -c 3 > from-stdout.txt
[ "$(cat from-stdout.txt)" = ply ] || fail "export to /dev/stdout through a pipe wrote '$(cat from-stdout.txt)'"
if [ -e /dev/full ]; then
  expect_refusal 1 "/dev/full.*No space left on device" \
    "$voxen" map --cloud run.ply --trajectory run.txt --output /dev/full --cpu --quiet
  expect_refusal 1 "/dev/full.*No space left on device" "$voxen" generate --cloud /dev/full --rings 4 --columns 64 --scans 1
fi
no_temporary_files "after the refusals and write-throughs"

# A signal during a save: the temporary file is removed and the target keeps its old bytes.
# The test hook holds each save between its fsync and its rename.
# signal_during_save SIGNAL TARGET COMMAND...: waits for TARGET's temporary file, signals.
signal_during_save() {
  local signal=$1 target=$2 pid status waited=0
  shift 2
  VOXEN_TEST_HOOK_PAUSE_BEFORE_RENAME_MS=20000 env --default-signal="$signal" "$@" > /dev/null 2>&1 &
  pid=$!
  until [ -n "$(find . -maxdepth 1 -name ".$target.tmp-*")" ]; do
    sleep 0.05
    waited=$((waited + 1))
    [ $waited -lt 600 ] || { kill -KILL $pid; fail "$*: no temporary file for $target after 30 s"; }
  done
  kill -"$signal" $pid
  set +e
  wait $pid
  status=$?
  set -e
  [ $status -eq $((128 + $(kill -l "$signal"))) ] || fail "$*: exit status $status after SIG$signal"
  no_temporary_files "SIG$signal during the save of $target"
}
signal_during_save TERM map.vxm "$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --cpu --quiet --hit-miss
[ "$(sum map.vxm)" = "$map_sum" ] || fail "SIGTERM during the save changed map.vxm"
signal_during_save INT map.vxm "$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --cpu --quiet --hit-miss
[ "$(sum map.vxm)" = "$map_sum" ] || fail "SIGINT during the save changed map.vxm"
signal_during_save TERM run.ply "$voxen" generate --cloud run.ply --trajectory run.txt --rings 8 --columns 128 --scans 2 --seed 4
[ "$(sum run.ply)" = "$cloud_sum" ] || fail "SIGTERM during generate changed run.ply"
[ "$(sum run.txt)" = "$trajectory_sum" ] || fail "SIGTERM during generate changed run.txt"
signal_during_save TERM fresh.ply "$voxen" generate --cloud fresh.ply --rings 8 --columns 128 --scans 2
[ ! -e fresh.ply ] || fail "SIGTERM during generate left a partial fresh.ply"
# A full disk: a 64 KiB tmpfs where the process may mount one (root with CAP_SYS_ADMIN;
# skipped elsewhere). The error names the file and ENOSPC, the old file stays, no temporary
# file is left, nothing truncated appears.
mkdir small-disk
if mount -t tmpfs -o size=64k voxen-test-small-disk small-disk 2> /dev/null; then
  trap 'umount "$work/small-disk" 2> /dev/null || true' EXIT
  echo old > small-disk/run.ply
  expect_refusal 1 "run.ply.*No space left on device" \
    "$voxen" generate --cloud small-disk/run.ply --trajectory small-disk/run.txt --rings 16 --columns 256 --scans 3
  [ "$(cat small-disk/run.ply)" = old ] || fail "a full disk changed small-disk/run.ply"
  [ ! -e small-disk/run.txt ] || fail "a full disk left small-disk/run.txt"
  expect_refusal 1 "big.vxm.*No space left on device" \
    "$voxen" map --cloud run.ply --trajectory run.txt --output small-disk/big.vxm --cpu --quiet --voxel-mean --hit-miss
  [ ! -e small-disk/big.vxm ] || fail "a full disk left a truncated small-disk/big.vxm"
  no_temporary_files "a full disk"
  umount small-disk
  trap - EXIT
else
  echo "output_safety: no tmpfs mount here: the full-disk check is skipped"
fi
echo "output_safety: ok"
