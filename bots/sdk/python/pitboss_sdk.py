"""The Pitboss bot SDK for Python: standard library only, one file to copy next to your bot.

Write only the decision:

    import pitboss_sdk as sdk

    class MyBot(sdk.Bot):
        def act(self, view, legal):
            return legal.passive()

    sdk.run(MyBot, name="my-bot")

`run` speaks the protocol of protocol.md on stdin/stdout: it answers the hello (protocol 1.1 with
`concurrency` tables at once and compact messages when the referee offers it, terse ones with a
referee of 1.2, version 1 otherwise),
creates one bot object per table (so a bot's memory follows the hands of one table in order), keeps
each table's view from the events (the referee then sends no view), matches replies to requests by
id, and writes the replies to everything it has read in one flush.

`view` is a dict exactly as protocol.md §4 describes `view` (seat, round, phase, button, pot, cards,
board, seats[i] = {stack, bet, contributed, folded, up, draws}); `legal` is a `Legal`, with the
fields of protocol.md §6 and helpers that build actions. Print diagnostics to stderr, never stdout.
"""
import json
import os
import re
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

    @classmethod
    def parse(cls, text):
        """The legal actions of a terse `act` (protocol.md §14): `"f c50 r200:200"`. The same few
        strings come again and again, so their fields are remembered (a fresh object and a fresh
        `raise_` dict each time all the same)."""
        p = _LEGAL.get(text)
        if p is None:
            p = _legal_fields(text)
            if len(_LEGAL) >= 4096:
                _LEGAL.clear()
            _LEGAL[text] = p
        self = cls.__new__(cls)
        self.fold, self.check, self.call, r, self.bring_in, self.discard = p
        self.raise_ = dict(r) if r else None
        return self

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
        """`hand` is the hand_end message: the last events (always as the JSON objects of
        protocol.md §5, also when they came terse) and every seat's `net`."""


_PUT = frozenset(("blind", "bring_in", "call", "ante"))
_KIND = {"b": "bet", "r": "raise", "p": "complete"}
_CARDS = frozenset(r + s for r in RANKS for s in "cdhs")
_LEGAL = {}
# The start of a terse `act` as the referee writes it (tokens hold no quotes).
_TERSE_ACT = re.compile(
    r'\{"type":"act","id":(\d+),"table":(\d+),"hand":\d+,"events":"([^"]*)","legal":"([^"]*)"')


def _legal_fields(text):
    """fold, check, call, raise (a dict or None), bring_in, discard of a terse legal string."""
    fold = check = False
    call = raise_ = bring_in = discard = None
    for t in text.split():
        k = t[0]
        if k == "f":
            fold = True
        elif k == "x":
            check = True
        elif k == "c":
            call = int(t[1:])
        elif k == "d":
            discard = int(t[1:])
        elif k == "i":
            bring_in = int(t[1:])
        else:
            lo, _, hi = t[1:].partition(":")
            raise_ = {"kind": _KIND[k], "min_to": int(lo), "max_to": int(hi)}
    return fold, check, call, raise_, bring_in, discard
_SHARE = {"w": "whole", "h": "high", "l": "low"}


def _amount(text):
    """`50` or `50!` (all in): the chips and the flag."""
    if text[-1] == "!":
        return int(text[:-1]), True
    return int(text), False


def _cards(text):
    """Cards written one after the other (`7hKd`) as protocol.md writes a card set (`7h Kd`)."""
    return " ".join(text[i:i + 2] for i in range(0, len(text), 2))


