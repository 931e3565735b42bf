#!/usr/bin/env python3
"""Cross-check `pitboss eval` against PokerKit 0.7.7, an independent implementation.

For each rule, random holdings are generated with a fixed seed, evaluated by
`target/release/pitboss eval` and by PokerKit, and compared:

* order: both sides' results are turned into dense ranks (0 = worst class of
  equal hands, +1 per strictly better class). Two total preorders agree on
  every pair of holdings exactly when these dense ranks are equal holding by
  holding, so this compares all n*(n-1)/2 pairs without an O(n^2) loop;
* class: our class name against PokerKit's label (for ace-to-five-8: whether a
  low qualifies, and "eight low" ... "five low" against PokerKit's best five);
* best five: the ranks of our five cards against those of PokerKit's hand.

PokerKit evaluators used: StandardHighHand (high, best of 5-7 cards),
StandardLowHand (deuce-to-seven: its straights "do not wrap", so A-2-3-4-5 is
an ace-high no-pair hand, which is our default; the option
--ace-five-straight is checked against StandardHighHand reversed, whose
A-2-3-4-5 is the five-high straight), EightOrBetterLowHand (ace-to-five-8,
best of 5-7 cards, ValueError when no low qualifies).

PokerKit's strength is read from `hand.entry.index` (larger is stronger for
high hands, smaller for low hands, which is how its `Hand.__lt__` compares);
a sample of pairs is checked against the real `<` and `==` operators.

Usage: .venv/bin/python scripts/crosscheck_eval.py [--count N] [--seed S]
Exit status 0 when there is no disagreement, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import subprocess
import sys
import time
from pathlib import Path

from pokerkit import EightOrBetterLowHand, StandardHighHand, StandardLowHand

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = [r + s for r in RANKS for s in SUITS]
# Holdings drawn half from the full deck, half from ace..nine only, so that
# lows, wheels, small straights and their flushes are well represented.
LOW_DECK = [c for c in DECK if c[0] in "A23456789"]

LABELS = {
    "High card": "high card",
    "One pair": "pair",
    "Two pair": "two pair",
    "Three of a kind": "three of a kind",
    "Straight": "straight",
    "Flush": "flush",
    "Full house": "full house",
    "Four of a kind": "four of a kind",
    "Straight flush": "straight flush",
}
LOW_NAMES = {"8": "eight low", "7": "seven low", "6": "six low", "5": "five low"}
NO_LOW = "no qualifying low"

# rule name -> (pitboss arguments, card counts)
RULES = {
    "high": (["--rule", "high"], (5, 6, 7)),
    "deuce-to-seven": (["--rule", "deuce-to-seven"], (5,)),
    "deuce-to-seven --ace-five-straight": (
        ["--rule", "deuce-to-seven", "--ace-five-straight"],
        (5,),
    ),
    "ace-to-five-8": (["--rule", "ace-to-five-8"], (5, 6, 7)),
}


def holdings(rule: str, count: int, seed: int) -> list[str]:
    rng = random.Random(f"{seed}/{rule}")
    sizes = RULES[rule][1]
    out = []
    for i in range(count):
        deck = DECK if i % 2 == 0 else LOW_DECK
        out.append("".join(rng.sample(deck, rng.choice(sizes))))
    return out


def low_value(rank: str) -> int:
    return 1 if rank == "A" else RANKS.index(rank) + 2


def pokerkit_hand(rule: str, cards: str):
    """PokerKit's best hand for a holding, or None when no low qualifies."""
    if rule == "high":
        return StandardHighHand.from_game(cards)
    if rule == "deuce-to-seven":
        return StandardLowHand(cards)
    if rule == "deuce-to-seven --ace-five-straight":
        return StandardHighHand(cards)
    try:
        return EightOrBetterLowHand.from_game(cards)
    except ValueError:
        return None


