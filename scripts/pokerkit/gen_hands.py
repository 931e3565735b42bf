#!/usr/bin/env python3
"""Generate PHH hand histories with PokerKit 0.7.7 for Pitboss to verify.

For each of the six games (F2L3D P2L3D N2L3D F7S/8 P7S/8 N7S/8) PokerKit is
driven with random legal actions (random stacks, many short, so all-ins and
side pots occur; 2-6 players in triple draw, 2-8 in stud; random draws;
showdowns by docs/RULES.md's auto-muck) and every hand is written to
OUT/<code>.phhs with `finishing_stacks`.  Each hand also carries:

  _pitboss_expect      "verify" | "reject" | "settle"
  _pitboss_differences list of docs/RULES.md "Known differences" the hand hits
                       ("difference-1" ... "difference-7" as docs/RULES.md
                       lists them; 8 and 9 found by the cross-check, see
                       notes.md)
  _pitboss_finishing_stacks  (only with "settle") the stacks docs/RULES.md gives

so that `pitboss phh verify` must verify every "verify" hand, reject every
"reject" hand, and reach `_pitboss_finishing_stacks` on every "settle" hand.
See notes.md for the detectors.  Deterministic for a given --seed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import warnings
from collections import Counter
from multiprocessing import Pool

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import phhlib  # noqa: E402
from phhlib import is_fixed, is_stud  # noqa: E402
from pokerkit import HandHistory, Mode  # noqa: E402
from pokerkit.state import (  # noqa: E402
    CompletionBettingOrRaisingTo,
    HoleDealing,
)

# Stakes (chips).  TD: blinds 5/10, small bet 10, big bet 20 (NL/PL min bet
# 10); stud: ante 5, bring-in 5, small bet 20, big bet 40 (NL/PL min 20).
TD_BLINDS = (5, 10)
TD_SMALL, TD_BIG = 10, 20
ST_ANTE, ST_BRING, ST_SMALL, ST_BIG = 5, 5, 20, 40

# Kinds for which the Pitboss referee must refuse the hand (PokerKit allowed
# something docs/RULES.md does not) vs. settle it differently.
REJECT_KINDS = {'difference-1', 'difference-2', 'difference-3',
                'difference-5', 'difference-8', 'difference-9'}
SETTLE_KINDS = {'difference-4', 'difference-6'}


def make_state(code: str, rng: random.Random):
    stud = is_stud(code)
    n = rng.randint(2, 8 if stud else 6)
    unit = ST_SMALL if stud else TD_BLINDS[1]
    stacks = []
    for _ in range(n):
        r = rng.random()
        if r < 0.05:
            stacks.append(rng.randint(1, unit))          # short forced bets
        elif r < 0.35:
            stacks.append(rng.randint(unit, 6 * unit))   # all-in material
        else:
            stacks.append(rng.randint(10 * unit, 60 * unit))
    cls = phhlib.GAME_TYPES[code]
    if stud:
        if is_fixed(code):
            game = cls(phhlib.AUTOMATIONS, True, ST_ANTE, ST_BRING, ST_SMALL,
                       ST_BIG, mode=Mode.CASH_GAME)
        else:
            game = cls(phhlib.AUTOMATIONS, True, ST_ANTE, ST_BRING, ST_SMALL,
                       mode=Mode.CASH_GAME)
    else:
        ante = 0 if rng.random() < 0.8 else 2
        blinds = list(TD_BLINDS) + [0] * (n - 2)
        if is_fixed(code):
            game = cls(phhlib.AUTOMATIONS, True, ante, blinds, TD_SMALL,
                       TD_BIG, mode=Mode.CASH_GAME)
        else:
            game = cls(phhlib.AUTOMATIONS, True, ante, blinds, TD_BLINDS[1],
                       mode=Mode.CASH_GAME)
    return game, game(stacks, n)


class Tracker:
    """Watches the hand as it is played and flags docs/RULES.md differences."""

    def __init__(self, code: str, state, free_reshuffle: bool):
        self.code = code
        self.stud = is_stud(code)
        self.fixed = is_fixed(code)
        self.kinds: set[str] = set()
        self.free_reshuffle = free_reshuffle
        # docs/RULES.md card model for triple draw (no burns).
        self.stub = set(repr(c) for c in state.deck_cards)
        self.muck: list[str] = []          # discards + folded hands
        self.draw_discards: dict[int, list[str]] = {}
        self.served: set[int] = set()
        self.street = -1
        self.short_forced = None           # player who posted short
        self.rules_raises = 0              # bet + full raises (RULES)
        self.short_counted = False         # a short all-in raise this street
        self.reshuffles = 0
        # docs/RULES.md reopening model of the street (difference 8): the level,
        # the full raise increment, a counter of full (or opening) bets and,
        # per player, the counter and level when they last acted.
        self.level = 0
        self.full_inc = 0
        self.full_seq = 0
        self.acted: dict[int, tuple[int, int]] = {}

    def new_street(self, state):
        self.street = state.street_index
        self.rules_raises = 1 if (not self.stud and self.street == 0) else 0
        self.short_counted = False
        self.draw_discards = {}
        self.served = set()
        unit = (ST_SMALL if self.street < 2 else ST_BIG) if self.stud else (
            TD_SMALL if self.street < 2 else TD_BIG)
        self.full_inc = unit if self.fixed else (ST_SMALL if self.stud else TD_BLINDS[1])
        self.level = TD_BLINDS[1] if (not self.stud and self.street == 0) else 0
        self.full_seq = 0
        self.acted = {}
        if self.street == 0:
            if not self.stud:
                bb = 0 if state.player_count == 2 else 1
                if state.bets[bb] < TD_BLINDS[1]:
                    self.short_forced = bb
                    # docs/RULES.md keeps the full blind as the level: who must act
                    # and what they owe differ from PokerKit from here on.
                    self.kinds.add('difference-5')

    def closed(self, i: int) -> bool:
        """docs/RULES.md: player i already acted and no full raise (or short ones
        adding up to one) came since, so they may not raise."""
        if i not in self.acted:
            return False
        seq, level = self.acted[i]
        return seq == self.full_seq and self.level - level < self.full_inc

    def on_action(self, i: int, kind: str, amt) -> None:
        """Updates the reopening model after player i's action."""
        if kind == 'pb':
            self.level = ST_BRING
        elif kind == 'cbr':
            opening = self.level == 0 or (self.stud and self.street == 0
                                          and self.level <= ST_BRING)
            if self.level == 0:
                min_full = self.full_inc if self.fixed else (
                    ST_SMALL if self.stud else TD_BLINDS[1])
            elif opening:
                min_full = ST_SMALL
            else:
                min_full = self.level + self.full_inc
            if amt >= min_full:
                if not self.fixed:
                    counted = amt if self.level == 0 else amt - self.level
                    self.full_inc = max(self.full_inc, counted)
                self.full_seq += 1
            elif opening:
                self.full_seq += 1
            self.level = max(self.level, amt)
        self.acted[i] = (self.full_seq, self.level)


