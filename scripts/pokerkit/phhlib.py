"""Shared helpers for the Pitboss <-> PokerKit 0.7.7 PHH cross-check.

Stdlib + pokerkit only.  Used by gen_hands.py (PokerKit -> PHH) and
replay_check.py (PHH written by Pitboss -> PokerKit).  See notes.md for the
conventions this module implements.
"""

from __future__ import annotations

import tomllib
import warnings
from dataclasses import dataclass, field
from typing import Any

from pokerkit import (
    Automation,
    BettingStructure,
    FixedLimitDeuceToSevenLowballTripleDraw,
    FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    HandHistory,
    Mode,
)
from pokerkit.games import (
    DeuceToSevenLowballMixin,
    NoLimitPokerMixin,
    PotLimitPokerMixin,
    SevenCardStud,
    TripleDraw,
)
from pokerkit.hands import EightOrBetterLowHand, StandardHighHand
from pokerkit.notation import parse_action
from pokerkit.state import (
    BringInPosting,
    CheckingOrCalling,
    CompletionBettingOrRaisingTo,
    Folding,
    HoleDealing,
    BoardDealing,
    State,
)


# --------------------------------------------------------------------------
# Variants.  PokerKit 0.7.7 (and PHH spec 0.0.1) only define F2L3D and F7S/8
# for our games.  The pot-/no-limit forms are PokerKit's own game classes
# (TripleDraw / SevenCardStud bases) mixed with PotLimitPokerMixin /
# NoLimitPokerMixin, registered under new codes that follow the spec's
# naming scheme (F/P/N prefix; N2L1D already exists for single draw).
# Unfixed-limit codes take `min_bet` instead of `small_bet`/`big_bet`, as
# the spec requires for NT/PO/N2L1D.
# --------------------------------------------------------------------------


class _MinBetTripleDraw(TripleDraw):
    def __init__(self, automations, ante_trimming_status, raw_antes,
                 raw_blinds_or_straddles, min_bet, **kwargs):
        super().__init__(automations, ante_trimming_status, raw_antes,
                         raw_blinds_or_straddles, min_bet, min_bet, **kwargs)


class _MinBetSevenCardStud(SevenCardStud):
    def __init__(self, automations, ante_trimming_status, raw_antes,
                 bring_in, min_bet, **kwargs):
        super().__init__(automations, ante_trimming_status, raw_antes,
                         bring_in, min_bet, min_bet, **kwargs)


class PotLimitDeuceToSevenLowballTripleDraw(
        PotLimitPokerMixin, DeuceToSevenLowballMixin, _MinBetTripleDraw):
    """Pot-limit 2-7 triple draw (PHH code P2L3D, Pitboss extension)."""


class NoLimitDeuceToSevenLowballTripleDraw(
        NoLimitPokerMixin, DeuceToSevenLowballMixin, _MinBetTripleDraw):
    """No-limit 2-7 triple draw (PHH code N2L3D, Pitboss extension)."""


class _Stud8Mixin:
    deck = FixedLimitSevenCardStudHighLowSplitEightOrBetter.deck
    hand_types = FixedLimitSevenCardStudHighLowSplitEightOrBetter.hand_types
    low = False


class PotLimitSevenCardStudHighLowSplitEightOrBetter(
        PotLimitPokerMixin, _Stud8Mixin, _MinBetSevenCardStud):
    """Pot-limit stud hi/lo 8 (PHH code P7S/8, Pitboss extension)."""


class NoLimitSevenCardStudHighLowSplitEightOrBetter(
        NoLimitPokerMixin, _Stud8Mixin, _MinBetSevenCardStud):
    """No-limit stud hi/lo 8 (PHH code N7S/8, Pitboss extension)."""


