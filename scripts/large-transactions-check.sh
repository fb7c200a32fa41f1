#!/usr/bin/env bash
# Large transactions as seed 003 runs them, against `./cdc-lab up` (docs/performance.md):
#
#   1. `./cdc-lab up` (into DuckDB, or PostgreSQL with WAREHOUSE=postgresql), defaults otherwise.
#   2. One transaction each, through psql on the source: an INSERT of ROWS rows, an UPDATE of all
#      of them, a DELETE of half of them.
#   3. For each, the seconds from its commit until the warehouse shows its result (read through
#      up's /query endpoint every 0.2 s), and the peak resident memory of up's JVM with its
#      children (the source's server processes) while it lands.
#   4. `cdc-lab verify`: the warehouse must equal the source. Then everything is stopped.
#
# Prints one line per transaction and exits 0 when verify matched. A benchmark, not a test: the
# figures are the machine's and the moment's. Needs psql, curl and python3 besides JDK and Maven.
# Usage: [ROWS=800000] [WAREHOUSE=duckdb] [SOURCE_SETTINGS="name=value ..."] \
#          scripts/large-transactions-check.sh [WORK_DIR]
# SOURCE_SETTINGS are set on the source (ALTER SYSTEM, then a reload) before the transactions.
set -u
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ROWS=${ROWS:-800000}
WAREHOUSE=${WAREHOUSE:-duckdb}
for tool in psql curl python3; do
  command -v "$tool" >/dev/null || { echo "large-transactions-check: $tool is not on the PATH" >&2; exit 2; }
done
case "$ROWS" in '' | *[!0-9]*) echo "large-transactions-check: ROWS must be a whole number" >&2; exit 2 ;; esac
D=${1:-$(mktemp -d "${TMPDIR:-/tmp}/cdc-lab-large-tx.XXXXXX")}
mkdir -p "$D" || exit 2
[ -z "$(ls -A "$D")" ] || { echo "large-transactions-check: $D is not empty; give a new or empty directory" >&2; exit 2; }
D=$(cd "$D" && pwd)
cd "$ROOT" || exit 2
echo "work directory $D" >&2
UP=""
cleanup() { [ -n "$UP" ] && { kill "$UP" 2>/dev/null; wait "$UP" 2>/dev/null; }; }
trap cleanup EXIT

./cdc-lab up --warehouse "$WAREHOUSE" --endpoints-file "$D/endpoints.json" --work-dir "$D/up" \
  > "$D/up.out" 2>&1 &
UP=$!
for _ in $(seq 1 600); do grep -q "Ctrl-C" "$D/up.out" && break; kill -0 "$UP" 2>/dev/null || break; sleep 0.5; done
grep -q "Ctrl-C" "$D/up.out" || { echo "large-transactions-check: up did not start (see $D/up.out)" >&2; exit 1; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$D/endpoints.json" "$1"; }
export PGHOST="$(field source_host)" PGPORT="$(field source_port)" PGDATABASE="$(field source_database)"
export PGUSER="$(field source_user)" PGPASSWORD="$(field source_password)"
ADMIN=$(field admin_url)
TOKEN=$(field admin_token)

# one number the warehouse answers, or nothing while it cannot
warehouse() {
  curl -s -m 5 -X POST -H "Authorization: Bearer $TOKEN" --data "$1" "$ADMIN/query" |
    python3 -c 'import json,sys
try:
    r = json.load(sys.stdin)["rows"]
    print(r[0][0] if r and r[0][0] is not None else "")
except Exception:
    pass'
}
# resident KiB of a process and all its descendants
rss_tree() {
  python3 - "$1" <<'PY'
import os, sys
kids = {}
for p in os.listdir('/proc'):
    if p.isdigit():
        try:
            with open(f'/proc/{p}/stat') as f:
                ppid = int(f.read().rsplit(')', 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(p))
        except OSError:
            pass
total, todo = 0, [int(sys.argv[1])]
while todo:
    p = todo.pop()
    try:
        with open(f'/proc/{p}/status') as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    total += int(line.split()[1])
    except OSError:
        pass
    todo.extend(kids.get(p, []))
print(total)
PY
}

for setting in ${SOURCE_SETTINGS:-}; do
  psql -qAt -c "ALTER SYSTEM SET ${setting%%=*} = '${setting#*=}'" -c "SELECT pg_reload_conf()" > /dev/null || exit 1
  echo "source: $setting"
done
psql -qAt -c "CREATE TABLE public.big_tx (id int PRIMARY KEY, v int NOT NULL, pad text)" || exit 1
for _ in $(seq 1 300); do [ -n "$(warehouse 'SELECT count(*) FROM public.big_tx')" ] && break; sleep 0.2; done

# runs $2 (one transaction) on the source, then waits until query $3 answers $4
measure() {
  local name=$1 sql=$2 check=$3 want=$4 peak=0 t0 t1 now rss
  t0=$(date +%s.%N)
  psql -qAt -v ON_ERROR_STOP=1 -c "$sql" > /dev/null || { echo "$name: the source refused it" >&2; return 1; }
  t1=$(date +%s.%N)
  while :; do
    rss=$(rss_tree "$UP")
    [ "$rss" -gt "$peak" ] && peak=$rss
    [ "$(warehouse "$check")" = "$want" ] && break
    now=$(date +%s)
    [ "$now" -gt "$(printf '%.0f' "$t1")" ] && [ $((now - ${t1%.*})) -gt 900 ] && { echo "$name: not in the warehouse after 900 s" >&2; return 1; }
    sleep 0.2
  done
  python3 -c "import sys; t0,t1,t2,peak=map(float,sys.argv[1:]); print(f'$name: {int($ROWS if \"$name\" != \"delete\" else $ROWS/2):,} rows, committed in {t1-t0:.1f} s, in the warehouse {t2-t1:.1f} s after its commit, peak resident {peak/1048576:.2f} GiB (up and its children)')" \
    "$t0" "$t1" "$(date +%s.%N)" "$peak"
}

measure insert "INSERT INTO public.big_tx SELECT g, g, repeat('x', 40) FROM generate_series(1, $ROWS) g" \
  "SELECT count(*) FROM public.big_tx" "$ROWS" || exit 1
measure update "UPDATE public.big_tx SET v = v + 1" \
  "SELECT count(*) FROM public.big_tx WHERE v = id + 1" "$ROWS" || exit 1
measure delete "DELETE FROM public.big_tx WHERE id % 2 = 0" \
  "SELECT count(*) FROM public.big_tx" "$((ROWS - ROWS / 2))" || exit 1
./cdc-lab verify --endpoints-file "$D/endpoints.json" --timeout 300s > "$D/verify.out" 2>&1
verify_exit=$?
echo "verify: $(tail -n 1 "$D/verify.out")"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); warehouse $WAREHOUSE; source durable (fsync, synchronous_commit on)"
exit "$verify_exit"
