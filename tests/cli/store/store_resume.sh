#!/usr/bin/env bash
# Stopping and resuming `voxen map --store` (issue 35, items 6 and 14):
# - Ctrl-C (SIGINT) mid-run checkpoints, says which checkpoint it kept and the command that
#   resumes, and exits 130; that command as printed (no input, no settings) ends with the
#   uninterrupted run's map byte for byte;
# - voxen info tells a running writer from a SIGKILLed one (also before its parent reaps it),
#   and the resume hint it prints works as it stands;
# - the store's file alone, copied after a checkpoint without its -wal file, holds that
#   checkpoint;
# - --resume refuses a cloud or a trajectory whose content changed at the same size, naming the
#   file, and resumes once it is restored;
# - --resume of a store that does not exist fails and creates nothing.
#   store_resume.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
# Job control: a background job of a shell without it ignores SIGINT (and voxen leaves an
# ignored signal ignored, as under nohup); with it, the job gets SIGINT as Ctrl-C gives it.
set -m
source "$(dirname "$0")/../support/common.sh" store_resume "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 512 --scans 40 --seed 3 > generate.log
run=(--cloud run.ply --trajectory run.txt --resolution 0.2 --hit-miss --quiet)
"$voxen" map "${run[@]}" --cpu --output ref.vxm > /dev/null 2> ref.err || fail "reference map: $(cat ref.err)"
# The CPU reference, one input thread and a checkpoint after every chunk of 4096 rays: slow
# enough to be caught running.
slow=(--cpu --batch-size 4096 --threads 1 --checkpoint-s 0)

# wait_for_checkpoints STORE PID N: until voxen info sees N checkpoints of the running map.
wait_for_checkpoints() {
  local store=$1 pid=$2 n=$3 seen=0
  for _ in $(seq 1 600); do
    if "$voxen" info "$store" --json > watch.json 2> watch.err; then
      seen=$(sed -n 's/.*"checkpoints":\([0-9]*\).*/\1/p' watch.json)
      [ "${seen:-0}" -ge "$n" ] && return 0
    fi
    kill -0 "$pid" 2> /dev/null || fail "the run into $store ended before $n checkpoints ($(cat watch.err 2>/dev/null))"
    sleep 0.05
  done
  fail "voxen info never saw $n checkpoints of $store: $(cat watch.json 2>/dev/null)"
}

# --- Ctrl-C: the kept checkpoint named, exit 130, and the printed command resumes. -----------
"$voxen" map "${run[@]}" "${slow[@]}" --store int.vxs > int.log 2> int.err &
pid=$!
wait_for_checkpoints int.vxs $pid 3
kill -INT $pid
status=0
wait $pid || status=$?
[ $status -eq 130 ] || fail "SIGINT: exit status $status, expected 130: $(cat int.err)"
grep -q "stopped by SIGINT (Ctrl-C): checkpoint [0-9]* kept in int.vxs" int.err || fail "SIGINT: no kept checkpoint named: $(cat int.err)"
hint=$(sed -n 's/.*resume with: voxen \(.*\)$/\1/p' int.err)
[ "$hint" = "map --store int.vxs --resume" ] || fail "SIGINT: the resume hint is '$hint': $(cat int.err)"
"$voxen" info int.vxs > int-info.log
grep -q "^mapping run: *stopped: its writer (pid $pid on this host) is gone" int-info.log || fail "info after SIGINT: $(cat int-info.log)"
kept=$(sed -n 's/.*checkpoint \([0-9]*\) kept.*/\1/p' int.err)
grep -q "^mapping run: *stopped: .* $kept checkpoints" int-info.log || fail "info shows another checkpoint than $kept: $(cat int-info.log)"
# shellcheck disable=SC2086  # the hint is words
"$voxen" $hint > int-resumed.log 2> int-resumed.err || fail "the printed resume command failed: $(cat int-resumed.err)"
"$voxen" convert int.vxs int.vxm > /dev/null
cmp ref.vxm int.vxm || fail "the run stopped by SIGINT and resumed as printed differs from the uninterrupted run"

# --- SIGKILL: info says running while the writer runs, stopped once it is killed. -------------
"$voxen" map "${run[@]}" "${slow[@]}" --store killed.vxs > killed.log 2> killed.err &
pid=$!
wait_for_checkpoints killed.vxs $pid 2
"$voxen" info killed.vxs > alive-info.log
grep -q "^mapping run: *running (pid $pid on this host)" alive-info.log || fail "info while the writer runs: $(cat alive-info.log)"
# The store's file alone, copied while the run is paused between checkpoints (its -wal empty
# once a checkpoint is folded in), holds what the store holds.
copied=no
for _ in $(seq 1 200); do
  kill -STOP $pid
  if [ ! -s killed.vxs-wal ]; then
    mkdir -p copy
    cp killed.vxs copy/killed.vxs
    "$voxen" info killed.vxs --json > at-copy.json
    copied=yes
    kill -CONT $pid
    break
  fi
  kill -CONT $pid
  sleep 0.02
