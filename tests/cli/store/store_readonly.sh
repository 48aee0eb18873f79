#!/usr/bin/env bash
# Reading stores that cannot be written (issue 35 item 5): voxen info, convert and export read
# a store in a folder the user cannot write, a mode 444 store, a store on a read-only mount and
# a killed writer's store (its log beside it) in a folder the user cannot write, and leave no
# -wal or -shm behind. The tests run as root, who may write anything, so the reader runs as
# the user nobody (setpriv) and the read-only mount is made in a private mount namespace
# (unshare -m); without them (not root, no setpriv) the test is skipped (77).
#   store_readonly.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" store_readonly "$@"

[ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null || { echo "store_readonly: needs root and setpriv: skipped"; exit 77; }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent "$@"; }
as_nobody test -x "$voxen" || { echo "store_readonly: the user nobody cannot run $voxen: skipped"; exit 77; }

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 128 --scans 2 --seed 4 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --resolution 0.25 --quiet --cpu --hit-miss > map.log
"$voxen" convert map.vxm map.vxs > convert.log
"$voxen" export map.vxm --occupied-ply map.ply > /dev/null
mkdir out && chmod 777 out

only_store() {  # only_store FOLDER: the folder holds map.vxs and nothing else
  [ "$(ls -A "$1")" == map.vxs ] || fail "$2 left files beside the store: $(ls -A "$1" | tr '\n' ' ')"
}
reads() {  # reads WHAT STORE [nobody]: info --verify, convert and export read STORE as the map it came from
  local what=$1 store=$2 who=${3:-}
  local run=()
  [ -n "$who" ] && run=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent)
  rm -f out/back.vxm out/back.ply
  "${run[@]}" "$voxen" info "$store" --verify > out/info.log 2> out/info.err || fail "$what: info: $(cat out/info.err)"
  grep -q "^verified: *every region" out/info.log || fail "$what: info --verify: $(cat out/info.log)"
  "${run[@]}" "$voxen" convert "$store" out/back.vxm > /dev/null 2> out/convert.err || fail "$what: convert: $(cat out/convert.err)"
  cmp map.vxm out/back.vxm || fail "$what: convert gave another map"
  "${run[@]}" "$voxen" export "$store" --occupied-ply out/back.ply > /dev/null 2> out/export.err || fail "$what: export: $(cat out/export.err)"
  cmp map.ply out/back.ply || fail "$what: export gave other points"
}

# A folder the user cannot write (root's, mode 755), the store root's and mode 644.
mkdir locked && cp map.vxs locked/ && chmod 755 locked && chmod 644 locked/map.vxs
reads "a folder nobody cannot write" locked/map.vxs nobody
only_store locked "reading in a folder nobody cannot write"

# A mode 444 store in a folder anyone can write: SQLite used to open it read-only and leave
# its -wal and -shm behind.
mkdir open && cp map.vxs open/ && chmod 777 open && chmod 444 open/map.vxs
reads "a mode 444 store" open/map.vxs nobody
only_store open "reading a mode 444 store"
reads "a mode 444 store, as root" open/map.vxs
only_store open "reading a mode 444 store as root"

# A read-only mount (a bind mount of locked/, remounted read-only, in a private namespace).
mkdir mnt
if unshare -m true 2> /dev/null; then
  unshare -m bash -c "mount --bind locked mnt && mount -o remount,bind,ro mnt && touch mnt/probe 2> /dev/null && exit 3;
    '$voxen' info mnt/map.vxs --verify > out/ro-info.log 2> out/ro.err && '$voxen' convert mnt/map.vxs out/ro.vxm > /dev/null 2>> out/ro.err" ||
    fail "a store on a read-only mount: status $?: $(cat out/ro.err 2> /dev/null)"
  cmp map.vxm out/ro.vxm || fail "a store on a read-only mount converted to another map"
else
  echo "store_readonly: unshare -m is not permitted here: the read-only mount is not tested"
fi

# A killed writer's store: a commit still in its log (not in the file) and the log's index
# beside it, in a folder nobody cannot write. The reader sees the logged commit and leaves
# both files as they were.
mkdir killed && cp map.vxs killed/
python3 - killed/map.vxs <<'PY'
import subprocess, sys
code = """
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("INSERT OR REPLACE INTO run_state(key, value) VALUES ('run.state', 'complete')")
db.commit()
os.kill(os.getpid(), 9)
"""
subprocess.run([sys.executable, "-c", code, sys.argv[1]])
PY
[ -s killed/map.vxs-wal ] && [ -e killed/map.vxs-shm ] || fail "the killed writer left no log and index (the test's premise)"
wal_before=$(md5sum < killed/map.vxs-wal)
chmod 755 killed && chmod 644 killed/*
as_nobody "$voxen" info killed/map.vxs > out/killed.log 2> out/killed.err || fail "a killed writer's store: info: $(cat out/killed.err)"
grep -q "^mapping run: *complete" out/killed.log || fail "info did not read the commit in the log: $(cat out/killed.log)"
[ "$(md5sum < killed/map.vxs-wal)" == "$wal_before" ] || fail "reading changed the killed writer's log"
[ "$(ls -A killed | tr '\n' ' ')" == "map.vxs map.vxs-shm map.vxs-wal " ] || fail "reading the killed writer's store: $(ls -A killed)"
echo "store_readonly: ok"
