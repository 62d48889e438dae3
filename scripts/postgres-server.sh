# A PostgreSQL server of one run's own, for scripts/test and scripts/with-postgres (sourced, not
# run). Debian's server, made with initdb in a new folder (as the postgres user when this runs as
# root, since the server refuses to run as root), listening on 127.0.0.1 at a private port and on
# a socket in that folder. The caller stops it with stop_postgres, from an EXIT trap.
#
# start_postgres [SETTING=VALUE ...] exports CARDFILE_TEST_POSTGRES (the URL of its database
# `postgres`, user cardfile, a password made for the run) and CARDFILE_TEST_POSTGRES_SOCKET;
# it returns non-zero when the server would not start (its log is in $postgres_root).

postgres_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

as_postgres() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

postgres_root=""
postgres_data=""

start_postgres() {
    local bin password port settings=""
    postgres_root="$(mktemp -d)"
    postgres_data="$postgres_root/data"
    for setting in "$@"; do settings="$settings -c $setting"; done
    bin="$(postgres_bin)"
    password="cardfile-$RANDOM$RANDOM"
    printf '%s\n' "$password" >"$postgres_root/password"
    if [ "$(id -u)" -eq 0 ]; then chown -R postgres "$postgres_root"; fi
    as_postgres "$bin/initdb" -D "$postgres_data" -U cardfile --pwfile="$postgres_root/password" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$postgres_root/initdb.log" 2>&1 || return 1
    for _ in 1 2 3 4 5; do
        port=$((40000 + RANDOM % 20000))
        printf '%s' "-p $port -k $postgres_root -c listen_addresses=127.0.0.1 -c max_connections=200$settings" >"$postgres_root/options"
        if as_postgres "$bin/pg_ctl" -D "$postgres_data" -l "$postgres_root/server.log" -w -t 60 start \
            -o "$(cat "$postgres_root/options")" >/dev/null 2>&1; then
            export CARDFILE_TEST_POSTGRES="postgres://cardfile:$password@127.0.0.1:$port/postgres"
            export CARDFILE_TEST_POSTGRES_SOCKET="$postgres_root"
            return 0
        fi
    done
    return 1
}

# restart_postgres ROOT starts again the server start_postgres made in ROOT, after it was
# stopped or killed: same port, socket and settings (a test of a lost server does this).
restart_postgres() {
    postgres_root="$1"
    postgres_data="$1/data"
    as_postgres "$(postgres_bin)/pg_ctl" -D "$postgres_data" -l "$postgres_root/server.log" -w -t 60 start \
        -o "$(cat "$postgres_root/options")" >/dev/null 2>&1
}

stop_postgres() {
    [ -n "$postgres_root" ] || return 0
    if [ -f "$postgres_data/postmaster.pid" ]; then
        as_postgres "$(postgres_bin)/pg_ctl" -D "$postgres_data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$postgres_root"
}
