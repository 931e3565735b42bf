"""The Pitboss bot SDK for Python: standard library only, one file to copy next to your bot.

Write only the decision:

    import pitboss_sdk as sdk

    class MyBot(sdk.Bot):
        def act(self, view, legal):
            return legal.passive()

    sdk.run(MyBot, name="my-bot")

`run` speaks the protocol of protocol.md on stdin/stdout: it answers the hello (protocol 1.1 with
`concurrency` tables at once and compact messages when the referee offers it, version 1 otherwise),
creates one bot object per table (so a bot's memory follows the hands of one table in order), keeps
each table's view from the events (the referee then sends no view), matches replies to requests by
id, and writes the replies to everything it has read in one flush.

`view` is a dict exactly as protocol.md §4 describes `view` (seat, round, phase, button, pot, cards,
board, seats[i] = {stack, bet, contributed, folded, up, draws}); `legal` is a `Legal`, with the
fields of protocol.md §6 and helpers that build actions. Print diagnostics to stderr, never stdout.
"""
import json
import os
import sys

PROTOCOL = 1
RANKS = "23456789TJQKA"


_RANK = {r: i + 2 for i, r in enumerate(RANKS)}


def rank(card):
    """Rank of a card string such as "Td": 2..14 (ace high)."""
    return _RANK[card[0]]


def low_rank(card):
    """Rank with the ace low (1), for ace-to-five lows."""
    r = rank(card)
    return 1 if r == 14 else r


class Legal:
    """What is allowed now (protocol.md §6), and the actions to answer with."""

    __slots__ = ("fold", "check", "call", "raise_", "bring_in", "discard")

    def __init__(self, d):
        self.fold = d["fold"]
        self.check = d["check"]
        self.call = d.get("call")
        self.raise_ = d.get("raise")
        self.bring_in = d.get("bring_in")
        self.discard = d.get("discard")

    @property
    def can_raise(self):
        return self.raise_ is not None

    @property
    def min_to(self):
        return self.raise_["min_to"] if self.raise_ else None

    @property
    def max_to(self):
        return self.raise_["max_to"] if self.raise_ else None

    def passive(self):
        """Stand pat, post the bring-in, check, call, else fold: always legal."""
        if self.discard is not None:
            return {"type": "discard", "cards": []}
        if self.bring_in is not None:
            return {"type": "bring_in"}
        if self.check:
            return {"type": "check"}
        if self.call is not None:
            return {"type": "call"}
        return {"type": "fold"}

    def raise_to(self, total):
        """Bet, raise or complete to `total` (clamped to the legal range); passive if not allowed."""
        if self.raise_ is None:
            return self.passive()
        total = max(self.raise_["min_to"], min(self.raise_["max_to"], int(total)))
        return {"type": "raise", "to": total}

    def check_or_fold(self):
        return {"type": "check"} if self.check else {"type": "fold"}

    def call_(self):
        return {"type": "call"} if self.call is not None else self.passive()

    def draw(self, cards):
        """Discard these cards (a list of card strings from view["cards"]); [] stands pat."""
        return {"type": "discard", "cards": list(cards)[: self.discard or 0]}

    def post_bring_in(self):
        return {"type": "bring_in"}


class Bot:
    """Override `act`; the hooks are optional. One object plays one table."""

    def match_start(self, match):
        """The match's `game` (variant, structure, stakes, options), `hands`, clock."""
        self.game = match["game"]

    def hand_start(self, hand):
        """`hand` is the hand_start message: hand, seat, seats, button, stacks."""

    def act(self, view, legal):
        raise NotImplementedError

    def hand_end(self, hand):
        """`hand` is the hand_end message: the last events and every seat's `net`."""


_PUT = frozenset(("blind", "bring_in", "call", "ante"))


class _Table:
    __slots__ = ("bot", "view", "start", "discarded", "draw_game")

    def __init__(self, bot):
        self.bot = bot
        self.view = None

    def hand_start(self, h, draw_game):
        n = h["seats"]
        self.draw_game = draw_game
        self.start = list(h["stacks"])
        self.discarded = [[0, 0, 0] for _ in range(n)]
        self.view = {
            "seat": h["seat"], "round": 0, "phase": "bet", "button": h["button"], "pot": 0,
            "cards": [], "board": None,
            "seats": [
                {"stack": self.start[i], "bet": 0, "contributed": 0, "folded": False, "up": [],
                 "draws": []}
                for i in range(n)
            ],
        }

    def apply(self, events):
        v = self.view
        seats = v["seats"]
        me = v["seat"]
        for e in events:
            k = e["event"]
            # Most frequent first: a hand of triple draw deals ten cards and bets a few times.
            if k == "deal":
                if e["card"] is not None:
                    if e["up"]:
                        seats[e["seat"]]["up"].append(e["card"])
                    elif e["seat"] == me:
                        v["cards"].append(e["card"])
            elif k in _PUT:
                st = seats[e["seat"]]
                st["contributed"] += e["amount"]
                v["pot"] += e["amount"]
                if k != "ante":
                    st["bet"] += e["amount"]
            elif k == "raise":
                st = seats[e["seat"]]
                add = e["to"] - st["bet"]
                st["bet"] = e["to"]
                st["contributed"] += add
                v["pot"] += add
            elif k == "round":
                v["round"] = e["round"]
                for st in seats:
                    st["bet"] = 0
            elif k == "fold":
                seats[e["seat"]]["folded"] = True
            elif k == "discard":
                self.discarded[e["seat"]][min(v["round"], 2)] = e["count"]
                if e["seat"] == me and e["cards"]:
                    gone = set(e["cards"].split())
                    v["cards"] = [c for c in v["cards"] if c not in gone]
            elif k == "community":
                v["board"] = e["card"]
            elif k == "return":
                st = seats[e["seat"]]
                st["bet"] -= e["amount"]
                st["contributed"] -= e["amount"]
                v["pot"] -= e["amount"]

    def current(self, legal):
        v = self.view
        v["phase"] = "draw" if legal.get("discard") is not None else "bet"
        done = min(v["round"], 3) if self.draw_game else 0
        for i, st in enumerate(v["seats"]):
            st["stack"] = self.start[i] - st["contributed"]
            st["draws"] = self.discarded[i][:done]
        return v


