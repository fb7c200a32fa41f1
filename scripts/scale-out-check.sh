#!/usr/bin/env bash
# Scale-out, checked as a user would run it (docs/scale-out.md):
#
#   1. `./cdc-lab up --without streams,sink --partitions 6 --warehouse postgresql` (with
#      `--kafka-brokers 3` when BROKERS=3), then the two commands it prints, twice each: two
#      `cdc-lab streams` and two `cdc-lab sink` processes.
#   2. `cdc-lab load --workload transfer` against the source (each transaction moves money between
#      two of 1,000 accounts; the total never changes), while a watcher reads the warehouse ten
#      times a second (one statement, one snapshot) and records the number of accounts, their
#      total and how old the newest change it sees is.
#   3. Once the warehouse has caught up with the load (every account, newest change under 2 s
#      old), 30 s on, one Streams process and one sink are killed (`kill -9`) and started again a
#      second later; 30 s after that, the other two. With BROKERS=3, one Kafka node is killed 15 s
#      after the first round and not started again.
#   4. `cdc-lab verify`: the warehouse must equal the source. Then everything is stopped.
#
# Exit code 0 when no read of the warehouse showed another total and verify matched.
# Needs psql (Debian: postgresql-client) and python3 besides JDK and Maven.
# Usage: [BROKERS=3] [RATE=200] [DURATION=120] scripts/scale-out-check.sh [WORK_DIR (new or empty)]
set -u
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RATE=${RATE:-200}
DURATION=${DURATION:-180}
BROKERS=${BROKERS:-1}
for tool in psql python3; do
  command -v "$tool" >/dev/null || { echo "scale-out-check: $tool is not on the PATH" >&2; exit 2; }
