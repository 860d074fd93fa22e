#!/bin/sh
# Entrypoint of the locally built sweep-demo-postgres image (see images.sh).
# It follows the official postgres image's contract where the demo needs it:
#   POSTGRES_USER (default postgres), POSTGRES_PASSWORD (required unless
#   POSTGRES_HOST_AUTH_METHOD=trust), POSTGRES_DB (default $POSTGRES_USER),
#   PGDATA (default /var/lib/postgresql/data), arguments as "postgres -c k=v"
#   or just "-c k=v". It initdb's on first start, allows password logins
#   from any host, listens on 0.0.0.0:5432 and runs as the postgres user.
# Not supported (no psql in the image): /docker-entrypoint-initdb.d scripts.
set -eu

: "${PGDATA:=/var/lib/postgresql/data}"
export PGDATA

if [ "${1#-}" != "${1:-}" ] || [ $# -eq 0 ]; then
	set -- postgres "$@"
fi

if [ "$1" != postgres ]; then
	exec "$@"
fi

if [ "$(id -u)" = 0 ]; then
	mkdir -p "$PGDATA" /var/run/postgresql
	chown -R postgres:postgres "$PGDATA" /var/run/postgresql
	chmod 700 "$PGDATA"
	# busybox su keeps the environment (-p) and runs "$0" "$@" as postgres;
	# "--" stops it from taking the server's own "-c k=v" as its -c
	exec su -p -s /bin/sh -c 'exec "$0" "$@"' -- postgres "$0" "$@"
fi

init_cluster() {
	user="${POSTGRES_USER:-postgres}"
	db="${POSTGRES_DB:-$user}"
	method="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}"
	if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$method" != trust ]; then
		echo "entrypoint: POSTGRES_PASSWORD is not set (or set POSTGRES_HOST_AUTH_METHOD=trust)" >&2
		exit 1
	fi
	pwfile="$(mktemp)"
	printf '%s\n' "${POSTGRES_PASSWORD:-}" >"$pwfile"
	initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host="$method" \
		--locale=C --encoding=UTF8 --no-sync -D "$PGDATA" >/dev/null
	rm -f "$pwfile"
	printf 'host all all all %s\n' "$method" >>"$PGDATA/pg_hba.conf"
	printf "listen_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
	if [ "$db" != postgres ]; then
		# single-user mode: no socket is open, so pg_isready stays false
		echo "CREATE DATABASE \"$db\";" | postgres --single -c fsync=off -D "$PGDATA" postgres >/dev/null
	fi
	echo "entrypoint: initialised $PGDATA (user $user, database $db)"
}

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	init_cluster
fi
exec "$@"
