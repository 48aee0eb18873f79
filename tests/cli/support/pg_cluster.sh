# Sourced by the PostgreSQL store's tests after common.sh: starts a throwaway cluster in a
# temporary folder, listening on a Unix socket only (no TCP port, no system service), and
# stops it and removes the folder when the script exits, passed or failed. Sets:
#   pg_url      postgresql:// URL of the database "voxen" (trust authentication on the socket)
#   pg_bin      the server's binaries; pg_dir the cluster's folder
#   pg_psql SQL runs SQL (psql, quiet, stops on an error)
# pg_restart_immediate stops the server as a crash would (pg_ctl -m immediate) and starts it
# again. When the server binaries are missing the script exits 77 (ctest SKIP_RETURN_CODE);
# initdb refuses to run as root, so under root (CI) the server runs as the postgres user.
pg_bin=${VOXEN_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -1)}
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ] || [ ! -x "$pg_bin/pg_ctl" ]; then
  echo "SKIP: no PostgreSQL server binaries (apt-get install postgresql; scripts/setup.sh installs it)" >&2
  exit 77
fi
pg_as=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres > /dev/null 2>&1 || fail "running as root and there is no postgres user to run the server as"
  pg_as=(runuser -u postgres --)
fi
# The server's programs run from the cluster's folder: under root the work folder may be one
# the postgres user cannot enter, and initdb and pg_ctl fail on a current folder they cannot read.
pg_run() { (cd "$pg_dir" && "${pg_as[@]}" "$@"); }
# Short: a socket path must fit in 107 bytes.
pg_dir=$(mktemp -d /tmp/voxen-pg.XXXXXX)
pg_cluster_stop() {
  if [ -f "$pg_dir/data/postmaster.pid" ]; then
    pg_run "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate stop > /dev/null 2>&1 || true
  fi
  rm -rf "$pg_dir"
}
trap pg_cluster_stop EXIT
[ ${#pg_as[@]} -eq 0 ] || chown postgres "$pg_dir"
pg_run "$pg_bin/initdb" -D "$pg_dir/data" -A trust -U voxen -E UTF8 --no-sync > "$pg_dir/initdb.log" 2>&1 ||
  fail "initdb failed: $(cat "$pg_dir/initdb.log")"
pg_start() {
  pg_run "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$pg_dir' -c fsync=off -c max_connections=40" start > /dev/null ||
    fail "the PostgreSQL server did not start: $(tail -20 "$pg_dir/server.log")"
}
pg_start
"$pg_bin/createdb" -h "$pg_dir" -U voxen voxen || fail "createdb failed"
pg_url="postgresql:///voxen?host=$pg_dir&user=voxen"
pg_psql() { "$pg_bin/psql" -X -q -t -A -v ON_ERROR_STOP=1 -h "$pg_dir" -U voxen -d voxen -c "$1"; }
pg_restart_immediate() {
  pg_run "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate stop > /dev/null || fail "pg_ctl stop failed"
  pg_start
}
