"""A simple Pitboss bot for both games, standard library only.

Triple draw (deuce-to-seven): keep distinct cards 8 or lower, draw to the rest; bet a made hand,
call with a one-card draw, give up a hopeless hand facing a bet after the second draw.
Stud hi/lo: play low cards (8 or lower, aces low) and big pairs; raise with three low cards or a
big pair, call otherwise until the hand is clearly bad.
"""
import pitboss_bot as pb


def lowball_discards(cards):
    keep = []
    for c in sorted(cards, key=pb.rank):
        if pb.rank(c) <= 8 and all(pb.rank(k) != pb.rank(c) for k in keep):
            keep.append(c)
    return [c for c in cards if c not in keep]


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
    name = "python-simple"

    def act(self, req):
        legal, view = req["legal"], req["view"]
        if legal.get("discard") is not None:
            return pb.discard(lowball_discards(view["cards"]))
        if legal.get("bring_in") is not None:
            return pb.bring_in()
        me = view["seats"][view["seat"]]
        if self.game["variant"] == "stud-hi-lo":
            strength = stud_strength(view["cards"] + me["up"])
        else:
            strength = 2 - min(2, len(lowball_discards(view["cards"])))
        raise_opt = legal.get("raise")
        if strength >= 2 and raise_opt:
            return pb.raise_to(raise_opt["min_to"])
        if legal["check"]:
            return pb.check()
        if strength == 0 and view["round"] >= 2 and legal["fold"]:
            return pb.fold()
        return pb.passive(req)


if __name__ == "__main__":
    pb.run(Simple())
