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
board, seats[i] = {stack, bet, contributed, folded, up, draws}), the SDK's own and updated in place
as the events come (copy what you keep); `legal` is a `Legal`, with the fields of protocol.md §6
and helpers that build actions, read-only (decisions with the same legal actions share it). Print
diagnostics to stderr, never stdout.
"""
import json
import os
import re
import sys
from types import MappingProxyType

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
    """What is allowed now (protocol.md §6), and the actions to answer with.

    Read-only: with terse messages the same few legal strings come again and again, and each is
    parsed once into one `Legal` that every later decision with that string shares (`raise_` is
    then a read-only mapping). Setting an attribute raises `AttributeError`."""

    __slots__ = ("fold", "check", "call", "raise_", "bring_in", "discard")

    def __init__(self, d):
        _set = object.__setattr__
        _set(self, "fold", d["fold"])
        _set(self, "check", d["check"])
        _set(self, "call", d.get("call"))
        _set(self, "raise_", d.get("raise"))
        _set(self, "bring_in", d.get("bring_in"))
        _set(self, "discard", d.get("discard"))

    def __setattr__(self, name, value):
        raise AttributeError("a Legal is read-only (decisions share it): build an action instead")

    @classmethod
    def parse(cls, text):
        """The legal actions of a terse `act` (protocol.md §14), `"f c50 r200:200"`: the shared
        object of that string, parsed the first time it comes."""
        self = _LEGAL.get(text)
        if self is None:
            self = cls.__new__(cls)
            _set = object.__setattr__
            for name, value in zip(cls.__slots__, _legal_fields(text)):
                _set(self, name, value)
            if len(_LEGAL) >= 4096:
                _LEGAL.clear()
            _LEGAL[text] = self
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

    def min_raise(self):
        """Bet, raise or complete by the least allowed; passive if not allowed."""
        if self.raise_ is None:
            return self.passive()
        return {"type": "raise", "to": self.raise_["min_to"]}

    def check_or_fold(self):
        return {"type": "check"} if self.check else {"type": "fold"}

    def call_(self):
        return {"type": "call"} if self.call is not None else self.passive()

    def draw(self, cards):
        """Discard these cards (a list of card strings from view["cards"]); [] stands pat."""
        n = self.discard or 0
        return {"type": "discard",
                "cards": cards[:n] if type(cards) is list else list(cards)[:n]}

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
# A digit's value, and where a seat's discard counts start in `_Table.discarded`.
_DIGIT = {str(i): i for i in range(10)}
_DRAW_BASE = {str(i): 3 * i for i in range(10)}
# Stacks as a `hand_start` writes them (`20000,20000`): they reset every hand, so they repeat.
_STACKS = {}
_HAND_START = re.compile(
    r'\{"type":"hand_start","table":(\d+),"hand":\d+,"seat":(\d+),"seats":\d+,"button":(\d+),'
    r'"stacks":\[([0-9,]+)\]\}$')
# Each line of the input: a terse `act` in the referee's exact form as its id, table, events and
# legal actions (tokens hold no quotes), any other line whole.
_LINES = re.compile(
    r'^(?:\{"type":"act","id":(\d+),"table":(\d+),"hand":\d+,"events":"([^"]*)",'
    r'"legal":"([^"]*)".*|(.*))$', re.MULTILINE)


def _json_lines(text):
    """The lines of `text` in the shape `_LINES.findall` gives them, all as other lines."""
    return [("", "", "", "", line) for line in text.split("\n")]


def _stacks(text):
    """The stacks of a `hand_start` (`20000,20000`) as a tuple, remembered."""
    stacks = _STACKS[text] = tuple(map(int, text.split(",")))
    if len(_STACKS) > 64:
        _STACKS.clear()
    return stacks


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
            raise_ = MappingProxyType({"kind": _KIND[k], "min_to": int(lo), "max_to": int(hi)})
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

    __slots__ = ("bot", "act", "view", "seats", "by_digit", "discarded", "draw", "draw_game",
                 "me", "hooked")

    def __init__(self, bot):
        self.bot = bot
        self.act = bot.act  # bound once: a decision is the hot path
        self.view = None
        # Whether the bot overrides hand_end (then terse events are expanded for it).
        self.hooked = type(bot).hand_end is not Bot.hand_end

    def hand_start(self, seat, button, stacks, draw_game):
        """A new hand: `stacks` has one entry per seat."""
        self.draw_game = draw_game
        # Each seat's discard count in each draw (seat s, draw d at 3 * s + d), and the draw a
        # discard now belongs to.
        self.discarded = [0] * (3 * len(stacks))
        self.draw = 0
        self.me = seat
        self.seats = seats = [
            {"stack": s, "bet": 0, "contributed": 0, "folded": False, "up": [], "draws": []}
            for s in stacks
        ]
        # A terse token names its seat by one digit: the seat's dict without an int().
        self.by_digit = dict(zip("01234567", seats))
        self.view = {
            "seat": seat, "round": 0, "phase": "bet", "button": button, "pot": 0,
            "cards": [], "board": None, "seats": seats,
        }

    def _round(self, r):
        """A betting round starts: bets back to 0, and in triple draw the draws completed so far
        (`r` of them, at most 3) become visible."""
        self.view["round"] = r
        self.draw = r if r < 2 else 2
        if self.draw_game and r:
            d = self.discarded
            done = r if r < 3 else 3
            for i, st in enumerate(self.seats):
                st["bet"] = 0
                st["draws"] = d[3 * i:3 * i + done]
        else:
            for st in self.seats:
                st["bet"] = 0

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
                self.discarded[3 * e["seat"] + self.draw] = e["count"]
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
        """Events as a terse token string (protocol.md §14): one split, then the first letter of
        each token, the most frequent first (triple draw: deals, checks, discards, rounds,
        bets). Amounts end in `!` only when all in, so `int` is tried first and the `!` cut
        off when it refuses."""
        if not text:
            return
        v = self.view
        by = self.by_digit
        for t in text.split(" "):
            k = t[0]
            if k == "D":
                # A face-down card shown with its value is always yours.
                if len(t) > 2:
                    v["cards"].append(t[2:])
            elif k == "x":
                pass
            elif k == "X":
                if len(t) == 4:
                    # Another seat's discard of 0 to 9 cards: `X1:3`.
                    self.discarded[_DRAW_BASE[t[1]] + self.draw] = _DIGIT[t[3]]
                    continue
                f = t.split(":")
                self.discarded[_DRAW_BASE[t[1]] + self.draw] = int(f[1])
                if len(f) > 2 and f[2]:
                    # Your discarded cards, written one after another: a rank never follows a
                    # suit, so a card is in the string only where it was written.
                    gone = f[2]
                    v["cards"] = [c for c in v["cards"] if c not in gone]
            elif k == "R":
                # A betting round starts (as `_round`, written out: four a hand).
                r = _DIGIT[t[1]] if len(t) == 2 else int(t[1:])
                v["round"] = r
                self.draw = r if r < 2 else 2
                if r and self.draw_game:
                    if r > 3:
                        r = 3
                    d = self.discarded
                    i = 0
                    for st in v["seats"]:
                        st["bet"] = 0
                        st["draws"] = d[i:i + r]
                        i += 3
                else:
                    for st in v["seats"]:
                        st["bet"] = 0
            elif k in "cSBIA":
                try:
                    a = int(t[3:])
                except ValueError:
                    a = int(t[3:-1])
                st = by[t[1]]
                st["contributed"] += a
                st["stack"] -= a
                v["pot"] += a
                if k != "A":
                    st["bet"] += a
            elif k in "brp":
                try:
                    to = int(t[3:])
                except ValueError:
                    to = int(t[3:-1])
                st = by[t[1]]
                add = to - st["bet"]
                st["bet"] = to
                st["contributed"] += add
                st["stack"] -= add
                v["pot"] += add
            elif k == "U":
                by[t[1]]["up"].append(t[2:])
            elif k == "f":
                by[t[1]]["folded"] = True
            elif k == "C":
                v["board"] = t[1:]
            elif k == "T":
                st = by[t[1]]
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


_HEAD = '{"type":"action","id":'


def _reply(rid, action, dumps=json.dumps):
    """The reply line to the request of id `rid` (its digits, as the request wrote them). The
    actions the `Legal` helpers build are formatted directly (json.dumps costs more than the
    rest of a reply); anything else goes through json.dumps."""
    if type(action) is dict:
        n = len(action)
        if n == 1:
            tail = _SIMPLE.get(action.get("type"))
            if tail is not None:
                return _HEAD + rid + tail
        elif n == 2:
            kind = action.get("type")
            if kind == "discard":
                cards = action.get("cards")
                if type(cards) is list:
                    # Written by hand only when every item is a card string (nothing to escape).
                    try:
                        cards_only = _CARDS.issuperset(cards)
                    except TypeError:  # an unhashable item
                        cards_only = False
                    if cards_only:
                        if cards:
                            return (_HEAD + rid + ',"action":{"type":"discard","cards":["'
                                    + '","'.join(cards) + '"]}}\n')
                        return _HEAD + rid + ',"action":{"type":"discard","cards":[]}}\n'
            elif kind == "raise":
                to = action.get("to")
                if type(to) is int:
                    return _HEAD + rid + ',"action":{"type":"raise","to":' + str(to) + "}}\n"
    return "%s%s,\"action\":%s}\n" % (_HEAD, rid, dumps(action, separators=(",", ":")))


def run(bot_class, name, version=None, games=None, concurrency=16, compact=True, verify=False,
        terse=True):
    """Plays until match_end or the end of input. `bot_class()` makes the bot of each table.

    With `compact` (the default) the referee sends no view (the SDK keeps it from the events), and
    with `terse` (the default; a referee of protocol 1.2) the events and legal actions come as
    token strings, several times cheaper to read here than JSON objects. With `compact=False` the
    referee sends the view in every request; `verify=True` then checks that the view kept from the
    events is the same, and stops with an error if not (a test of this SDK).

    Speed: input is read in large chunks and decoded once per chunk; with terse messages one
    regular expression splits the chunk into `act` lines, already cut into id, table, events and
    legal actions, and other lines; a `hand_start` is read by another one when the bot has no hook
    for it; the rest goes straight to the C scanner of the json module (`json.loads` adds an
    encoding check and a regex per line); the replies to everything read are written in one
    write. (crates/external/EXTERNAL-BENCH.md has what each of these saves.)"""
    tables = {}
    match = None
    out = sys.stdout
    fd = sys.stdin.fileno()
    pending = b""
    loads = json.loads
    scan = json.JSONDecoder().scan_once
    # Without hooks the SDK does not decode what only the hooks would read.
    plain = isinstance(bot_class, type)
    skip_ends = plain and bot_class.hand_end is Bot.hand_end
    quick_starts = plain and bot_class.hand_start is Bot.hand_start
    hand_start = _HAND_START.match

    def new_table(key):
        t = tables[key] = _Table(bot_class())
        if match is not None:
            t.bot.match_start(match)
        return t

    # Until terse messages are agreed, every line is read as JSON.
    split_lines = _json_lines
    legal_get = _LEGAL.get
    draw_game = False
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
        text = pending[:cut].decode("utf-8")
        pending = pending[cut + 1:]
        replies = []
        done = False
        for rid, table, events, legal, line in split_lines(text):
            # A terse `act` in the referee's exact form is read by one regular expression (no
            # JSON object needed: the id, the table and the two token strings); so is a
            # `hand_start` when the bot has no hook for it; anything else is JSON.
            if rid:
                t = tables[table]
                t.apply_terse(events)
                legal = legal_get(legal) or Legal.parse(legal)
                v = t.view
                v["phase"] = "bet" if legal.discard is None else "draw"
                replies.append(_reply(rid, t.act(v, legal)))
                continue
            if not line:
                continue
            if line.startswith('{"type":"hand_'):
                if line[14] == "e":
                    # Without a hand_end hook nobody reads a hand's last events: not even
                    # decoded.
                    if skip_ends:
                        continue
                elif quick_starts:
                    m = hand_start(line)
                    if m is not None:
                        key, seat, button, stacks = m.groups()
                        t = tables.get(key) or new_table(key)
                        t.hand_start(int(seat), int(button),
                                     _STACKS.get(stacks) or _stacks(stacks), draw_game)
                        continue
            try:
                msg, end = scan(line, 0)
                if end != len(line):
                    msg = loads(line)
            except (StopIteration, ValueError):
                msg = loads(line)
            kind = msg["type"]
            if kind == "act":
                t = tables[str(msg.get("table", 0))]
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
                replies.append(_reply(str(msg["id"]), t.bot.act(view, legal)))
            elif kind == "hand_start":
                key = str(msg.get("table", 0))
                t = tables.get(key) or new_table(key)
                t.hand_start(msg["seat"], msg["button"], msg["stacks"], draw_game)
                t.bot.hand_start(msg)
            elif kind == "hand_end":
                t = tables.get(str(msg.get("table", 0)))
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
                        if terse and minor >= 2:
                            split_lines = _LINES.findall
                replies.append(json.dumps(hello) + "\n")
            elif kind == "match_start":
                match = msg
                draw_game = match["game"]["variant"] == "triple-draw"
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
