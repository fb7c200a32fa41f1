#!/usr/bin/env bash
# Measures how fast several net-change (Streams) processes and sinks drain one backlog into a
# PostgreSQL warehouse: the scale curve of docs/scale-out.md.
#
#   1. `./cdc-lab up --without streams,sink --partitions 6` (PostgreSQL, Kafka, Debezium).
#   2. A backlog, captured into Kafka before any Streams process or sink runs: 200,000 rows
#      inserted in 200 transactions, then TX transactions of 5 updates of random rows (pgbench,
#      4 clients).
#   3. Per configuration KxM (K `cdc-lab streams` processes, M `cdc-lab sink` processes): a fresh
#      application id, net-change topic, sink group and warehouse database on the source's
#      server; the processes start together, and the time until the warehouse table equals the
#      source's (row count and sum) gives changes/s, from the start and from the first row
#      written (which leaves out the JVMs' start).
#
# Needs psql and pgbench (Debian: postgresql-client, postgresql-contrib) besides JDK and Maven.
# Usage: scripts/scale-curve.sh [CONFIGS] [TX]   (defaults: "1x1 2x1 3x1 1x2 2x2 3x2" 20000)
set -u
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CONFIGS=${1:-"1x1 2x1 3x1 1x2 2x2 3x2"}
TX=${2:-20000}
for tool in psql pgbench python3; do
  command -v "$tool" >/dev/null || { echo "scale-curve: $tool is not on the PATH" >&2; exit 2; }
done
cd "$ROOT" || exit 2
W=$(mktemp -d "${TMPDIR:-/tmp}/cdc-lab-scale.XXXXXX")
PIDS=""
UP=""
cleanup() {
  [ -n "$PIDS" ] && kill $PIDS 2>/dev/null
  [ -n "$UP" ] && { kill "$UP" 2>/dev/null; wait "$UP" 2>/dev/null; }
}
trap cleanup EXIT
echo "work directory $W" >&2
./cdc-lab up --without streams,sink --partitions 6 --work-dir "$W/run" \
  --endpoints-file "$W/endpoints.json" > "$W/up.out" 2>&1 &
UP=$!
for _ in $(seq 1 300); do [ -s "$W/endpoints.json" ] && break; sleep 1; done
[ -s "$W/endpoints.json" ] || { echo "scale-curve: up did not start (see $W/up.out)" >&2; exit 1; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$W/endpoints.json" "$1"; }
PORT=$(field source_port); DB=$(field source_database); USER=$(field source_user)
PGPASSWORD=$(field source_password)
export PGPASSWORD CDCLAB_WAREHOUSE_PASSWORD=$PGPASSWORD
SRC="psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p $PORT -U $USER -d $DB"
STREAMS=$(grep -E '^\s+\./cdc-lab streams' "$W/up.out" | sed 's/^ *//')
SINK=$(grep -E '\./cdc-lab sink' "$W/up.out" | sed 's/^ *//; s/^CDCLAB_WAREHOUSE_PASSWORD=\.\.\. //')
APP=$(echo "$STREAMS" | grep -o "application.id=[^']*" | cut -d= -f2)
TOPIC=$(echo "$STREAMS" | grep -o "net.changes.topic=[^']*" | cut -d= -f2)
GROUP=$(echo "$SINK" | grep -o "group.id=[^']*" | cut -d= -f2)

$SRC -c "CREATE TABLE scale_items (id bigint PRIMARY KEY, v int NOT NULL, pad text NOT NULL)"
for b in $(seq 0 199); do
  echo "INSERT INTO scale_items SELECT g, 0, md5(g::text) FROM generate_series($((b * 1000 + 1)), $((b * 1000 + 1000))) g;"
done | $SRC
{
  echo "BEGIN;"
  for _ in 1 2 3 4 5; do
    echo "\\set a random(1, 200000)"
    echo "UPDATE scale_items SET v = v + 1 WHERE id = :a;"
  done
  echo "END;"
} > "$W/update.sql"
pgbench -n -h 127.0.0.1 -p "$PORT" -U "$USER" -c 4 -t $((TX / 4)) -f "$W/update.sql" "$DB" \
  > "$W/pgbench.out" 2>&1 || { echo "scale-curve: pgbench failed (see $W/pgbench.out)" >&2; exit 1; }
END_LSN=$($SRC -At -c "SELECT pg_current_wal_lsn()")
for _ in $(seq 1 300); do
  [ "$($SRC -At -c "SELECT bool_and(confirmed_flush_lsn >= '$END_LSN') FROM pg_replication_slots")" = t ] && break
  sleep 1
done
RAW=$((200000 + TX / 4 * 4 * 5))
Q="SELECT count(*) || ':' || sum(v) FROM scale_items"
WANT=$($SRC -At -c "$Q")
echo "backlog: $RAW row changes captured into Kafka ($(grep -o 'tps = [0-9.]*' "$W/pgbench.out") while loading)"

start() { bash -c "exec $1" > "$W/$2.out" 2>&1 & echo $!; }
printf '%-6s %-8s %10s %12s %14s %12s\n' streams sinks "start->equal" "changes/s" "first row->equal" "changes/s"
for cfg in $CONFIGS; do
  k=${cfg%x*}; m=${cfg#*x}; tag="s${k}x${m}"
  $SRC -c "CREATE DATABASE wh_$tag"
  WH="psql -X -q -h 127.0.0.1 -p $PORT -U $USER -d wh_$tag"
  S=$(echo "$STREAMS" | sed "s/application.id=$APP/application.id=$APP-$tag/; s/net.changes.topic=$TOPIC/net.changes.topic=$TOPIC-$tag/")
  K=$(echo "$SINK" | sed "s/group.id=$GROUP/group.id=$GROUP-$tag/; s/net.changes.topic=$TOPIC/net.changes.topic=$TOPIC-$tag/")
  K="$K --set warehouse.url=jdbc:postgresql://127.0.0.1:$PORT/wh_$tag --set warehouse.user=$USER"
  t0=$(date +%s.%N); PIDS=""; first=""; got=""
  for i in $(seq 1 "$k"); do PIDS="$PIDS $(start "$S" "$tag-streams$i")"; done
  for i in $(seq 1 "$m"); do PIDS="$PIDS $(start "$K" "$tag-sink$i")"; done
  for _ in $(seq 1 2400); do
    got=$($WH -At -c "$Q" 2>/dev/null)
    [ -z "$first" ] && [ -n "$got" ] && [ "${got%%:*}" != 0 ] && first=$(date +%s.%N)
    [ "$got" = "$WANT" ] && break
    sleep 0.5
  done
  t1=$(date +%s.%N)
  kill $PIDS 2>/dev/null; wait $PIDS 2>/dev/null; PIDS=""
  if [ "$got" != "$WANT" ]; then
    echo "scale-curve: $tag did not reach the source's state in 20 minutes (warehouse $got, source $WANT; logs in $W)" >&2
    exit 1
  fi
  python3 -c "
import sys
raw, t0, t1, f = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
print(f'{sys.argv[5]:<6} {sys.argv[6]:<8} {t1 - t0:10.1f} s {raw / (t1 - t0):10,.0f} {t1 - f:14.1f} s {raw / max(t1 - f, 0.001):10,.0f}')
" "$RAW" "$t0" "$t1" "${first:-$t1}" "$k" "$m"
done