def pokerkit_eval(job: tuple[str, str]) -> tuple[int | None, str, list[str] | None]:
    """(strength, larger = better; class; ranks of the best five) by PokerKit."""
    rule, cards = job
    hand = pokerkit_hand(rule, cards)
    if hand is None:
        return None, NO_LOW, None
    index = hand.entry.index
    ranks = sorted(repr(c)[0] for c in hand.cards)
    if rule == "ace-to-five-8":
        top = max(ranks, key=low_value)
        return -index, LOW_NAMES[top], ranks
    label = LABELS[hand.entry.label.value]
    if rule == "deuce-to-seven":
        return -index, label, ranks
    if rule == "deuce-to-seven --ace-five-straight":
        # The high hand, reversed: the worst high hand is the best low.
        return -index, label, ranks
    return index, label, ranks


def dense_ranks(strengths: list) -> list[int]:
    """0 for the weakest class of equal strengths, +1 for each stronger class (None weakest)."""
    keyed = [(-1, 0) if s is None else (0, s) for s in strengths]
    order = sorted(range(len(keyed)), key=keyed.__getitem__)
    dense = [0] * len(keyed)
    rank = 0
    for prev, cur in zip(order, order[1:]):
        if keyed[cur] != keyed[prev]:
            rank += 1
        dense[cur] = rank
    return dense


def run_pitboss(binary: Path, rule: str, lines: list[str]) -> list[dict]:
    proc = subprocess.run(
        [str(binary), "eval", *RULES[rule][0]],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        sys.exit(f"pitboss eval failed ({proc.returncode}): {proc.stderr.strip()}")
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    if len(out) != len(lines):
        sys.exit(f"pitboss eval printed {len(out)} lines for {len(lines)} holdings")
    return out


def check_operators(rule: str, lines: list[str], pk: list, rng: random.Random) -> int:
    """Checks on random pairs that the strengths used agree with PokerKit's own operators."""
    bad = 0
    for _ in range(2000):
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        hi, hj = pokerkit_hand(rule, lines[i]), pokerkit_hand(rule, lines[j])
        if hi is None or hj is None:
            continue
        si, sj = pk[i][0], pk[j][0]
        if rule == "deuce-to-seven --ace-five-straight":
            hi, hj = hj, hi  # reversed on purpose: the worst high hand is the best low
        if (hi < hj) != (si < sj) or (hi == hj) != (si == sj):
            bad += 1
    return bad


def crosscheck(rule: str, count: int, seed: int, binary: Path, pool) -> int:
    start = time.monotonic()
    lines = holdings(rule, count, seed)
    ours = run_pitboss(binary, rule, lines)
    pk = pool.map(pokerkit_eval, [(rule, c) for c in lines], chunksize=500)

    order_bad = 0
    for i, (a, b) in enumerate(zip(dense_ranks([o["value"] for o in ours]),
                                   dense_ranks([p[0] for p in pk]))):
        if a != b:
            order_bad += 1
            if order_bad <= 5:
                print(f"  order differs: {lines[i]}: ours {ours[i]}, pokerkit {pk[i]}")
    class_bad = 0
    for i, (o, p) in enumerate(zip(ours, pk)):
        our_ranks = None if o["best"] is None else sorted(c[0] for c in o["best"].split())
        if o["class"] != p[1] or our_ranks != p[2]:
            class_bad += 1
            if class_bad <= 5:
                print(f"  class/best differs: {lines[i]}: ours {o}, pokerkit {p}")
    op_bad = check_operators(rule, lines, pk, random.Random(seed))
    classes = len(set(p[0] for p in pk))
    pairs = count * (count - 1) // 2
    print(
        f"{rule}: {count} holdings, {classes} distinct values, {pairs} pairs compared, "
        f"{order_bad} order disagreements, {class_bad} class/best disagreements, "
        f"{op_bad} operator mismatches ({time.monotonic() - start:.1f} s)",
        flush=True,
    )
    return order_bad + class_bad + op_bad


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000, help="holdings per rule")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--bin", type=Path, default=root / "target/release/pitboss")
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--rule", choices=list(RULES), action="append",
                        help="only this rule (repeatable); default all")
    args = parser.parse_args()
    if not args.bin.exists():
        sys.exit(f"{args.bin} not found: run `cargo build --release` first")
    bad = 0
    with multiprocessing.Pool(args.jobs) as pool:
        for rule in args.rule or list(RULES):
            bad += crosscheck(rule, args.count, args.seed, args.bin, pool)
    print("crosscheck: OK" if bad == 0 else f"crosscheck: {bad} disagreements")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
