#!/usr/bin/env bash
# A store's password never shows (issue 35, item 2). On a throwaway cluster (pg_cluster.sh,
# trust authentication, so a password in the URL is accepted and ignored), every command that
# takes a store runs with a password in each spelling libpq accepts (URL userinfo, both schemes,
# percent-encoded, password= and sslpassword= query parameters, a percent-encoded key) and in
# the spellings it misreads (an unencoded '/' or '@', a bad %-escape, an unterminated IPv6
# host), through its text output, its --json output and its error paths; then every stdout,
# stderr and JSON file written is searched for every password. `voxen merge` takes a server
# store as an input (the fused map) beside a .vxm and a .vxs; clearance and query read one too.
#   store_secrets.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" store_secrets "$@"
source "$(dirname "$0")/../support/pg_cluster.sh"

"$voxen" generate --cloud a.ply --trajectory a.txt --rings 8 --columns 64 --scans 2 --seed 3 > generate-a.log
"$voxen" generate --cloud b.ply --trajectory b.txt --rings 8 --columns 64 --scans 2 --seed 4 --start-time 100 > generate-b.log
"$voxen" map --cloud a.ply --trajectory a.txt --output a.vxm --resolution 0.25 --quiet --cpu > map-a.log
"$voxen" map --cloud b.ply --trajectory b.txt --output b.vxm --resolution 0.25 --quiet --cpu > map-b.log
"$voxen" convert b.vxm b.vxs > convert-b.log

printf '0 0 0\n1 1 1\n' > points.txt

# Every password below starts with "Pw": none of the logs may hold one. Each spelling is
# NAME|URL|PASSWORD...: the passwords as written and as libpq decodes them.
q="host=$pg_dir"
spellings=(
  "userinfo|postgresql://voxen:PwUser1@/voxen?$q|PwUser1"
  "scheme|postgres://voxen:PwScheme2@/voxen?$q|PwScheme2"
  "encoded|postgresql://voxen:PwEnc%2F3%40x%3Ay@/voxen?$q|PwEnc%2F3%40x%3Ay|PwEnc/3@x:y|PwEnc"
  "query|postgresql:///voxen?$q&user=voxen&password=PwQuery4|PwQuery4"
  "key|postgresql:///voxen?$q&user=voxen&passwor%64=PwKey5|PwKey5"
  "sslpassword|postgresql:///voxen?$q&user=voxen&sslpassword=PwSsl6|PwSsl6"
  "at|postgresql://voxen:PwAt7@sec@/voxen?$q|PwAt7@sec|PwAt7"
)
# Spellings libpq refuses or misreads: the error paths, which quote what libpq could not read.
broken=(
  "slash|postgresql://voxen:PwSlash8/sec@/voxen?$q|PwSlash8"
  "escape|postgresql://voxen:PwEsc9%zz@/voxen?$q|PwEsc9"
  "ipv6|postgresql://voxen:PwSix10@[::1/voxen|PwSix10"
  "keywords|host=$pg_dir dbname=voxen user=voxen password=PwKw11|PwKw11"
)

# run NAME COMMAND...: stdout to NAME.out, stderr to NAME.err; the exit status to NAME.status.
run() {
  local name=$1
  shift
  set +e
  "$@" > "$name.out" 2> "$name.err"
  echo $? > "$name.status"
  set -e
}
ok() {  # ok NAME COMMAND...: run, which must succeed
  run "$@"
  [ "$(cat "$1.status")" -eq 0 ] || fail "$1 (${*:2}) failed: $(cat "$1.err")"
}
failed() {  # failed NAME COMMAND...: run, which must fail
  run "$@"
  [ "$(cat "$1.status")" -ne 0 ] || fail "$1 (${*:2}) succeeded, though it should fail"
}