def random_discard(rng, hole):
    k = rng.choice((0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 5))
    # prefer throwing high cards, like a lowball player
    ranked = sorted(hole, key=lambda c: (phhlib.RANKS.index(c.rank.value),
                                         rng.random()), reverse=True)
    return ranked[:k] if rng.random() < 0.7 else rng.sample(hole, k)


def deal_td_draw(state, tr: Tracker, rng: random.Random):
    """Serve one drawing player, docs/RULES.md-style unless free_reshuffle."""
    i = state.hole_dealee_index
    k = len(state.hole_dealing_statuses[i])
    if k <= len(tr.stub):
        cards = rng.sample(sorted(tr.stub), k)
        for c in cards:
            tr.stub.discard(c)
        state.deal_hole(''.join(cards), i)
        tr.served.add(i)
        return
    # The stub runs out while serving player i.
    tr.reshuffles += 1
    excluded = set()
    for j, cs in tr.draw_discards.items():
        if j not in tr.served:         # i itself and players not yet served
            excluded.update(cs)
    eligible = [c for c in tr.muck if c not in excluded]
    if tr.free_reshuffle or len(tr.stub) + len(eligible) < k:
        op = state.deal_hole(k, i)     # PokerKit's own reshuffle
        dealt = [repr(c) for c in op.cards]
        allowed = tr.stub | set(eligible)
        if not set(dealt) <= allowed:
            tr.kinds.add('difference-2')
        # approximate the RULES model afterwards
        tr.stub = (tr.stub | set(eligible)) - set(dealt)
        tr.muck = [c for c in tr.muck if c in excluded and c not in dealt]
        tr.served.add(i)
        return
    first = sorted(tr.stub)
    new_stub = set(eligible)
    rest = rng.sample(sorted(new_stub), k - len(first))
    cards = first + rest
    tr.stub = new_stub - set(rest)
    tr.muck = [c for c in tr.muck if c in excluded]
    state.deal_hole(''.join(cards), i)
    tr.served.add(i)