GAME_TYPES = {
    'F2L3D': FixedLimitDeuceToSevenLowballTripleDraw,
    'P2L3D': PotLimitDeuceToSevenLowballTripleDraw,
    'N2L3D': NoLimitDeuceToSevenLowballTripleDraw,
    'F7S/8': FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    'P7S/8': PotLimitSevenCardStudHighLowSplitEightOrBetter,
    'N7S/8': NoLimitSevenCardStudHighLowSplitEightOrBetter,
}
CODES = tuple(GAME_TYPES)
_REQUIRED = {
    'P2L3D': ('variant', 'antes', 'blinds_or_straddles', 'min_bet',
              'starting_stacks', 'actions'),
    'N2L3D': ('variant', 'antes', 'blinds_or_straddles', 'min_bet',
              'starting_stacks', 'actions'),
    'P7S/8': ('variant', 'antes', 'bring_in', 'min_bet',
              'starting_stacks', 'actions'),
    'N7S/8': ('variant', 'antes', 'bring_in', 'min_bet',
              'starting_stacks', 'actions'),
}


def register_variants() -> None:
    """Teach pokerkit.notation.HandHistory the four Pitboss codes."""
    for code, cls in GAME_TYPES.items():
        HandHistory.game_types.setdefault(code, cls)
        HandHistory.variants.setdefault(cls, code)
    for code, names in _REQUIRED.items():
        HandHistory.required_field_names.setdefault(code, names)


register_variants()


def is_stud(code: str) -> bool:
    return '7S' in code


def is_fixed(code: str) -> bool:
    return code.startswith('F')


# Automations used both when generating and when replaying.  Card burning
# is done by hand with the unknown card '??' (consumes nothing, exactly as
# pokerkit.notation.HandHistory does), so PokerKit's stub equals Pitboss's
# burn-free stub.  Hand killing / chip pushing / pulling are done by hand so
# that the showdown state can be snapshotted before PokerKit kills hands.
AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
)

RANKS = '23456789TJQKA'
SUITS = 'cdhs'


# --------------------------------------------------------------------------
# Reading PHH / PHHS
# --------------------------------------------------------------------------


def load_hands(path: str) -> list[tuple[str, dict[str, Any]]]:
    """Return [(label, raw_table)] for a .phh (one hand) or .phhs file."""
    with open(path, 'rb') as f:
        data = tomllib.load(f)
    if 'variant' in data and 'actions' in data:
        return [(path, data)]
    out = []
    for key, value in data.items():
        if isinstance(value, dict):
            out.append((f'{path}[{key}]', value))
    return out


def hand_history(raw: dict[str, Any]) -> HandHistory:
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return HandHistory(**HandHistory._filter_non_fields(
            **raw, automations=AUTOMATIONS))


# --------------------------------------------------------------------------
# Strict replay
# --------------------------------------------------------------------------


class ReplayError(Exception):
    def __init__(self, index: int | None, action: str | None, reason: str):
        super().__init__(reason)
        self.index = index
        self.action = action
        self.reason = reason

    def __str__(self) -> str:
        if self.index is None:
            return self.reason
        return f'action {self.index + 1} {self.action!r}: {self.reason}'


@dataclass
class Snapshot:
    """The state just before PokerKit kills hands and pushes chips."""
    statuses: list[bool]
    contributions: list[int]
    stacks: list[int]
    hands: list[list[Any]]  # hands[k][i]: hand of type k of player i or None
    # every card each player plays with (hole cards and board), for odd chips
    cards: list[list[Any]] | None = None
    # statuses after PokerKit killed the hands that cannot win anything
    # (PokerKit builds its pots from these, merging equal eligibility)
    live: list[bool] | None = None


def take_snapshot(state: State) -> Snapshot:
    n = state.player_count
    hands = [[state.get_hand(i, 0, k) for i in range(n)]
             for k in range(state.hand_type_count)]
    board = []
    for b in state.board_cards:
        board.extend(b if isinstance(b, (list, tuple)) else [b])
    cards = [list(filter(None, state.hole_cards[i])) + board for i in range(n)]
    return Snapshot(list(state.statuses), [-p for p in state.payoffs],
                    list(state.stacks), hands, cards=cards)


