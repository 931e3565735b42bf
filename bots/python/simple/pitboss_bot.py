"""A tiny helper for writing Pitboss bots in Python (standard library only).

Subclass `Bot`, override `act` (and any of the notifications), then call `run(MyBot())`.
The helper speaks the JSON-lines protocol of protocol.md on stdin/stdout: it answers the
hello, echoes request ids, ignores nothing it should answer, and exits at match_end.
Print diagnostics to stderr (the referee keeps it in the bot's log), never to stdout.
"""
import json
import sys

PROTOCOL = 1
RANKS = "23456789TJQKA"


def rank(card):
    """Rank of a card string such as "Td": 2..14 (ace high)."""
    return RANKS.index(card[0]) + 2


def low_rank(card):
    """Rank with the ace low (1), for ace-to-five lows."""
    r = rank(card)
    return 1 if r == 14 else r


# Actions, as the protocol spells them.
def fold():
    return {"type": "fold"}


def check():
    return {"type": "check"}


def call():
    return {"type": "call"}


def raise_to(total):
    """Bet, raise or complete to `total` chips this round (between legal.raise.min_to and max_to)."""
    return {"type": "raise", "to": int(total)}


def bring_in():
    return {"type": "bring_in"}


def discard(cards):
    """Triple draw: throw these cards (a list of card strings; empty = stand pat)."""
    return {"type": "discard", "cards": list(cards)}


def passive(req):
    """Always legal: check if free, else call; stand pat; post the bring-in."""
    legal = req["legal"]
    if legal.get("discard") is not None:
        return discard([])
    if legal.get("bring_in") is not None:
        return bring_in()
    if legal["check"]:
        return check()
    if legal.get("call") is not None:
        return call()
    return fold()


class Bot:
    """Override what you need. `act` must return one of the action dicts above."""

    name = "python-bot"
    version = "0.1"
    games = ["triple-draw", "stud-hi-lo"]

    def match_start(self, msg):
        self.game = msg["game"]

    def hand_start(self, msg):
        pass

    def act(self, req):
        return passive(req)

    def hand_end(self, msg):
        pass


def run(bot):
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "act":
            reply = {"type": "action", "id": msg["id"], "action": bot.act(msg)}
        elif kind == "hello":
            if msg["protocol"] != PROTOCOL:
                sys.stderr.write("referee speaks protocol %s, I speak %s\n" % (msg["protocol"], PROTOCOL))
            reply = {
                "type": "hello",
                "id": msg["id"],
                "protocol": PROTOCOL,
                "name": bot.name,
                "version": bot.version,
                "games": bot.games,
            }
        elif kind == "match_start":
            bot.match_start(msg)
            continue
        elif kind == "hand_start":
            bot.hand_start(msg)
            continue
        elif kind == "hand_end":
            bot.hand_end(msg)
            continue
        elif kind == "match_end":
            break
        else:
            sys.stderr.write("ignoring unknown message %r\n" % kind)
            continue
        out.write(json.dumps(reply, separators=(",", ":")))
        out.write("\n")
        out.flush()