def choose_action(state, tr: Tracker, rng: random.Random):
    i = state.actor_index
    call = state.checking_or_calling_amount or 0
    can_raise = state.can_complete_bet_or_raise_to()
    if state.can_post_bring_in():
        if can_raise and rng.random() < 0.35:
            return ('cbr', state.min_completion_betting_or_raising_to_amount)
        return ('pb', None)
    p_raise = 0.3
    if (not tr.stud and tr.fixed and tr.street == 0
            and state.completion_betting_or_raising_count >= 3):
        p_raise = 0.08      # keep difference-1 (5th small bet) rare
    r = rng.random()
    if can_raise and r < p_raise:
        lo = state.min_completion_betting_or_raising_to_amount
        hi = state.max_completion_betting_or_raising_to_amount
        if lo == hi:
            return ('cbr', lo)
        pick = rng.random()
        if pick < 0.35:
            amt = lo
        elif pick < 0.55:
            amt = hi
        else:
            amt = rng.randint(lo, hi)
        return ('cbr', amt)
    if call and rng.random() < 0.22:
        return ('f', None)
    return ('cc', None)


def show_decision(state, shown: dict, k_types: int, i: int) -> bool:
    """docs/RULES.md: all-in hands always show; others only if they beat or tie
    the best shown so far (high or low)."""
    if state.all_in_status or state.stacks[i] == 0:
        return True
    hands = [state.get_hand(i, 0, k) for k in range(k_types)]
    for k in range(k_types):
        h = hands[k]
        if h is None:
            continue
        best = shown.get(k)
        if best is None or h >= best:
            return True
    if not shown:
        return True
    return False


def play_hand(code: str, seed: int, index: int):
    rng = random.Random(f'{seed}:{code}:{index}')
    random.seed(f'pk:{seed}:{code}:{index}')     # PokerKit's own shuffles
    game, state = make_state(code, rng)
    tr = Tracker(code, state, free_reshuffle=rng.random() < 0.3)
    shown: dict[int, object] = {}
    k_types = state.hand_type_count
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        while state.status:
            if state.street_index is not None and state.street_index != tr.street:
                tr.new_street(state)
            if state.can_burn_card():
                state.burn_card('??')
            elif state.can_deal_hole():
                if tr.stud and state.street_index == 4:
                    need = sum(map(len, state.hole_dealing_statuses))
                    if need > len(state.deck_cards):
                        tr.kinds.add('difference-3')
                if (not tr.stud) and state.street_index > 0:
                    deal_td_draw(state, tr, rng)
                else:
                    op = state.deal_hole(1)
                    for c in op.cards:
                        tr.stub.discard(repr(c))
            elif state.can_deal_board():
                state.deal_board(1)
            elif state.stand_patter_or_discarder_index is not None:
                i = state.stand_patter_or_discarder_index
                cards = random_discard(rng, list(state.hole_cards[i]))
                state.stand_pat_or_discard(cards)
                tr.draw_discards[i] = [repr(c) for c in cards]
                tr.muck.extend(tr.draw_discards[i])
            elif state.actor_index is not None:
                i = state.actor_index
                if (tr.street == 0 and tr.stud and tr.short_forced is None
                        and state.can_post_bring_in()
                        and state.stacks[i] < ST_BRING):
                    tr.short_forced = i
                kind, amt = choose_action(state, tr, rng)
                if kind == 'cbr' and tr.closed(i):
                    tr.kinds.add('difference-8')
                if (kind == 'cbr' and state.can_post_bring_in()
                        and state.stacks[i] <= ST_BRING):
                    # PokerKit's all-in "completion" for no more than the
                    # bring-in (a bring-in here) prices the next completion
                    # as a raise over it (conservative: may still verify).
                    tr.kinds.add('difference-9')
                tr.on_action(i, kind, amt)
                if (tr.street == 0 and tr.short_forced is not None
                        and i != tr.short_forced and kind in ('cc', 'cbr')
                        and kind != 'pb'):
                    tr.kinds.add('difference-5')
                if kind == 'pb':
                    state.post_bring_in()
                elif kind == 'f':
                    tr.muck.extend(repr(c) for c in state.hole_cards[i])
                    state.fold()
                elif kind == 'cc':
                    state.check_or_call()
                else:
                    before = max(state.bets)
                    full = max(state.completion_betting_or_raising_amount,
                               state.street.min_completion_betting_or_raising_amount)
                    facing_bring_in = state.completion_status
                    if (not tr.stud and tr.fixed and tr.street == 0
                            and tr.rules_raises >= 4):
                        tr.kinds.add('difference-1')
                    state.complete_bet_or_raise_to(amt)
                    inc = amt - before
                    is_full = facing_bring_in or inc >= full
                    if is_full:
                        tr.rules_raises += 1
                    else:
                        tr.short_counted = True
                    if (tr.fixed and tr.short_counted
                            and state.completion_betting_or_raising_count >= 4
                            and tr.rules_raises < 4):
                        tr.kinds.add('difference-7')
            elif state.showdown_index is not None:
                i = state.showdown_index
                show = show_decision(state, shown, k_types, i)
                if show:
                    for k in range(k_types):
                        h = state.get_hand(i, 0, k)
                        if h is not None and (shown.get(k) is None
                                              or h > shown[k]):
                            shown[k] = h
                    state.show_or_muck_hole_cards(True)
                else:
                    state.show_or_muck_hole_cards(False)
            else:
                break
        snap = phhlib.finish(state)
    assert not state.status, f'{code} hand {index} stuck'
    final = list(state.stacks)
    settle_kinds, rules_final = phhlib.explain_settlement(
        snap, tr.stud, final)
    kinds = sorted(tr.kinds | set(settle_kinds))
    fields = {'hand': index + 1, 'ante_trimming_status': True,
              'finishing_stacks': final,
              'players': [f'p{j + 1}' for j in range(state.player_count)]}
    if tr.kinds & REJECT_KINDS:
        expect = 'reject'
    elif set(settle_kinds) & SETTLE_KINDS:
        expect = 'settle'
        fields['_pitboss_finishing_stacks'] = rules_final
    else:
        expect = 'verify'
    if 'unexplained' in kinds:
        expect = 'unexplained'
    fields['_pitboss_expect'] = expect
    if kinds:
        fields['_pitboss_differences'] = kinds
    hh = HandHistory.from_game_state(game, state, **fields)
    return hh.dumps(), expect, kinds, tr.reshuffles > 0


