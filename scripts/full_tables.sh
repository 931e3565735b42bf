#!/usr/bin/env bash
# The full-table ladder of bots/README.md: one bot against copies of another at a full table
# (6-handed triple draw, 8-handed stud), duplicate, seed 1, every preset; prints a Markdown table of
# the first bot's mbb/hand with its 95% interval.
#
#   scripts/full_tables.sh [HERO] [OPPONENT...]      default: equity against every simpler bot
#   HANDS_TD=48000 HANDS_STUD=32000 PITBOSS=target/release/pitboss scripts/full_tables.sh adaptive equity
#
# Each match is an ordinary command, printed before its result, so any cell can be rerun alone.
set -euo pipefail
cd "$(dirname "$0")/.."
PITBOSS=${PITBOSS:-target/release/pitboss}
HERO=${1:-equity}
shift || true
OPPS=${*:-random call raise lowball hilo}
HANDS_TD=${HANDS_TD:-48000}
HANDS_STUD=${HANDS_STUD:-32000}
THREADS=${THREADS:-1}
OUT=${OUT:-results/full-tables}
[ -x "$PITBOSS" ] || cargo build --release -p pitboss-cli
mkdir -p "$OUT"
echo "| preset | $HERO vs ... | mbb/hand of $HERO [95% interval] |"
echo "|---|---|---:|"
for preset in 27td-fl 27td-pl 27td-nl stud8-fl stud8-pl stud8-nl; do
    case $preset in
        27td*) seats=6 hands=$HANDS_TD ;;
        *) seats=8 hands=$HANDS_STUD ;;
    esac
    for opp in $OPPS; do
        bots=(--bot "$HERO")
        for _ in $(seq $((seats - 1))); do bots+=(--bot "$opp"); done
        cmd=("$PITBOSS" match --game "$preset" "${bots[@]}" --hands "$hands" --duplicate --seed 1 \
            --threads "$THREADS" --out "$OUT/$preset-$HERO-$opp" --force)
        echo "# ${cmd[*]}" >&2
        line=$("${cmd[@]}" 2>&1 | awk -v h="$HERO" '$2 == h {print $5, $6, $7}')
        echo "| $preset | $((seats - 1)) × $opp | $line |"
    done
done