done
[ $copied = yes ] || fail "the store's -wal file was never empty between checkpoints: checkpoints are not folded into the file"
# (A run that ended had its log folded in by closing: that proves nothing.)
grep -q '"state":"running"' at-copy.json || fail "the store was copied once its run had ended: $(cat at-copy.json)"
kill -KILL $pid
# Killed, not yet reaped by this shell: a zombie is no writer either.
"$voxen" info killed.vxs --json > zombie.json
grep -q '"state":"stopped"' zombie.json && grep -q '"status":"gone"' zombie.json || fail "info of a killed writer (a zombie): $(cat zombie.json)"
wait $pid 2> /dev/null || true
"$voxen" info killed.vxs > killed-info.log
grep -q "^mapping run: *stopped: its writer (pid $pid on this host) is gone" killed-info.log || fail "info after SIGKILL: $(cat killed-info.log)"
# The copy, alone in its folder, holds the checkpoint the store held when it was taken.
"$voxen" info copy/killed.vxs --json --verify > copy.json 2> copy.err || fail "the copied store file: $(cat copy.err)"
for key in checkpoints rays regions; do
  [ "$(json_number $key copy.json)" = "$(json_number $key at-copy.json)" ] ||
    fail "the copy of the store file alone has $key $(json_number $key copy.json), the store had $(json_number $key at-copy.json)"
done
[ "$(json_number checkpoints copy.json)" -ge 2 ] || fail "the copy holds no checkpoint: $(cat copy.json)"
# info's resume hint, as printed.
hint=$(sed -n 's/.*(voxen \(map --store .* --resume\) continues it).*/\1/p' killed-info.log)
[ -n "$hint" ] || fail "info prints no resume command: $(cat killed-info.log)"
# shellcheck disable=SC2086
"$voxen" $hint > killed-resumed.log 2> killed-resumed.err || fail "info's resume command failed: $(cat killed-resumed.err)"
"$voxen" convert killed.vxs killed.vxm > /dev/null
cmp ref.vxm killed.vxm || fail "the killed run resumed with info's command differs from the uninterrupted run"
"$voxen" info killed.vxs > done-info.log
grep -q "^mapping run: *complete" done-info.log || fail "info after the resumed run: $(cat done-info.log)"

# --- A changed input (same size) is refused on resume, naming it. ---------------------------
cp run.ply edit.ply
cp run.txt edit.txt
"$voxen" map --cloud edit.ply --trajectory edit.txt --resolution 0.2 --hit-miss --quiet "${slow[@]}" --store edit.vxs > edit.log 2> edit.err &
pid=$!
wait_for_checkpoints edit.vxs $pid 2
kill -INT $pid
wait $pid || true
cp edit.ply edit.ply.orig
cp edit.txt edit.txt.orig
# The lowest byte of the last point's z (its 36-byte vertex: x, y, z, time as doubles, then a
# float intensity), the size unchanged.
size=$(stat -c %s edit.ply)
printf '\x5a' | dd of=edit.ply bs=1 seek=$((size - 20)) conv=notrunc 2> /dev/null
cmp -s edit.ply edit.ply.orig && fail "the PLY edit changed nothing"
if "$voxen" map --store edit.vxs --resume > changed.log 2> changed.err; then fail "--resume accepted a changed cloud"; fi
grep -q -- "--input $PWD/edit.ply has changed since the run in store 'edit.vxs' started" changed.err ||
  fail "a changed cloud: $(cat changed.err)"
cp edit.ply.orig edit.ply
# One digit of a pose (the last digit of x in the file's third line), the size unchanged.
awk 'NR == 3 { c = substr($2, length($2), 1); $2 = substr($2, 1, length($2) - 1) (c == "1" ? "2" : "1") } { print }' \
  edit.txt.orig > edit.txt
[ "$(stat -c %s edit.txt)" = "$(stat -c %s edit.txt.orig)" ] || fail "the trajectory edit changed its size"
cmp -s edit.txt edit.txt.orig && fail "the trajectory edit changed nothing"
if "$voxen" map --store edit.vxs --resume > changed.log 2> changed.err; then fail "--resume accepted a changed trajectory"; fi
grep -q -- "--trajectory $PWD/edit.txt has changed since the run in store 'edit.vxs' started" changed.err ||
  fail "a changed trajectory: $(cat changed.err)"
cp edit.txt.orig edit.txt
"$voxen" map --store edit.vxs --resume --quiet > edit-resumed.log 2> edit-resumed.err || fail "--resume after restoring: $(cat edit-resumed.err)"
"$voxen" convert edit.vxs edit.vxm > /dev/null
cmp ref.vxm edit.vxm || fail "the run resumed after its inputs were restored differs from the uninterrupted run"

# --- --resume of a store that does not exist: an error, and no store made. -------------------
if "$voxen" map --store missing.vxs --resume > missing.log 2> missing.err; then fail "--resume of a missing store succeeded"; fi
grep -q "store 'missing.vxs' does not exist" missing.err || fail "--resume of a missing store: $(cat missing.err)"
if "$voxen" map "${run[@]}" --store missing.vxs --resume > missing.log 2> missing.err; then fail "--resume of a missing store succeeded"; fi
[ ! -e missing.vxs ] && [ ! -e missing.vxs-wal ] || fail "--resume of a missing store left a file: $(ls -l missing.vxs*)"
echo "store_resume: ok"