def work(args):
    code, seed, start, stop = args
    out = []
    for i in range(start, stop):
        out.append((i, *play_hand(code, seed, i)))
    return code, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split('\n\n', 1)[1])
    ap.add_argument('--seed', type=int, default=1, help='master seed (default 1)')
    ap.add_argument('--hands', type=int, default=2000,
                    help='hands per game (default 2000)')
    ap.add_argument('--out', default='results/phh',
                    help='output folder (default results/phh)')
    ap.add_argument('--games', default=','.join(phhlib.CODES),
                    help='comma-separated variant codes (default all six)')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1,
                    help='worker processes (default: CPU count)')
    a = ap.parse_args(argv)
    warnings.simplefilter('ignore')
    codes = [c for c in a.games.split(',') if c]
    for c in codes:
        if c not in phhlib.GAME_TYPES:
            ap.error(f'unknown game {c!r}; choose from {", ".join(phhlib.CODES)}')
    os.makedirs(a.out, exist_ok=True)
    chunk = 100
    tasks = [(c, a.seed, s, min(s + chunk, a.hands))
             for c in codes for s in range(0, a.hands, chunk)]
    t0 = time.time()
    results: dict[str, list] = {c: [] for c in codes}
    if a.jobs > 1:
        with Pool(a.jobs) as pool:
            for code, out in pool.imap_unordered(work, tasks):
                results[code].extend(out)
    else:
        for t in tasks:
            code, out = work(t)
            results[code].extend(out)
    elapsed = time.time() - t0
    summary = {}
    print(f'{"game":7} {"hands":>6} {"verify":>6} {"reject":>6} {"settle":>6}'
          f' {"unexpl":>6} {"reshuf":>6}  differences')
    for code in codes:
        rows = sorted(results[code])
        path = os.path.join(a.out, code.replace('/', '') + '.phhs')
        with open(path, 'w') as f:
            for i, text, _, _, _ in rows:
                f.write(f'[{i + 1}]\n{text}\n\n')
        exp = Counter(r[2] for r in rows)
        kinds = Counter(k for r in rows for k in r[3])
        resh = sum(1 for r in rows if r[4])
        summary[code] = {'hands': len(rows), 'expect': dict(exp),
                         'differences': dict(sorted(kinds.items())),
                         'td_reshuffles': resh, 'file': path}
        ks = ' '.join(f'{k.replace("difference-", "d")}:{v}'
                      for k, v in sorted(kinds.items()))
        print(f'{code:7} {len(rows):6} {exp["verify"]:6} {exp["reject"]:6}'
              f' {exp["settle"]:6} {exp["unexplained"]:6} {resh:6}  {ks}')
    total = sum(s['hands'] for s in summary.values())
    print(f'{total} hands in {elapsed:.1f}s ({total / max(elapsed, 1e-9):.0f}'
          f' hands/s, {a.jobs} jobs) -> {a.out}')
    with open(os.path.join(a.out, 'summary.json'), 'w') as f:
        json.dump({'seed': a.seed, 'hands_per_game': a.hands,
                   'games': summary}, f, indent=1)
    return 1 if any(s['expect'].get('unexplained') for s in summary.values()) else 0


if __name__ == '__main__':
    sys.exit(main())