n=0
for spelling in "${spellings[@]}"; do
  IFS='|' read -r name url _ <<< "$spelling"
  n=$((n + 1))
  ok "$name-map" "$voxen" map --cloud a.ply --trajectory a.txt --store "$url" --session s$n --resolution 0.25 --cpu
  ok "$name-map-json" "$voxen" map --cloud a.ply --trajectory a.txt --store "$url" --session j$n --resolution 0.25 --cpu --json --quiet
  ok "$name-push" "$voxen" convert b.vxm "$url" --session c$n
  ok "$name-pull" "$voxen" convert "$url" "$name-pull.vxm" --session s$n
  ok "$name-pull-bbox" "$voxen" convert "$url" "$name-bbox.vxm" --bbox -5 -5 -5 5 5 5
  ok "$name-info" "$voxen" info "$url"
  ok "$name-info-session" "$voxen" info "$url" --session s$n
  ok "$name-info-json" "$voxen" info "$url" --json --verify
  ok "$name-export" "$voxen" export "$url" --occupied-ply "$name.ply" --bbox -5 -5 -5 5 5 5
  ok "$name-merge" "$voxen" merge "$url" a.vxm b.vxs --output "$name-merged.vxm"
  ok "$name-merge-store" "$voxen" merge "$url" b.vxm --output "$name-merged.vxs"
  ok "$name-clearance" "$voxen" clearance "$url" --output "$name-clearance.vxm" --range 1 --cpu
  ok "$name-clearance-json" "$voxen" clearance "$url" --output "$name-clearance.vxm" --range 1 --cpu --json
  ok "$name-query" "$voxen" query "$url" --kind occupancy --points points.txt
  failed "$name-query-clearance" "$voxen" query "$url" --kind clearance --points points.txt --json
  grep -q "merged 3 inputs" "$name-merge.out" || fail "merge of a server store and two files: $(cat "$name-merge.out" "$name-merge.err")"
  # Error paths: no such session, a database that does not exist, a server that is not there,
  # a merge into a server, usage errors that name the store.
  failed "$name-nosession" "$voxen" convert "$url" "$name-none.vxm" --session nobody
  failed "$name-nosession-json" "$voxen" info "$url" --session nobody --json
  failed "$name-nodb" "$voxen" info "${url/\/voxen\?/\/nodb?}"
  failed "$name-noserver" "$voxen" convert "$url&port=1" "$name-x.vxm"
  failed "$name-merge-out" "$voxen" merge a.vxm b.vxm --output "$url"
  failed "$name-map-nosession" "$voxen" map --cloud a.ply --trajectory a.txt --store "$url" --resolution 0.25 --cpu
  failed "$name-map-both" "$voxen" map --cloud a.ply --trajectory a.txt --store "$url" --output x.vxm --session s --cpu
  failed "$name-map-clearance" "$voxen" map --cloud a.ply --trajectory a.txt --store "$url" --session s --clearance 1 --cpu
  failed "$name-push-store" "$voxen" convert b.vxs "$url" --session x
  failed "$name-map-model" "$voxen" map --cloud a.ply --trajectory a.txt --store "$url" --session s$n --resolution 0.5 --cpu
done
# What the runs must show: the server named with *** for its password.
grep -q "voxen:\*\*\*@" userinfo-map.out || fail "map does not name the store: $(cat userinfo-map.out)"
grep -q "password=\*\*\*" query-info.out || fail "info does not name the store: $(cat query-info.out)"
grep -q '"output": *"postgresql:///voxen?[^"]*passwor%64=\*\*\*' key-map-json.out || fail "map --json: $(cat key-map-json.out)"

for spelling in "${broken[@]}"; do
  IFS='|' read -r name url _ <<< "$spelling"
  failed "$name-info" "$voxen" info "$url"
  failed "$name-info-json" "$voxen" info "$url" --json
  failed "$name-map" "$voxen" map --cloud a.ply --trajectory a.txt --store "$url" --session s --resolution 0.25 --cpu
  failed "$name-map-json" "$voxen" map --cloud a.ply --trajectory a.txt --store "$url" --session s --resolution 0.25 --cpu --json
  failed "$name-convert" "$voxen" convert "$url" "$name.vxm"
  failed "$name-push" "$voxen" convert a.vxm "$url" --session s
  failed "$name-merge" "$voxen" merge "$url" a.vxm --output "$name-merged.vxm"
  failed "$name-export" "$voxen" export "$url" --occupied-ply "$name.ply"
  failed "$name-map-nosession" "$voxen" map --cloud a.ply --trajectory a.txt --store "$url" --resolution 0.25 --cpu
done
grep -q "keyword/value connection string" keywords-map-nosession.err || fail "a keyword/value string as --store: $(cat keywords-map-nosession.err)"
# A keyword/value string is not taken for a file: nothing was created under its name.
[ -z "$(find . -name '*PwKw11*')" ] || fail "a keyword/value connection string was written as a file: $(find . -name '*PwKw11*')"

leaks=""
for spelling in "${spellings[@]}" "${broken[@]}"; do
  IFS='|' read -r -a fields <<< "$spelling"
  for secret in "${fields[@]:2}"; do
    if hits=$(grep -lF -- "$secret" ./*.out ./*.err 2> /dev/null); then leaks+=$'\n'"'$secret' in: $(echo $hits)"; fi
  done
done
[ -z "$leaks" ] || fail "passwords printed:$leaks"
echo "store_secrets: ok ($(ls ./*.out | wc -l) runs searched)"
