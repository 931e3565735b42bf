#!/usr/bin/env bash
# The luck adjustment's interval reduction, side by side: for each pairing, HANDS hands of plain
# play and HANDS hands of duplicate play (same seed), both luck-adjusted, and the 95% interval
# widths of the first bot. `factor` = plain raw width / duplicate adjusted width (hands needed for
# the same certainty shrink by factor^2). Usage: scripts/luck_reduction.sh [HANDS] (default 200000).
set -euo pipefail
hands=${1:-200000}
bin=${PITBOSS:-target/release/pitboss}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
width() { # summary.csv, column name of the low end -> width of the first bot's interval
  awk -F, -v lo="$2" 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; hi=lo; sub("low","high",hi)}
    NR==2{printf "%.1f", $c[hi]-$c[lo]}' "$1"
}
printf '%-9s %-18s %9s %9s %9s %9s %7s\n' game pairing plain adj dup dup+adj factor
while read -r game a b; do
  for mode in plain dup; do
    flags=(); [ "$mode" = dup ] && flags=(--duplicate)
    "$bin" match --game "$game" --bot "$a" --bot "$b" --hands "$hands" --seed 7 --luck-adjust \
      --out "$tmp/$game-$a-$b-$mode" "${flags[@]}" >/dev/null
  done
  p="$tmp/$game-$a-$b-plain/summary.csv"; d="$tmp/$game-$a-$b-dup/summary.csv"
  pr=$(width "$p" ci95_low); pa=$(width "$p" adj_ci95_low)
  dr=$(width "$d" ci95_low); da=$(width "$d" adj_ci95_low)
  printf '%-9s %-18s %9s %9s %9s %9s %7.2f\n' "$game" "$a-$b" "$pr" "$pa" "$dr" "$da" \
    "$(echo "$pr / $da" | bc -l)"
done <<'PAIRS'
stud8-fl hilo raise
stud8-fl equity hilo
stud8-fl adaptive hilo
stud8-fl hilo hilo
stud8-fl call raise
stud8-fl adaptive equity
27td-fl lowball raise
27td-fl equity lowball
27td-fl adaptive lowball
27td-fl lowball lowball
27td-fl call raise
27td-fl adaptive equity
PAIRS
