#!/usr/bin/env python3
"""Re-run the PokerKit 0.7.7 facts quoted in notes.md (prints them)."""
import os, sys, warnings
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phhlib
from pokerkit import HandHistory, Mode, FixedLimitDeuceToSevenLowballTripleDraw as F2L3D
from pokerkit import FixedLimitSevenCardStudHighLowSplitEightOrBetter as F7S8

A = phhlib.AUTOMATIONS
def td(stacks, ante=0):
    n = len(stacks)
    return F2L3D(A, True, ante, [5, 10] + [0] * (n - 2), 10, 20, mode=Mode.CASH_GAME)(stacks, n)

print('1. variant codes known to HandHistory (PokerKit 11 + 4 registered by phhlib):', sorted(HandHistory.game_types))
s = td([100, 100])
print('2. heads-up TD after blinds: bets =', s.bets, '(p1 posts the big blind, p2 = button posts the small blind)')
for c in ('7c8d9hTsJs', '2c3d4h5s7d'):
    s.deal_hole(c)
print('   first to act pre-draw: p%d' % (s.actor_index + 1))
s.check_or_call(); s.check_or_call()
s.stand_pat_or_discard(); s.stand_pat_or_discard()
while s.can_burn_card():
    s.burn_card('??')
print('   first to act after the draw: p%d' % (s.actor_index + 1))
s = td([100, 100, 100])
print('3. 3-handed TD after blinds: bets =', s.bets, '(p1 SB, p2 BB, p3 button)')
for c in ('7c8d9hTsJs', '2c3d4h5s7d', 'KcKdQhQs2h'):
    s.deal_hole(c)
print('   first to act pre-draw: p%d' % (s.actor_index + 1))
tos = []
while s.can_complete_bet_or_raise_to():
    tos.append(s.complete_bet_or_raise_to().amount)
print('4. FL TD pre-draw raise-TO amounts PokerKit allows after the 10 blind:', tos,
      '-> cap is blind + 4 raises (RULES: blind + 3)')
g = F7S8(A, True, 5, 5, 20, 40, mode=Mode.CASH_GAME)
s = g([100, 100, 100], 3)
for c in ('AsKs6s', '2h2s6h', 'QcQd6c'):
    s.deal_hole(c)
print('5. stud up cards 6s 6h 6c: bring-in by p%d (clubs lowest)' % (s.actor_index + 1))
s.post_bring_in()
print('   next may complete to', s.min_completion_betting_or_raising_to_amount)
raw = {'variant': 'F2L3D', 'antes': [0, 0], 'blinds_or_straddles': [5, 10],
       'small_bet': 10, 'big_bet': 20, 'starting_stacks': [100, 100],
       'actions': ['d dh p1 7c8d9hTsJs', 'd dh p2 2c3d4h5s7d', 'p1 cc'],
       '_pitboss_expect': 'verify'}
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    hh = HandHistory(**HandHistory._filter_non_fields(**raw))
    print('6. _pitboss_expect kept as user field:', hh.user_defined_fields,
          '; warnings:', [str(x.message) for x in w])
    HandHistory._filter_non_fields(**dict(raw, pitboss=1))
    print('   an un-prefixed extra key warns:', str(w[-1].message)[:60], '...')
try:
    states = list(hh)
    print('7. HandHistory iteration accepted `p1 cc` out of turn; final stacks', states[-1].stacks)
except ValueError as e:
    print('7. HandHistory iteration tries to "repair" `p1 cc` out of turn (auto check/fold), then:', e)
try:
    phhlib.replay(phhlib.hand_history(raw))
except phhlib.ReplayError as e:
    print('   strict replay (phhlib.replay) rejects it:', e)
