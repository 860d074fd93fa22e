#!/bin/sh
# Entrypoint of the locally built sweep-demo-pgbouncer image (see images.sh).
# It writes pgbouncer.ini and userlist.txt from the environment each time the
# container starts, so recreating the container with another POOL_MODE is
# all it takes to change the pool mode. The variable names follow the
# edoburu/pgbouncer image, so either image works with the same compose file:
#   DB_HOST (default db), DB_PORT (5432), DB_NAME (default *: every
#   database), DB_USER and DB_PASSWORD (required: the one login the pooler
#   accepts and passes on to PostgreSQL),
#   POOL_MODE transaction|session|statement (default transaction),
#   DEFAULT_POOL_SIZE (20), MIN_POOL_SIZE (0), RESERVE_POOL_SIZE (0),
#   MAX_CLIENT_CONN (100), MAX_DB_CONNECTIONS (0: no limit),
#   AUTH_TYPE scram-sha-256|md5|plain (default scram-sha-256; the password
#   is kept in plain text so PgBouncer can answer PostgreSQL's SCRAM),
#   ADMIN_USERS and STATS_USERS (default $DB_USER: SHOW POOLS works for it),
#   LISTEN_ADDR (0.0.0.0), LISTEN_PORT (6432),
#   IGNORE_STARTUP_PARAMETERS (extra_float_digits),
#   SERVER_RESET_QUERY (DISCARD ALL, used in session mode),
#   LOG_CONNECTIONS and LOG_DISCONNECTIONS (0), VERBOSE (0).
# Arguments other than options for pgbouncer run as a command instead.
set -eu

conf_dir="${PGBOUNCER_CONF_DIR:-/etc/pgbouncer}"

if [ $# -gt 0 ] && [ "${1#-}" = "$1" ] && [ "$1" != pgbouncer ]; then
	exec "$@"
fi
[ "${1:-}" = pgbouncer ] && shift

die() {
	echo "pgbouncer-entrypoint: $*" >&2
	exit 1
}

: "${DB_USER:?pgbouncer-entrypoint: DB_USER is not set}"
: "${DB_PASSWORD:?pgbouncer-entrypoint: DB_PASSWORD is not set}"
pool_mode="${POOL_MODE:-transaction}"
case "$pool_mode" in
transaction | session | statement) ;;
*) die "POOL_MODE=$pool_mode, want transaction, session or statement" ;;
esac
auth_type="${AUTH_TYPE:-scram-sha-256}"
case "$auth_type" in
scram-sha-256 | md5 | plain | trust) ;;
*) die "AUTH_TYPE=$auth_type, want scram-sha-256, md5, plain or trust" ;;
esac

# quoted doubles the double quotes in $1 and wraps it in them, as
# userlist.txt wants.
quoted() { printf '"%s"' "$(printf '%s' "$1" | sed 's/"/""/g')"; }

write_config() {
	umask 077
	mkdir -p "$conf_dir"
	printf '%s %s\n' "$(quoted "$DB_USER")" "$(quoted "$DB_PASSWORD")" >"$conf_dir/userlist.txt"
	cat >"$conf_dir/pgbouncer.ini" <<EOF
[databases]
${DB_NAME:-*} = host=${DB_HOST:-db} port=${DB_PORT:-5432}${DB_NAME:+ dbname=$DB_NAME}

[pgbouncer]
listen_addr = ${LISTEN_ADDR:-0.0.0.0}
listen_port = ${LISTEN_PORT:-6432}
unix_socket_dir =
auth_type = $auth_type
auth_file = $conf_dir/userlist.txt
admin_users = ${ADMIN_USERS:-$DB_USER}
stats_users = ${STATS_USERS:-$DB_USER}
pool_mode = $pool_mode
default_pool_size = ${DEFAULT_POOL_SIZE:-20}
min_pool_size = ${MIN_POOL_SIZE:-0}
reserve_pool_size = ${RESERVE_POOL_SIZE:-0}
max_client_conn = ${MAX_CLIENT_CONN:-100}
max_db_connections = ${MAX_DB_CONNECTIONS:-0}
server_reset_query = ${SERVER_RESET_QUERY:-DISCARD ALL}
ignore_startup_parameters = ${IGNORE_STARTUP_PARAMETERS:-extra_float_digits}
log_connections = ${LOG_CONNECTIONS:-0}
log_disconnections = ${LOG_DISCONNECTIONS:-0}
verbose = ${VERBOSE:-0}
EOF
	# PgBouncer refuses to run as root; started as root it drops to its user
	if [ "$(id -u)" = 0 ]; then
		chown -R pgbouncer:pgbouncer "$conf_dir"
		echo "user = pgbouncer" >>"$conf_dir/pgbouncer.ini"
	fi
}

write_config
echo "pgbouncer-entrypoint: pool_mode=$pool_mode auth_type=$auth_type" \
	"server=${DB_HOST:-db}:${DB_PORT:-5432} default_pool_size=${DEFAULT_POOL_SIZE:-20}" \
	"max_client_conn=${MAX_CLIENT_CONN:-100} listen=${LISTEN_ADDR:-0.0.0.0}:${LISTEN_PORT:-6432}"
exec pgbouncer "$@" "$conf_dir/pgbouncer.ini"
