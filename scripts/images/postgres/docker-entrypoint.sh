#!/usr/bin/env bash
# Entrypoint of the locally built cdc-lab-local/postgres:15 image.
#
# A small re-implementation of the official `postgres` image's
# docker-entrypoint.sh, limited to what Testcontainers' PostgreSQLContainer and
# the cdc-lab tests rely on:
#   * POSTGRES_USER (default postgres), POSTGRES_PASSWORD (required unless
#     POSTGRES_HOST_AUTH_METHOD=trust), POSTGRES_DB (default $POSTGRES_USER),
#     POSTGRES_INITDB_ARGS, POSTGRES_HOST_AUTH_METHOD (default scram-sha-256);
#   * on first start: initdb, then a temporary unix-socket-only server (it prints
#     "database system is ready to accept connections" once), CREATE DATABASE,
#     /docker-entrypoint-initdb.d/*.sh|*.sql, stop;
#   * then the real server is exec'ed (second "ready" line) in place of this
#     script, so the signals dumb-init (PID 1) forwards reach it directly:
#     `docker stop` -> SIGTERM -> rewritten to SIGINT = fast shutdown.
# `docker run IMAGE postgres -c key=value ...` passes the -c options to both the
# temporary and the real server, as the official image does.
set -Eeuo pipefail

# `docker run IMAGE -c fsync=off` is shorthand for `postgres -c fsync=off`.
if [ "${1:0:1}" = '-' ]; then
	set -- postgres "$@"
fi

# Anything else (bash, psql, ...) is run as given.
if [ "$1" != 'postgres' ]; then
	exec "$@"
fi

export PGDATA="${PGDATA:-/var/lib/postgresql/data}"

# Started as root: prepare the directories, then re-run this script as the
# postgres user. setpriv (util-linux) execs directly, unlike runuser/su which
# stay around as a parent; that keeps postgres the direct child of dumb-init.
if [ "$(id -u)" = '0' ]; then
	mkdir -p "$PGDATA" /var/run/postgresql
	chmod 00700 "$PGDATA"
	chmod 03775 /var/run/postgresql
	find "$PGDATA" /var/run/postgresql \! -user postgres -exec chown postgres:postgres '{}' +
	exec setpriv --reuid=postgres --regid=postgres --init-groups -- "${BASH_SOURCE[0]}" "$@"
fi

shift # drop "postgres"; "$@" are now the server options (-c key=value ...)

export POSTGRES_USER="${POSTGRES_USER:-postgres}"
export POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
export POSTGRES_HOST_AUTH_METHOD="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}"

log() { printf '%s\n' "$*"; }

# psql against the temporary server (unix socket, peer-trusted local auth).
run_sql() {
	psql -v ON_ERROR_STOP=1 --no-password --no-psqlrc \
		--username "$POSTGRES_USER" "$@"
}

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != 'trust' ]; then
		cat >&2 <<-'EOM'
			Error: Database is uninitialized and superuser password is not specified.
			       You must specify POSTGRES_PASSWORD to a non-empty value for the
			       superuser. For example, "-e POSTGRES_PASSWORD=password" on "docker run".
			       (Or set POSTGRES_HOST_AUTH_METHOD=trust to allow all connections
			       without a password; NOT recommended.)
		EOM
		exit 1
	fi

	# The password goes through a file, never the command line (ps would show it).
	# Without a password (POSTGRES_HOST_AUTH_METHOD=trust) there is no file.
	pwopt=()
	if [ -n "${POSTGRES_PASSWORD:-}" ]; then
		pwfile="$(mktemp)"
		trap 'rm -f "$pwfile"' EXIT
		printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
		pwopt=(--pwfile="$pwfile")
	fi

	log "Initializing database in $PGDATA"
	# As in the official image, initdb's own pg_hba.conf lines (unix socket and
	# 127.0.0.1/::1 inside the container) are "trust"; connections from anywhere
	# else hit the line appended below. --auth=trust only says so explicitly, to
	# avoid initdb's warning. POSTGRES_INITDB_ARGS come last and can override.
	# shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of words on purpose
	initdb --username="$POSTGRES_USER" "${pwopt[@]}" \
		--encoding=UTF8 --locale=C.UTF-8 --auth=trust \
		${POSTGRES_INITDB_ARGS:-} -D "$PGDATA"
	rm -f "${pwfile:-}"

	# Same line as the official image. A logical replication connection
	# (replication=database, as Debezium opens) is matched like an ordinary
	# connection to its database, so "all" admits it too.
	printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"

	# Temporary server: unix socket only, same options as the real one.
	pg_ctl -D "$PGDATA" -w start \
		-o "$(printf '%q ' "$@" -c listen_addresses='' -p "${PGPORT:-5432}")"

	exists="$(run_sql --dbname postgres --tuples-only --no-align \
		--set db="$POSTGRES_DB" <<<"SELECT 1 FROM pg_database WHERE datname = :'db';")"
	if [ -z "$exists" ]; then
		run_sql --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";'
	fi

	# Optional init scripts, like the official image (only *.sh and *.sql here).
	for f in /docker-entrypoint-initdb.d/*; do
		case "$f" in
			*.sh)
				log "running $f"
				# shellcheck source=/dev/null
				. "$f"
				;;
			*.sql) log "running $f"; run_sql --dbname "$POSTGRES_DB" -f "$f" ;;
			*) if [ -e "$f" ]; then log "ignoring $f"; fi ;;
		esac
	done

	pg_ctl -D "$PGDATA" -m fast -w stop
	log 'PostgreSQL init process complete; ready for start up.'
fi

# Later -c options win, so a caller's own listen_addresses still takes effect.
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