done
[ "$DURATION" -ge 120 ] || { echo "scale-out-check: DURATION must be at least 120 (s)" >&2; exit 2; }
D=${1:-$(mktemp -d "${TMPDIR:-/tmp}/cdc-lab-scale-out.XXXXXX")}
mkdir -p "$D" || exit 2
# an earlier run's files (its stop-watch among them) would end this run's watcher at once
[ -z "$(ls -A "$D")" ] || { echo "scale-out-check: $D is not empty; give a new or empty directory" >&2; exit 2; }
D=$(cd "$D" && pwd)
cd "$ROOT" || exit 2
echo "work directory $D" >&2
UP=""
STAGES=""
WATCH=""
LOAD=""
# the stage processes are not this shell's children (started from command substitutions)
gone() {
  for _ in $(seq 1 300); do
    kill -0 "$@" 2>/dev/null || return 0
    sleep 0.1
  done
}
cleanup() {
  [ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null
  [ -n "$WATCH" ] && { touch "$D/stop-watch"; wait "$WATCH" 2>/dev/null; }
  # shellcheck disable=SC2086
  [ -n "$STAGES" ] && { kill $STAGES 2>/dev/null; for p in $STAGES; do gone "$p"; done; }
  [ -n "$UP" ] && { kill "$UP" 2>/dev/null; wait "$UP" 2>/dev/null; }
}
trap cleanup EXIT
note() { echo "$(date +%T.%3N) $*" | tee -a "$D/events"; }

brokers=()
[ "$BROKERS" = 1 ] || brokers=(--kafka-brokers "$BROKERS")
./cdc-lab up --without streams,sink --partitions 6 --warehouse postgresql "${brokers[@]}" \
  --endpoints-file "$D/endpoints.json" --work-dir "$D/up" > "$D/up.out" 2>&1 &
UP=$!
for _ in $(seq 1 600); do grep -q "Ctrl-C" "$D/up.out" && break; kill -0 "$UP" 2>/dev/null || break; sleep 0.5; done
grep -q "Ctrl-C" "$D/up.out" || { echo "scale-out-check: up did not start (see $D/up.out)" >&2; exit 1; }
STREAMS_CMD=$(grep -E '^    \./cdc-lab streams' "$D/up.out" | sed 's/^    //')
SINK_CMD=$(grep -E '^    CDCLAB_WAREHOUSE_PASSWORD=[^ ]+ \./cdc-lab sink' "$D/up.out" | sed 's/^    //')
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$D/endpoints.json" "$1"; }
WH_URL=$(field warehouse_url)
WH_HOSTPORT=${WH_URL#jdbc:postgresql://}
WH_HOSTPORT=${WH_HOSTPORT%%/*}
WH_DB=${WH_URL##*/}
WH_USER=$(field warehouse_user)
WH_PASSWORD=$(field warehouse_password)

# the printed commands, run as printed; bash execs the launcher, which execs java: $! is the JVM
start() { bash -c "$2" > "$D/$1.out" 2>&1 & echo $!; }
S1=$(start streams-1 "$STREAMS_CMD"); S2=$(start streams-2 "$STREAMS_CMD")
K1=$(start sink-1 "$SINK_CMD"); K2=$(start sink-2 "$SINK_CMD")
STAGES="$S1 $S2 $K1 $K2"
note "streams $S1 $S2, sinks $K1 $K2"

(
  while [ ! -f "$D/stop-watch" ]; do
    PGPASSWORD="$WH_PASSWORD" psql -h "${WH_HOSTPORT%:*}" -p "${WH_HOSTPORT#*:}" -U "$WH_USER" \
      -d "$WH_DB" -Atc "SELECT to_char(clock_timestamp(), 'HH24:MI:SS.MS'), count(*), sum(balance),
        round(extract(epoch FROM clock_timestamp()) * 1000 - max(gen_commit_us) / 1000.0)
        FROM transfer_account" 2>/dev/null
    sleep 0.1
  done
) > "$D/watch.log" &
WATCH=$!

CDCLAB_SOURCE_PASSWORD="$(field source_password)" ./cdc-lab load --jdbc-url "$(field source_jdbc_url)" \
  --workload transfer --rate "$RATE" --duration "${DURATION}s" > "$D/load.out" 2>&1 &
LOAD=$!
note "load: transfer at $RATE tx/s for $DURATION s"
caught_up() {
  tail -n 1 "$D/watch.log" | awk -F'|' '$2 == 1000 && $4 != "" && $4 < 2000 { ok = 1 } END { exit !ok }'
}
for _ in $(seq 1 600); do caught_up && break; kill -0 "$LOAD" 2>/dev/null || break; sleep 0.2; done
note "warehouse caught up with the load: $(tail -n 1 "$D/watch.log")"
sleep 30
note "kill -9 streams $S1 and sink $K1"
kill -9 "$S1" "$K1"
sleep 1
S1=$(start streams-1b "$STREAMS_CMD"); K1=$(start sink-1b "$SINK_CMD")
STAGES="$S1 $S2 $K1 $K2"
note "started again: streams $S1, sink $K1"
sleep 15
if [ "$BROKERS" != 1 ]; then
  node=$(pgrep -f "KafkaNodeProcess $D/up/kafka-node-2.properties")
  note "kill -9 Kafka node 2 ($node)"
  kill -9 "$node"
fi
sleep 15
note "kill -9 streams $S2 and sink $K2"
kill -9 "$S2" "$K2"
sleep 1
S2=$(start streams-2b "$STREAMS_CMD"); K2=$(start sink-2b "$SINK_CMD")
STAGES="$S1 $S2 $K1 $K2"
note "started again: streams $S2, sink $K2"
wait "$LOAD"
load_exit=$?
LOAD=""
note "load ended ($load_exit): $(grep -E '^transactions' "$D/load.out")"
./cdc-lab verify --endpoints-file "$D/endpoints.json" --timeout 120s > "$D/verify.out" 2>&1
verify_exit=$?
note "verify: $(tail -n 1 "$D/verify.out")"
touch "$D/stop-watch"
wait "$WATCH"
WATCH=""
python3 - "$D/watch.log" "$D/events" <<'PY'
import sys
reads = torn = early = 0
totals = set()
by_second = {}
for line in open(sys.argv[1]):
    p = line.strip().split('|')
    if len(p) != 4 or not p[2]:
        continue
    if int(p[1]) != 1000:
        early += 1  # before the prefill's transaction was in
        continue
    reads += 1
    if p[2] != '1000000.00':
        torn += 1
        totals.add(p[2])
    if p[3]:  # empty until the first transfer
        by_second.setdefault(p[0][:8], float(p[3]) / 1000)
print(f"watcher: {reads} reads of all 1,000 accounts, {torn} with another total {sorted(totals)[:5]}")
print("age of the newest change in the warehouse, first read of each second:")
items = list(by_second.items())
for i in range(0, len(items), 8):
    print("  " + "  ".join(f"{t} {a:5.1f}s" for t, a in items[i:i + 8]))
with open(sys.argv[2], 'a') as f:
    f.write(f"watcher: {reads} reads, {torn} torn\n")
sys.exit(1 if torn or reads == 0 else 0)
PY
watch_exit=$?
if [ "$watch_exit" = 0 ] && [ "$verify_exit" = 0 ] && [ "$load_exit" = 0 ]; then
  echo "scale-out-check: passed (no torn read, warehouse equals source)"
  exit 0
fi
echo "scale-out-check: FAILED (watcher $watch_exit, verify $verify_exit, load $load_exit; see $D)" >&2
exit 1
