#!/usr/bin/env bash
# The server's ingestion rate with many workers sending small results (issue #25): a
# `pitboss serve --queue` whose ladder plays tiny matches (HANDS hands, 27td-fl, the two
# reference bots), and N simulated workers (`ingest_bench workers`: the real worker code, N of
# them in one process) that play each job for real and publish its genuine result at once.
# Prints the matches the server records each second (and the messages it reads: results, and
# started messages of matches that play a second or longer), the results waiting for it and the
# jobs waiting for a worker (where the queue builds up is the limit).
#
#   scripts/bench_ingest.sh [SECS] [N] [HANDS] [sqlite|postgres]   default: 30 50 20 sqlite
#
# STARTED_AFTER_MS=0: the workers report every match started (the default: only matches that
# play a second or longer), to compare in one run.
# postgres: a database of its own (pitboss_ingest_PID) on $PGURL's server (default
# postgres://postgres@127.0.0.1:5432/test), dropped at the end. NATS at $NATS (default
# nats://127.0.0.1:4222), under a stream prefix of its own, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-30}
N=${2:-50}
HANDS=${3:-20}
DB=${4:-sqlite}
NATS=${NATS:-nats://127.0.0.1:4222}
PGURL=${PGURL:-postgres://postgres@127.0.0.1:5432/test}
cargo build --release -q -p pitboss-cli -p pitboss-queue --example ingest_bench
BIN=target/release/pitboss
work=$(mktemp -d)
prefix="ingest_$$"
pgdb="pitboss_ingest_$$"
spid=
cleanup() {
  [ -n "$spid" ] && { kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true; }
  scripts/nats_drop_streams.py "$NATS" "$prefix" || true
  if [ "$DB" = postgres ]; then psql -q "$PGURL" -c "DROP DATABASE IF EXISTS $pgdb" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

printf 'presets = ["27td-fl"]\nreferences = ["lowball", "hilo"]\nhands_per_match = %s\nthreads_per_match = 1\n' \
  "$HANDS" >"$work/ladder.toml"
dbargs=()
if [ "$DB" = postgres ]; then
  psql -q "$PGURL" -c "CREATE DATABASE $pgdb" >/dev/null
  dbargs=(--database "${PGURL%/*}/$pgdb")
fi
"$BIN" serve --data "$work" --listen 127.0.0.1:0 --queue "$NATS" --stream "$prefix" \
  "${dbargs[@]}" 2>"$work/log" &
spid=$!
until grep -qs 'http://' "$work/log"; do sleep 0.1; done
echo "$DB, $N workers, $HANDS-hand matches; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$DB" = postgres ]; then dburl="${PGURL%/*}/$pgdb"; else dburl="sqlite://$work/pitboss.db?mode=rwc"; fi
DB_URL=$dburl target/release/examples/ingest_bench workers "$NATS" "$prefix" "$SECS" "$N" 2>/dev/null
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg); server CPU: $(ps -o times= -p "$spid") s of $((SECS + 2)) s; refused by the audit: $(grep -c 'refused by the audit' "$work/log" || true)"