def finish(state: State) -> Snapshot | None:
    """Run kill / push / pull steps; return the pre-settlement snapshot."""
    snap = None
    while state.status:
        if state.can_select_runout_count():
            state.select_runout_count()
        elif state.can_kill_hand():
            if snap is None:
                snap = take_snapshot(state)
            state.kill_hand()
        elif state.can_push_chips():
            if snap is None:
                snap = take_snapshot(state)
            if snap.live is None:
                snap.live = list(state.statuses)
            state.push_chips()
        elif state.can_pull_chips():
            state.pull_chips()
        else:
            return snap
    return snap


def pending(state: State) -> str:
    if state.can_burn_card():
        return 'a burn'
    if state.can_deal_hole():
        return f'hole cards for p{state.hole_dealee_index + 1}'
    if state.can_deal_board():
        return 'a board card'
    if state.stand_patter_or_discarder_index is not None:
        return f'a draw by p{state.stand_patter_or_discarder_index + 1}'
    if state.actor_index is not None:
        return f'an action by p{state.actor_index + 1}'
    if state.showdown_index is not None:
        return f'show/muck by p{state.showdown_index + 1}'
    return 'something'


def replay(hh: HandHistory) -> tuple[State, Snapshot | None, list[str]]:
    """Replay a hand strictly: every action must apply as written.

    Unlike HandHistory.__iter__, nothing is "repaired": an action PokerKit
    rejects is an error, not an implicit fold/check.  Burns are '??'.
    Returns (final state, snapshot, warnings).
    """
    try:
        state = hh.create_state()
    except Exception as e:  # noqa: BLE001
        raise ReplayError(None, None, f'cannot create state: {e}') from e
    notes: list[str] = []
    for index, action in enumerate(hh.actions):
        while state.can_burn_card():
            state.burn_card('??')
        words = action.split('#')[0].split()
        if len(words) >= 3 and words[0] == 'd':
            cards = words[-1]
            in_play = {repr(c) for c in state.cards_in_play}
            for j in range(0, len(cards), 2):
                c = cards[j:j + 2]
                if c != '??' and c in in_play:
                    raise ReplayError(index, action, f'card {c} is in play')
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            try:
                parse_action(state, action, hh.parse_value)
            except Exception as e:  # noqa: BLE001
                raise ReplayError(index, action, str(e)) from e
        notes.extend(f'action {index + 1}: {w.message}' for w in caught)
    while state.can_burn_card():
        state.burn_card('??')
    snap = finish(state)
    if state.status:
        raise ReplayError(None, None,
                          f'hand incomplete: waiting for {pending(state)}')
    return state, snap, notes


# --------------------------------------------------------------------------
# Settlement as docs/RULES.md prescribes (used to explain differences 4 and 6)
# --------------------------------------------------------------------------


def _card_key(card) -> tuple[int, int]:
    return RANKS.index(card.rank.value), SUITS.index(card.suit.value)


def _tie_key(five, held) -> list[tuple[int, int]]:
    """The tied five's cards, highest first, each rank taken with the best
    suits the player holds in that rank (docs/RULES.md stud odd chip)."""
    keys = sorted(map(_card_key, five), reverse=True)
    if held is None:
        return keys
    ranks = [r for r, _ in keys]
    out = []
    for r in sorted(set(ranks), reverse=True):
        suits = sorted((sk for rk, sk in map(_card_key, held) if rk == r),
                       reverse=True)
        out.extend((r, sk) for sk in suits[:ranks.count(r)])
    return sorted(out, reverse=True)


def rules_pots(snap: Snapshot) -> list[tuple[int, list[int]]]:
    """Pots as docs/RULES.md builds them: a main pot and a side pot at each all-in level of the players
    still in ("each all-in player is eligible only for the chips matched against their own
    contribution"). A folded player's contribution makes no pot of its own: it goes into the pots
    up to its size. Never merged: [(amount, eligible)]."""
    c = snap.contributions
    live = [i for i in range(len(c)) if snap.statuses[i]]
    levels = sorted(set(c[i] for i in live if c[i] > 0))
    pots: list[tuple[int, list[int]]] = []
    prev = 0
    for level in levels:
        amount = sum(min(x, level) - min(x, prev) for x in c)
        eligible = [i for i in live if c[i] >= level]
        if amount:
            pots.append((amount, eligible))
        prev = level
    above = sum(max(0, x - prev) for x in c)
    if above and pots:
        a, e = pots[-1]
        pots[-1] = (a + above, e)
    return pots