def expand_events(text):
    """The events of a terse token string (protocol.md §14) as the JSON objects of §5."""
    out = []
    if not text:
        return out
    for t in text.split(" "):
        k = t[0]
        if k == "D" or k == "U":
            out.append({"event": "deal", "seat": int(t[1]), "card": t[2:] or None, "up": k == "U"})
        elif k == "R":
            out.append({"event": "round", "round": int(t[1:])})
        elif k == "C":
            out.append({"event": "community", "card": t[1:]})
        elif k == "Z":
            out.append({"event": "reshuffle", "cards": int(t[1:])})
        elif k == "f" or k == "x" or k == "M":
            out.append({"event": {"f": "fold", "x": "check", "M": "muck"}[k], "seat": int(t[1])})
        elif k == "X":
            f = t.split(":")
            out.append({"event": "discard", "seat": int(t[1]), "count": int(f[1]),
                        "cards": _cards(f[2]) if len(f) > 2 else None})
        elif k == "W":
            out.append({"event": "show", "seat": int(t[1]), "cards": _cards(t[3:])})
        elif k == "$":
            f = t.split(":")
            out.append({"event": "award", "seat": int(t[1]), "pot": int(f[1]),
                        "share": _SHARE[f[2]], "amount": int(f[3])})
        elif k == "E":
            out.append({"event": "penalty", "seat": int(t[1]), "fault": t[3:]})
        elif k == "T":
            out.append({"event": "return", "seat": int(t[1]), "amount": int(t[3:])})
        else:
            amount, all_in = _amount(t[3:])
            seat = int(t[1])
            if k in _KIND:
                out.append({"event": "raise", "seat": seat, "kind": _KIND[k], "to": amount,
                            "all_in": all_in})
            elif k == "S" or k == "B":
                out.append({"event": "blind", "seat": seat,
                            "blind": "small" if k == "S" else "big", "amount": amount,
                            "all_in": all_in})
            else:
                name = {"c": "call", "A": "ante", "I": "bring_in"}[k]
                out.append({"event": name, "seat": seat, "amount": amount, "all_in": all_in})
    return out


class _Table:
    """One table's bot and the view kept from the events. The view's dicts are updated as the
    events come (a bet touches its seat's `bet`, `contributed`, `stack` and the `pot`; a round
    resets the bets and shows the draws completed), so a decision only sets `phase`."""

    __slots__ = ("bot", "view", "seats", "discarded", "draw_game", "me", "hooked")

    def __init__(self, bot):
        self.bot = bot
        self.view = None
        # Whether the bot overrides hand_end (then terse events are expanded for it).
        self.hooked = type(bot).hand_end is not Bot.hand_end

    def hand_start(self, h, draw_game):
        n = h["seats"]
        self.draw_game = draw_game
        self.discarded = [[0, 0, 0] for _ in range(n)]
        self.me = h["seat"]
        stacks = h["stacks"]
        self.seats = [
            {"stack": stacks[i], "bet": 0, "contributed": 0, "folded": False, "up": [],
             "draws": []}
            for i in range(n)
        ]
        self.view = {
            "seat": h["seat"], "round": 0, "phase": "bet", "button": h["button"], "pot": 0,
            "cards": [], "board": None, "seats": self.seats,
        }

    def _round(self, r):
        """A betting round starts: bets back to 0, and in triple draw the draws completed so far
        (`r` of them) become visible."""
        self.view["round"] = r
        done = min(r, 3) if self.draw_game else 0
        for st, d in zip(self.seats, self.discarded):
            st["bet"] = 0
            if done:
                st["draws"] = d[:done]

    def apply(self, events):
        """Events as JSON objects (full and compact messages)."""
        v = self.view
        seats = self.seats
        me = self.me
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
                a = e["amount"]
                st["contributed"] += a
                st["stack"] -= a
                v["pot"] += a
                if k != "ante":
                    st["bet"] += a
            elif k == "raise":
                st = seats[e["seat"]]
                add = e["to"] - st["bet"]
                st["bet"] = e["to"]
                st["contributed"] += add
                st["stack"] -= add
                v["pot"] += add
            elif k == "round":
                self._round(e["round"])
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
                a = e["amount"]
                st["bet"] -= a
                st["contributed"] -= a
                st["stack"] += a
                v["pot"] -= a

    def apply_terse(self, text):
        """Events as a terse token string (protocol.md §14): one split, a letter per token."""
        if not text:
            return
        v = self.view
        seats = self.seats
        for t in text.split(" "):
            k = t[0]
            if k == "D":
                # A face-down card shown with its value is always yours.
                if len(t) > 2:
                    v["cards"].append(t[2:])
            elif k == "x":
                pass
            elif k in "cSBIA":
                a = t[3:]
                if a[-1] == "!":
                    a = a[:-1]
                a = int(a)
                st = seats[int(t[1])]
                st["contributed"] += a
                st["stack"] -= a
                v["pot"] += a
                if k != "A":
                    st["bet"] += a
            elif k in "brp":
                to = t[3:]
                if to[-1] == "!":
                    to = to[:-1]
                to = int(to)
                st = seats[int(t[1])]
                add = to - st["bet"]
                st["bet"] = to
                st["contributed"] += add
                st["stack"] -= add
                v["pot"] += add
            elif k == "R":
                self._round(int(t[1:]))
            elif k == "X":
                count, _, gone = t[3:].partition(":")
                self.discarded[int(t[1])][min(v["round"], 2)] = int(count)
                if gone:
                    gone = {gone[i:i + 2] for i in range(0, len(gone), 2)}
                    v["cards"] = [c for c in v["cards"] if c not in gone]
            elif k == "U":
                seats[int(t[1])]["up"].append(t[2:])
            elif k == "f":
                seats[int(t[1])]["folded"] = True
            elif k == "C":
                v["board"] = t[1:]
            elif k == "T":
                st = seats[int(t[1])]
                a = int(t[3:])
                st["bet"] -= a
                st["contributed"] -= a
                st["stack"] += a
                v["pot"] -= a

    def current(self, legal):
        v = self.view
        v["phase"] = "draw" if legal.discard is not None else "bet"
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
            # Written by hand only when every item is a card string (nothing to escape).
            try:
                cards_only = _CARDS.issuperset(cards)
            except TypeError:  # an unhashable item
                cards_only = False
            if cards_only:
                return head + ',"action":{"type":"discard","cards":[%s]}}\n' % (
                    '"' + '","'.join(cards) + '"' if cards else "")
    return head + ',"action":%s}\n' % dumps(action, separators=(",", ":"))


