#!/usr/bin/env bash
# The service's benchmark (issue #24): hands per second of `pitboss serve` against those of
# `pitboss tournament` on the same in-process bots, presets and cores, measured in alternation
# (the machine is shared and noisy: compare the ratio of each round), while the leaderboard page
# is fetched at 100 requests a second (constant rate, latency counted from when each request was
# due) and its percentiles printed.
#
#   scripts/bench_service.sh [ROUNDS] [BOTS...]      default: 6 rounds, lowball hilo
#
# Round r plays preset r of the six (27td-fl, 27td-pl, ..., stud8-nl), so that both sides play
# the same mix of games (the ladder chooses its presets by need; a tournament plays them
# equally): heads-up, duplicate, luck-adjusted, two jobs at once (2 cores), 4000-hand work units
# (a tournament batch of 2000 deals, a ladder match of 4000 hands).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-6}
shift || true
BOTS=("${@:-}")
[ -z "${BOTS[0]}" ] && BOTS=(lowball hilo)
cargo build --release -q -p pitboss-cli -p pitboss-service --example loadgen
BIN=target/release/pitboss
LOAD=target/release/examples/loadgen
PRESETS=(27td-fl 27td-pl 27td-nl stud8-fl stud8-pl stud8-nl)
DEALS=200000
WINDOW=12
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

hands_done() {
  python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(f"file:{sys.argv[1]}/pitboss.db?mode=ro", uri=True)
print(c.execute("select coalesce(sum(played),0) from matches where state='done'").fetchone()[0])
PY
}

bots_args=(); for b in "${BOTS[@]}"; do bots_args+=(--bot "$b"); done
refs=$(printf '"%s",' "${BOTS[@]}"); refs="[${refs%,}]"
npairs=$(( ${#BOTS[@]} * (${#BOTS[@]} - 1) / 2 ))

echo "bots: ${BOTS[*]}; 2 jobs at once"
for r in $(seq 1 "$ROUNDS"); do
  preset=${PRESETS[$(( (r - 1) % ${#PRESETS[@]} ))]}
  # The tournament.
  t0=$(date +%s.%N)
  "$BIN" tournament "${bots_args[@]}" --game "$preset" --format heads-up --deals $DEALS \
    --batch 10000 --luck-adjust --threads 2 --seed "$r" --bootstrap 0 --out "$work/t$r" >/dev/null 2>&1
  t1=$(date +%s.%N)
  th=$(( npairs * DEALS * 2 ))
  trate=$(python3 -c "print(round($th/($t1-$t0)))")
  # The service, under the leaderboard's load.
  d="$work/s$r"; mkdir -p "$d"
  printf 'presets = ["%s"]\nreferences = %s\nhands_per_match = 20000\nworkers = 2\nthreads_per_match = 1\n' "$preset" "$refs" >"$d/ladder.toml"
  "$BIN" serve --data "$d" --listen 127.0.0.1:0 2>"$d/log" &
  pid=$!
  until grep -q 'http://' "$d/log"; do sleep 0.1; done
  addr=$(grep -o 'http://[0-9.:]*' "$d/log" | head -1)
  sleep 3
  h0=$(hands_done "$d"); s0=$(date +%s.%N)
  lat=$("$LOAD" "$addr/" 100 $WINDOW 8)
  h1=$(hands_done "$d"); s1=$(date +%s.%N)
  kill -TERM $pid; wait $pid 2>/dev/null || true
  srate=$(python3 -c "print(round(($h1-$h0)/($s1-$s0)))")
  ratio=$(python3 -c "print(f'{$srate/$trate:.2f}')")
  echo "round $r ($preset): tournament $trate hands/s, service $srate hands/s, service/tournament $ratio; leaderboard at 100 req/s: $lat"
done
