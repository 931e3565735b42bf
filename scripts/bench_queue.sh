#!/usr/bin/env bash
# The queue's benchmark (issue #25): hands per second of `pitboss serve --queue` with 1 and 2
# `pitboss worker`s on NATS JetStream against those of `pitboss tournament` with 1 and 2 threads,
# on the same in-process bots, preset and cores, measured in alternation (the machine is shared
# and noisy: compare the ratio of each round, never figures of different rounds).
#
#   scripts/bench_queue.sh [ROUNDS] [HANDS_PER_MATCH] [BOTS...]
#       default: 6 rounds, 20000 hands (the ladder's default), lowball hilo
#
# Round r plays preset r of the six (PRESET=NAME: that one in every round), heads-up,
# luck-adjusted; per round: tournament 1 thread, 1 worker (1 slot), tournament 2 threads,
# 2 workers (1 slot each). The server runs on the same two cores: its work per match job
# (publishing, ingesting, the audit's replay of a sample of hands, the database's commits, the
# history file) is part of the queue's overhead, as are the
# worker's action tape (recorded for the audit) and the round trip between two jobs.
# Besides hands per second of wall time, each round prints hands per CPU-second of the workers
# against those of the tournament (the queue's own cost per hand, whatever else the machine runs)
# and the server's CPU time per match job (ingesting, auditing, storing), and that of this
# machine's nats-server if it runs here (0 when NATS is elsewhere).
# PIN=1 measures 1 worker against the 1-thread tournament only, with the server on a core of its
# own (`taskset`: the server and NATS's client work on CPU 0, the worker and the tournament on
# CPU 1): what the queue costs a worker when the server runs elsewhere, as in any deployment.
# Needs NATS with JetStream at $NATS (default nats://127.0.0.1:4222); each run uses a stream
# prefix of its own and removes its streams at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-6}
HANDS=${2:-20000}
shift 2 || shift $# || true
BOTS=("${@:-}")
[ -z "${BOTS[0]}" ] && BOTS=(lowball hilo)
NATS=${NATS:-nats://127.0.0.1:4222}
# BIN=PATH: another build (an older one, to measure a change before and after in one run).
if [ -z "${BIN:-}" ]; then
  cargo build --release -q -p pitboss-cli
  BIN=target/release/pitboss
fi
PRESETS=(27td-fl 27td-pl 27td-nl stud8-fl stud8-pl stud8-nl)
DEALS=${DEALS:-300000}
WINDOW=${WINDOW:-12}
PIN=${PIN:-0}
# WORKER_ARGS="--compress-tape": more flags for every worker.
# `taskset -c CPU` when pinning, else nothing.
on_cpu() { [ "$PIN" = 1 ] && echo taskset -c "$1"; true; }
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# CPU seconds (user + system) a process has used so far.
cpu_of() {
  awk -v t="$(getconf CLK_TCK)" '{print ($14 + $15) / t}' "/proc/$1/stat" 2>/dev/null || echo 0
}

jobs_done() {
  python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(f"file:{sys.argv[1]}/pitboss.db?mode=ro", uri=True)
print(c.execute("select count(*) from matches where state='done'").fetchone()[0])
PY
}

hands_done() {
  python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(f"file:{sys.argv[1]}/pitboss.db?mode=ro", uri=True)
print(c.execute("select coalesce(sum(played),0) from matches where state='done'").fetchone()[0])
PY
}

# The CPU seconds of this machine's nats-server, if one runs here (0 if not: NATS elsewhere).
nats_cpu() {
  local p
  p=$(pgrep -x nats-server | head -1 || true)
  if [ -n "$p" ]; then cpu_of "$p"; else echo 0; fi
}

tournament() { # threads round preset → "hands/s hands-per-CPU-second"
  local th=$1 r=$2 preset=$3
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f '%U %S' -o "$work/cpu" $(on_cpu 1) "$BIN" tournament "${bots_args[@]}" --game "$preset" --format heads-up --deals $DEALS \
    --batch 10000 --luck-adjust --threads "$th" --seed "$r" --bootstrap 0 \
    --out "$work/t$th-$r" >/dev/null 2>&1
  t1=$(date +%s.%N)
  rm -rf "$work/t$th-$r"
  read -r u sy <"$work/cpu"
  python3 -c "h=$(( npairs * DEALS * 2 )); print(round(h/($t1-$t0)), round(h/($u+$sy)))"
}

queue() { # workers round preset → hands/s
  local nw=$1 r=$2 preset=$3
  local d="$work/q$nw-$r" prefix="bench_$$_${nw}_$r"
  mkdir -p "$d"
  printf 'presets = ["%s"]\nreferences = %s\nhands_per_match = %s\nthreads_per_match = 1\n' \
    "$preset" "$refs" "$HANDS" >"$d/ladder.toml"
  local tok
  tok=$("$BIN" token worker create bench --data "$d" 2>/dev/null)
  $(on_cpu 0) "$BIN" serve --data "$d" --listen 127.0.0.1:0 --queue "$NATS" --stream "$prefix" 2>"$d/log" &
  local spid=$!
  pids+=("$spid")
  until grep -qs 'http://' "$d/log"; do sleep 0.1; done
  local addr
  addr=$(grep -o 'http://[0-9.:]*' "$d/log" | head -1)
  local wp=()
  for i in $(seq 1 "$nw"); do
    $(on_cpu 1) "$BIN" worker --queue "$NATS" --stream "$prefix" --server "$addr" --token "$tok" \
      --cache "$d/cache$i" --slots 1 --name "w$i" ${WORKER_ARGS:-} 2>/dev/null &
    wp+=($!)
    pids+=($!)
  done
  sleep 3
  local h0 s0 h1 s1 c0=0 c1=0 v0 v1 j0 j1 n0 n1
  h0=$(hands_done "$d"); s0=$(date +%s.%N); j0=$(jobs_done "$d")
  for p in "${wp[@]}"; do c0=$(python3 -c "print($c0 + $(cpu_of "$p"))"); done
  v0=$(cpu_of "$spid"); n0=$(nats_cpu)
  sleep "$WINDOW"
  h1=$(hands_done "$d"); s1=$(date +%s.%N); j1=$(jobs_done "$d")
  for p in "${wp[@]}"; do c1=$(python3 -c "print($c1 + $(cpu_of "$p"))"); done
  v1=$(cpu_of "$spid"); n1=$(nats_cpu)
  kill -TERM "${wp[@]}" "$spid" 2>/dev/null || true
  wait "${wp[@]}" "$spid" 2>/dev/null || true
  local refused
  refused=$(grep -c 'refused by the audit' "$d/log" || true)
  scripts/nats_drop_streams.py "$NATS" "$prefix" || true
  [ "$refused" = 0 ] || echo "WARNING: $refused result(s) refused by the audit" >&2
  python3 -c "print(round(($h1-$h0)/($s1-$s0)), round(($h1-$h0)/max($c1-$c0, 1e-9)), round(1000*($v1-$v0)/max($j1-$j0, 1), 1), round(1000*($n1-$n0)/max($j1-$j0, 1), 1))"
}

bots_args=(); for b in "${BOTS[@]}"; do bots_args+=(--bot "$b"); done
refs=$(printf '"%s",' "${BOTS[@]}"); refs="[${refs%,}]"
npairs=$(( ${#BOTS[@]} * (${#BOTS[@]} - 1) / 2 ))

echo "bots: ${BOTS[*]}; $HANDS-hand match jobs; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
  preset=${PRESET:-${PRESETS[$(( (r - 1) % ${#PRESETS[@]} ))]}}
  read -r t1 tc1 <<<"$(tournament 1 "$r" "$preset")"
  read -r q1 qc1 sv1 nv1 <<<"$(queue 1 "$r" "$preset")"
  if [ "$PIN" = 1 ]; then
    echo "round $r ($preset, load $(cut -d' ' -f1 /proc/loadavg), server on CPU 0, the rest on CPU 1): 1 worker $q1 / tournament 1 thread $t1 = $(python3 -c "print(f'{$q1/$t1:.3f}')") (per CPU-second $(python3 -c "print(f'{$qc1/$tc1:.3f}')"), server ${sv1} ms a job, NATS ${nv1})"
    continue
  fi
  read -r t2 tc2 <<<"$(tournament 2 "$r" "$preset")"
  read -r q2 qc2 sv2 nv2 <<<"$(queue 2 "$r" "$preset")"
  echo "round $r ($preset, load $(cut -d' ' -f1 /proc/loadavg)): 1 worker $q1 / tournament 1 thread $t1 = $(python3 -c "print(f'{$q1/$t1:.3f}')") (per CPU-second $(python3 -c "print(f'{$qc1/$tc1:.3f}')"), server ${sv1} ms a job, NATS ${nv1}); 2 workers $q2 / tournament 2 threads $t2 = $(python3 -c "print(f'{$q2/$t2:.3f}')") (per CPU-second $(python3 -c "print(f'{$qc2/$tc2:.3f}')"), server ${sv2} ms a job, NATS ${nv2})"
done
