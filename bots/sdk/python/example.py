"""The simple Pitboss bot of bots/python/simple on the Python SDK (pitboss_sdk.py): the same
strategy, written as a decision function only.

Triple draw (deuce-to-seven): keep distinct cards 8 or lower, draw to the rest; bet a made hand,
call with a one-card draw, give up a hopeless hand facing a bet after the second draw.
Stud hi/lo: play low cards (8 or lower, aces low) and big pairs; raise with three low cards or a
big pair, call otherwise until the hand is clearly bad.
"""
from operator import itemgetter

import pitboss_sdk as pb


_LOW = frozenset("2345678")
_rank_char = itemgetter(0)


def lowball_discards(cards):
    """The first card of each distinct rank 8 or lower is kept; the rest is thrown."""
    seen = set()
    throw = []
    for c in cards:
        r = c[0]
        if r in _LOW and r not in seen:
            seen.add(r)
        else:
            throw.append(c)
    return throw


def lowball_throws(cards):
    """How many cards `lowball_discards` throws, without building the list."""
    return len(cards) - len(_LOW.intersection(map(_rank_char, cards)))


def stud_strength(cards):
    lows = {pb.low_rank(c) for c in cards if pb.low_rank(c) <= 8}
    ranks = [pb.rank(c) for c in cards]
    big_pair = any(ranks.count(r) >= 2 and r >= 10 for r in ranks)
    trips = any(ranks.count(r) >= 3 for r in ranks)
    score = 0
    if len(lows) >= min(3, len(cards)):
        score += 1
    if len(lows) >= 5:
        score += 1
    if big_pair or trips:
        score += 1
    return score


class Simple(pb.Bot):
    def match_start(self, match):
        super().match_start(match)
        self.stud = self.game["variant"] == "stud-hi-lo"

    def act(self, view, legal):
        if legal.discard is not None:
            return legal.draw(lowball_discards(view["cards"]))
        if legal.bring_in is not None:
            return legal.post_bring_in()
        if self.stud:
            strength = stud_strength(view["cards"] + view["seats"][view["seat"]]["up"])
        else:
            strength = 2 - min(2, lowball_throws(view["cards"]))
        if strength >= 2 and legal.raise_ is not None:
            return legal.min_raise()
        if legal.check:
            return {"type": "check"}
        if strength == 0 and view["round"] >= 2 and legal.fold:
            return {"type": "fold"}
        return legal.passive()


if __name__ == "__main__":
    import sys

    # `--compact`: compact messages instead of terse ones (for the bench that compares them).
    pb.run(Simple, name="python-sdk-example", games=["triple-draw", "stud-hi-lo"],
           terse="--compact" not in sys.argv[1:])