_SIMPLE = {
    "fold": ',"action":{"type":"fold"}}\n',
    "check": ',"action":{"type":"check"}}\n',
    "call": ',"action":{"type":"call"}}\n',
    "bring_in": ',"action":{"type":"bring_in"}}\n',
}


def _reply(rid, action, dumps=json.dumps):
    """The reply line. The actions the `Legal` helpers build are formatted directly (json.dumps
    costs more than the rest of a reply); anything else goes through json.dumps."""
    head = '{"type":"action","id":%d' % rid
    if type(action) is dict:
        kind = action.get("type")
        n = len(action)
        if n == 1 and kind in _SIMPLE:
            return head + _SIMPLE[kind]
        if n == 2 and kind == "raise" and type(action.get("to")) is int:
            return head + ',"action":{"type":"raise","to":%d}}\n' % action["to"]
        if n == 2 and kind == "discard" and type(action.get("cards")) is list:
            cards = action["cards"]
            if all(type(c) is str and len(c) == 2 and c.isalnum() for c in cards):
                return head + ',"action":{"type":"discard","cards":[%s]}}\n' % ",".join(
                    '"%s"' % c for c in cards)
    return head + ',"action":%s}\n' % dumps(action, separators=(",", ":"))


def run(bot_class, name, version=None, games=None, concurrency=16, compact=True, verify=False):
    """Plays until match_end or the end of input. `bot_class()` makes the bot of each table.

    With `compact=False` the referee sends the view in every request; `verify=True` then checks
    that the view kept from the events is the same, and stops with an error if not (a test of this
    SDK).

    Speed: input is read in large chunks and decoded once per chunk; each line goes straight to
    the C scanner of the json module (`json.loads` adds an encoding check and a regex per line);
    the replies to everything read are written in one write."""
    tables = {}
    match = None
    out = sys.stdout
    fd = sys.stdin.fileno()
    pending = b""
    loads = json.loads
    scan = json.JSONDecoder().scan_once
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except InterruptedError:
            continue
        if not chunk:
            break
        pending += chunk
        cut = pending.rfind(b"\n")
        if cut < 0:
            continue
        lines = pending[:cut].decode("utf-8").split("\n")
        pending = pending[cut + 1:]
        replies = []
        done = False
        for line in lines:
            try:
                msg, end = scan(line, 0)
                if end != len(line):
                    msg = loads(line)
            except (StopIteration, ValueError):
                msg = loads(line)
            kind = msg["type"]
            if kind == "act":
                t = tables[msg.get("table", 0)]
                legal = msg["legal"]
                t.apply(msg["events"])
                view = msg.get("view")
                if view is None:
                    view = t.current(legal)
                elif verify and t.current(legal) != view:
                    raise AssertionError("view kept %r != sent %r" % (t.view, view))
                replies.append(_reply(msg["id"], t.bot.act(view, Legal(legal))))
            elif kind == "hand_start":
                key = msg.get("table", 0)
                t = tables.get(key)
                if t is None:
                    t = tables[key] = _Table(bot_class())
                    if match is not None:
                        t.bot.match_start(match)
                t.hand_start(msg, match is not None and match["game"]["variant"] == "triple-draw")
                t.bot.hand_start(msg)
            elif kind == "hand_end":
                t = tables.get(msg.get("table", 0))
                if t is not None:
                    t.apply(msg["events"])
                    t.bot.hand_end(msg)
            elif kind == "hello":
                hello = {"type": "hello", "id": msg["id"], "protocol": PROTOCOL, "name": name,
                         "games": games or []}
                if version:
                    hello["version"] = version
                if msg.get("minor", 0) >= 1:
                    hello["concurrency"] = max(1, concurrency)
                    if compact:
                        hello["messages"] = "compact"
                replies.append(json.dumps(hello) + "\n")
            elif kind == "match_start":
                match = msg
                for t in tables.values():
                    t.bot.match_start(match)
            elif kind == "match_end":
                done = True
                break
        if replies:
            out.write("".join(replies))
            out.flush()
        if done:
            break
