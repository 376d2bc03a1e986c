# A PostgreSQL server for a benchmark: in a temporary directory, on a free loopback port, with
# the server's default durability (fsync and synchronous_commit on), and a database "bench".
# Source it, then: start_bench_postgres (sets pgbin, pgdir, pgport, bench_postgres_url);
# stop_bench_postgres in the script's EXIT trap. As root the server runs as the postgres user.

pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start_bench_postgres() {
    pgdir=$(mktemp -d /tmp/widgetbus-bench-pg.XXXXXX)
    pgport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$pgdir"
    as_postgres "$pgbin/initdb" -D "$pgdir/data" -U postgres -A trust -N -E UTF8 >/dev/null
    as_postgres "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/postgres.log" -w \
        -o "-c listen_addresses=127.0.0.1 -c port=$pgport -c unix_socket_directories=$pgdir" start >/dev/null
    "$pgbin/psql" -h 127.0.0.1 -p "$pgport" -U postgres -X -q -c "CREATE DATABASE bench"
    bench_postgres_url="postgres://postgres@127.0.0.1:$pgport/bench?sslmode=disable"
}

stop_bench_postgres() {
    [ -n "${pgdir:-}" ] || return 0
    as_postgres "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$pgdir"
}

bench_psql() { "$pgbin/psql" -h 127.0.0.1 -p "$pgport" -U postgres -d bench -X -At "$@"; }
