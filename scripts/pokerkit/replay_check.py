#!/usr/bin/env python3
"""Replay PHH hands (e.g. written by Pitboss) in PokerKit 0.7.7 and compare.

Every hand of every .phh/.phhs file is replayed strictly (no implicit
folds or checks: an action PokerKit refuses is a replay error) and
PokerKit's finishing stacks are compared with the file's
`finishing_stacks`.  Mismatches and replay errors that docs/RULES.md's "Known
differences from PokerKit 0.7.7" explain are counted as expected
differences, by kind:

  difference-3  stud: the file deals a 7th-street community card while
                PokerKit, having folded cards to reshuffle, wants hole cards
  difference-4  odd chips of a tie (PokerKit: all to the lowest index)
  difference-5  a short big blind / bring-in was posted (PokerKit lets the
                others call only what was posted)
  difference-6  hi/lo side pot without an eligible low, or PokerKit's merged
                side pot moving an odd chip
  difference-7  fixed limit: PokerKit refuses a raise because it counted a
                short all-in toward the cap

4 and 6 are accepted only if the file's stacks are exactly what docs/RULES.md
gives.  Prints `hands compared, agreed, expected differences by kind,
disagreements` and exits 1 if there is any disagreement or unexplained
replay error (2 on unreadable input).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import phhlib  # noqa: E402
from pokerkit.state import (  # noqa: E402
    BlindOrStraddlePosting,
    BringInPosting,
    CompletionBettingOrRaisingTo,
)


def short_forced_bet(state) -> bool:
    blinds = list(state.blinds_or_straddles)
    if state.player_count == 2:
        blinds = blinds[::-1]
    big = max(blinds) if blinds else 0
    for op in state.operations:
        if isinstance(op, BlindOrStraddlePosting):
            if blinds[op.player_index] == big and op.amount < big:
                return True
        elif isinstance(op, BringInPosting):
            if op.amount < state.bring_in:
                return True
    return False


def short_all_in_this_street(state) -> bool:
    """A completion/bet/raise in the current betting round left its maker
    all-in with less than a full raise (conservative)."""
    ops = state.operations
    j = len(ops) - 1
    seen = False
    from pokerkit.state import BetCollection
    while j >= 0 and not isinstance(ops[j], BetCollection):
        if isinstance(ops[j], CompletionBettingOrRaisingTo):
            if state.stacks[ops[j].player_index] == 0:
                seen = True
        j -= 1
    return seen


def check_hand(label: str, raw: dict):
    """Return (status, kinds, message).  status: agreed | expected |
    disagreement | error | nostacks."""
    code = raw.get('variant')
    if code not in phhlib.GAME_TYPES:
        return 'error', [], f'unsupported variant {code!r}'
    stud = phhlib.is_stud(code)
    try:
        hh = phhlib.hand_history(raw)
    except Exception as e:  # noqa: BLE001
        return 'error', [], f'bad hand: {e}'
    try:
        state, snap, _ = phhlib.replay(hh)
    except phhlib.ReplayError as e:
        st = getattr(e, 'state', None)
        # Rebuild the state up to the failing action to explain it.
        st = hh.create_state()
        from pokerkit.notation import parse_action
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            for a in hh.actions[:e.index or 0]:
                while st.can_burn_card():
                    st.burn_card('??')
                try:
                    parse_action(st, a)
                except Exception:  # noqa: BLE001
                    break
            while st.can_burn_card():
                st.burn_card('??')
        kinds = []
        if short_forced_bet(st):
            kinds.append('difference-5')
        if ('No more completion' in e.reason and phhlib.is_fixed(code)
                and short_all_in_this_street(st)):
            kinds.append('difference-7')
        if (stud and e.action and e.action.split()[:2] == ['d', 'db']
                and st.street_index == 4):
            kinds.append('difference-3')
        if kinds:
            return 'expected', kinds, str(e)
        return 'error', [], str(e)
    want = raw.get('finishing_stacks')
    got = list(state.stacks)
    if want is None:
        return 'nostacks', [], ''
    if list(want) == got:
        return 'agreed', [], ''
    kinds, rules_final = phhlib.explain_settlement(snap, stud, got)
    kinds = [k for k in kinds if k != 'unexplained']
    if kinds and rules_final == list(want):
        return 'expected', kinds, ''
    if short_forced_bet(state):
        return 'expected', ['difference-5'], ''
    return ('disagreement', [],
            f'finishing_stacks {list(want)} but PokerKit gives {got}'
            + (f' (docs/RULES.md settlement {rules_final})' if rules_final else ''))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        epilog=__doc__.split('\n\n', 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('files', nargs='+', metavar='FILE',
                    help='.phh or .phhs files')
    ap.add_argument('--show', type=int, default=10,
                    help='print at most this many problem hands (default 10)')
    ap.add_argument('-v', '--verbose', action='store_true',
                    help='also list expected differences')
    a = ap.parse_args(argv)
    warnings.simplefilter('ignore')
    counts = Counter()
    kinds = Counter()
    shown = 0
    for path in a.files:
        try:
            hands = phhlib.load_hands(path)
        except Exception as e:  # noqa: BLE001
            print(f'{path}: cannot read: {e}', file=sys.stderr)
            return 2
        for label, raw in hands:
            status, ks, msg = check_hand(label, raw)
            counts[status] += 1
            kinds.update(ks)
            if status in ('disagreement', 'error') and shown < a.show:
                print(f'{status.upper()}: {label}: {msg}')
                shown += 1
            elif status == 'expected' and a.verbose:
                print(f'expected {",".join(ks)}: {label} {msg}')
    compared = sum(counts.values())
    print(f'hands compared: {compared}')
    print(f'agreed: {counts["agreed"]}')
    print(f'replayed without finishing_stacks: {counts["nostacks"]}')
    print(f'expected differences: {counts["expected"]}'
          + ''.join(f'\n  {k}: {v}' for k, v in sorted(kinds.items())))
    print(f'disagreements: {counts["disagreement"]}')
    print(f'replay errors: {counts["error"]}')
    return 1 if counts['disagreement'] or counts['error'] else 0


if __name__ == '__main__':
    sys.exit(main())