def settle(snap: Snapshot, stud: bool, odd_chip: str = 'rules',
           low_rule: str = 'rules') -> list[int]:
    """Final stacks from a snapshot.

    odd_chip: 'rules' (TD: one at a time in seat order from p1; stud: to the
    tied player with the highest card of the tied five) or 'pokerkit' (all
    odd chips to the lowest player index).
    """
    n = len(snap.stacks)
    out = list(snap.stacks)
    active = [i for i in range(n) if snap.statuses[i]]
    if len(active) == 1:
        out[active[0]] += sum(snap.contributions)
        return out
    any_low = stud and any(snap.hands[1][i] is not None for i in active)
    for amount, eligible in rules_pots(snap):
        halves = [(amount, 0)]
        if stud:
            has_low = any(snap.hands[1][i] is not None for i in eligible)
            if has_low or (low_rule == 'pokerkit' and any_low):
                halves = [(amount - amount // 2, 0), (amount // 2, 1)]
        for half, k in halves:
            hands = snap.hands[k]
            cands = [i for i in eligible if hands[i] is not None]
            if cands:
                best = max(hands[i] for i in cands)
                winners = [i for i in cands if hands[i] == best]
            else:  # pokerkit low half with no low among the eligible
                winners = list(eligible)
            q, r = divmod(half, len(winners))
            for i in winners:
                out[i] += q
            if not r:
                continue
            if odd_chip == 'pokerkit':
                out[winners[0]] += r
                continue
            if stud and cands:
                # Highest card of the tied five first; when that card is the
                # same (the shared stud community card), the next highest,
                # and so on, as the Pitboss engine does.
                # Among equal-ranked cards a player holds, the best suit
                # counts (PokerKit's hand object may pick either one).
                order = sorted(winners, key=lambda i: _tie_key(
                    hands[i].cards, snap.cards[i] if snap.cards else None),
                    reverse=True)
            else:
                order = winners  # seat order from the left of the button
            for j in range(r):
                out[order[j % len(order)]] += 1
    return out


def merged_pots_differ(snap: Snapshot) -> bool:
    """PokerKit merges adjacent pots whose eligible players (after
    folds, mucks and its own hand killing) are the same."""
    live = snap.live if snap.live is not None else snap.statuses
    pokerkit = rules_pots(Snapshot(live, snap.contributions, snap.stacks,
                                   snap.hands))
    return [a for a, _ in pokerkit] != [a for a, _ in rules_pots(snap)]


def no_low_side_pot(snap: Snapshot) -> bool:
    active = [i for i, s in enumerate(snap.statuses) if s]
    if not any(snap.hands[1][i] is not None for i in active):
        return False
    return any(all(snap.hands[1][i] is None for i in e)
               for _, e in rules_pots(snap))


def explain_settlement(snap: Snapshot | None, stud: bool,
                       pokerkit_final: list[int]) -> tuple[list[str],
                                                           list[int] | None]:
    """Classify a PokerKit settlement against docs/RULES.md.

    Returns (kinds, rules_final).  kinds is [] when PokerKit's result is
    what docs/RULES.md gives; 'difference-4' / 'difference-6' when explained;
    'unexplained' otherwise (a bug here or an unlisted difference).
    """
    if snap is None:
        return [], None
    rules_final = settle(snap, stud)
    if rules_final == list(pokerkit_final):
        return [], rules_final
    kinds = []
    pk_odd = settle(snap, stud, odd_chip='pokerkit')
    if pk_odd == list(pokerkit_final):
        kinds.append('difference-4')
    else:
        if rules_final != pk_odd:
            kinds.append('difference-4')
        if (stud and no_low_side_pot(snap)) or merged_pots_differ(snap):
            kinds.append('difference-6')
        else:
            kinds.append('unexplained')
    return kinds, rules_final