def run(bot_class, name, version=None, games=None, concurrency=16, compact=True, verify=False,
        terse=True):
    """Plays until match_end or the end of input. `bot_class()` makes the bot of each table.

    With `compact` (the default) the referee sends no view (the SDK keeps it from the events), and
    with `terse` (the default; a referee of protocol 1.2) the events and legal actions come as
    token strings, several times cheaper to read here than JSON objects. With `compact=False` the
    referee sends the view in every request; `verify=True` then checks that the view kept from the
    events is the same, and stops with an error if not (a test of this SDK).

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
    skip_ends = isinstance(bot_class, type) and bot_class.hand_end is Bot.hand_end
    terse_act = _TERSE_ACT.match
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
            # Without a hand_end hook nobody reads a hand's last events: not even decoded.
            if skip_ends and line.startswith('{"type":"hand_end"'):
                continue
            # A terse `act` in the referee's exact form is read by one regular expression (no
            # JSON object needed: the id, the table and the two token strings); anything else
            # is JSON.
            m = terse_act(line)
            if m is not None:
                rid, table, events, legal = m.groups()
                t = tables[int(table)]
                t.apply_terse(events)
                legal = Legal.parse(legal)
                replies.append(_reply(int(rid), t.bot.act(t.current(legal), legal)))
                continue
            try:
                msg, end = scan(line, 0)
                if end != len(line):
                    msg = loads(line)
            except (StopIteration, ValueError):
                msg = loads(line)
            kind = msg["type"]
            if kind == "act":
                t = tables[msg.get("table", 0)]
                events = msg["events"]
                if type(events) is str:
                    t.apply_terse(events)
                    legal = Legal.parse(msg["legal"])
                else:
                    t.apply(events)
                    legal = Legal(msg["legal"])
                view = msg.get("view")
                if view is None:
                    view = t.current(legal)
                elif verify and t.current(legal) != view:
                    raise AssertionError("view kept %r != sent %r" % (t.view, view))
                replies.append(_reply(msg["id"], t.bot.act(view, legal)))
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
                # Nobody reads the last events of a hand unless the bot has a hand_end hook.
                if t is not None and t.hooked:
                    if type(msg["events"]) is str:
                        t.apply_terse(msg["events"])
                        msg["events"] = expand_events(msg["events"])
                    else:
                        t.apply(msg["events"])
                    t.bot.hand_end(msg)
            elif kind == "hello":
                hello = {"type": "hello", "id": msg["id"], "protocol": PROTOCOL, "name": name,
                         "games": games or []}
                if version:
                    hello["version"] = version
                minor = msg.get("minor", 0)
                if minor >= 1:
                    hello["concurrency"] = max(1, concurrency)
                    if compact:
                        hello["messages"] = "terse" if terse and minor >= 2 else "compact"
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
