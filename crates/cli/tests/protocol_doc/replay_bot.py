"""The scripted bot of protocol_doc.rs: plays the bot's side of one transcript of protocol.md.

Argument: a file with the transcript block's lines (`> ...` referee, `< ...` bot, `...` the
session goes on). It writes each `<` line once it has read every `>` line before it, verbatim,
so the referee meets exactly the document's replies. Past the block (or its `...`) it answers
passively (check, call, stand pat, bring in, else fold) in whatever style was negotiated, so the
match ends quickly instead of timing out.
"""
import json
import sys


def passive(msg):
    legal = msg["legal"]
    if isinstance(legal, str):  # terse (section 14)
        kinds = {token[0] for token in legal.split()}
        if "d" in kinds:
            return {"type": "discard", "cards": []}
        if "x" in kinds:
            return {"type": "check"}
        if "c" in kinds:
            return {"type": "call"}
        if "i" in kinds:
            return {"type": "bring_in"}
        return {"type": "fold"}
    if legal["discard"] is not None:
        return {"type": "discard", "cards": []}
    if legal["check"]:
        return {"type": "check"}
    if legal["call"] is not None:
        return {"type": "call"}
    if legal["bring_in"] is not None:
        return {"type": "bring_in"}
    return {"type": "fold"}


def answer(msg):
    reply = {"type": "action", "id": msg["id"], "action": passive(msg)}
    print(json.dumps(reply), flush=True)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        script = [line.rstrip("\n") for line in f if line.strip()]
    i = 0
    pending = {}  # requests read while scripted, not answered by the script
    while True:
        while i < len(script) and script[i].startswith("<"):
            line = script[i][1:].strip()
            pending.pop(json.loads(line).get("id"), None)
            print(line, flush=True)
            i += 1
        if i < len(script) and not script[i].startswith(">"):
            i = len(script)  # the `...`: the script is over
        if i == len(script):
            for msg in pending.values():
                answer(msg)
            pending.clear()
        line = sys.stdin.readline()
        if not line:
            return
        msg = json.loads(line)
        if i < len(script):
            if msg["type"] == "act":
                pending[msg["id"]] = msg
            i += 1
            continue
        if msg["type"] == "match_end":
            return
        if msg["type"] == "hello":
            print(json.dumps({"type": "hello", "id": msg["id"], "protocol": 1, "name": "replay"}), flush=True)
        elif msg["type"] == "act":
            answer(msg)


main()
