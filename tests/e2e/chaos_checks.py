"""The invariants the chaos test (``test_chaos.py``) checks after each game."""

from __future__ import annotations

import logging
import re
from collections import Counter

from tests.e2e.chaos_walk import FSI, GROUP, PDI, Chaos
from tests.fakebot import FakeBotAPI

SHOWDOWN_RE = re.compile(
    r"\u2068([^\u2069]*)\u2069 calls Coyote! on \u2068([^\u2069]*)\u2069's bid of (\d+)\.")
BID_RE = re.compile(r"\u2068([^\u2069]*)\u2069 (bids|changes their bid to) (\d+)(?=\.|\swith)")


# --- the checks --------------------------------------------------------------------------------
def told_sequence(api: FakeBotAPI) -> list[tuple[str, str, int]]:
    told = []
    for m in api.bot_messages(GROUP):
        for name, verb, amount in BID_RE.findall(m.text or ""):
            told.append((name, "bids" if verb == "bids" else "changes", int(amount)))
    return told


def told_showdowns(api: FakeBotAPI) -> list[tuple[str, str, int]]:
    return [(a, b, int(n)) for m in api.bot_messages(GROUP)
            for a, b, n in SHOWDOWN_RE.findall(m.text or "")]


def logged_showdowns(game, log) -> list[tuple[str, str, int]]:
    """The showdowns the group should see in full: each outcome's first and last."""
    shown = []
    for entries in _outcomes(log):
        ends = [i for i, entry in enumerate(entries) if any(
            e["type"] in ("showdown", "round_ended", "game_over") for e in entry.events)]
        for i, entry in enumerate(entries):
            for e in entry.events:
                if e["type"] == "showdown" and i in (ends[0], ends[-1]):
                    shown.append((" ".join(game.at_seat(e["caller"]).name.split()),
                                  " ".join(game.at_seat(e["bidder"]).name.split()), e["bid"]))
    return shown


def _outcomes(log) -> list[list]:
    outcomes: list[list] = []
    for entry in log:
        starts = entry.user_id is not None or any(
            e["type"] == "turn_timed_out" for e in entry.events) or not outcomes
        if starts:
            outcomes.append([entry])
        else:
            outcomes[-1].append(entry)
    return outcomes


def logged_sequence(game, log) -> tuple[list[tuple[str, str, int]], int]:
    """The bids and changed bids of the log the group should be told, in order, and the
    number left out as moves of rounds the computer players played out among themselves."""
    outcomes = _outcomes(log)
    told, skipped = [], 0
    for entries in outcomes:
        ends = [i for i, entry in enumerate(entries) if any(
            e["type"] in ("showdown", "round_ended", "game_over") for e in entry.events)]
        for i, entry in enumerate(entries):
            between = bool(ends) and ends[0] < i <= ends[-1]
            for e in entry.events:
                if e["type"] not in ("bid_placed", "bid_changed"):
                    continue
                if between:
                    skipped += 1
                    continue
                name = game.at_seat(e["seat"]).name
                name = " ".join(name.split())
                told.append((name, "bids" if e["type"] == "bid_placed" else "changes",
                             e["amount"]))
    return told, skipped


def is_subsequence(small: list, big: list) -> bool:
    it = iter(big)
    return all(any(x == y for y in it) for x in small)


def hidden_card_leaks(api: FakeBotAPI, game) -> list[str]:
    """Private texts whose own-seat line shows a card where it should say ❓ (yours)."""
    leaks = []
    for p in game.players:
        if p.user_id is None:
            continue
        own = f"{FSI}{' '.join(p.name.split())}{PDI}"
        for entry in api.log:
            if entry.kind not in ("send", "edit") or entry.chat_id != p.user_id:
                continue
            text = entry.text or ""
            heading = text.splitlines()[:2]  # under the group's name (render/place.py)
            if f"Game #{game.id} · round" not in text or any("is over" in h for h in heading):
                continue
            for line in text.splitlines():
                stripped = line.removeprefix("👉 ")
                if not stripped.startswith(own) or " · " not in stripped:
                    continue
                if "❓ (yours)" not in stripped and "(safe)" not in stripped:
                    leaks.append(f"{p.name}: {line!r}")
    return leaks


def errors_logged(caplog) -> list[str]:
    found = []
    for record in caplog.records:
        if record.levelno < logging.ERROR and not record.exc_info:
            continue
        message = record.getMessage()
        if "Rate limit hit after maximum" in message:
            continue  # PTB's own line for a flood that outlasted its retries (a 429 injected)
        found.append(f"{record.name}: {message} {record.exc_info and record.exc_info[1]!r}")
    return found


async def check(chaos: Chaos, caplog) -> None:
    game = await chaos.game()
    assert game.status in ("finished", "cancelled"), game.status
    log = await chaos.service.log(game.id)
    expected, skipped = logged_sequence(game, log)
    told = told_sequence(chaos.api)
    group_send_failed = any(f[0] == "sendMessage" and f[2] == GROUP for f in chaos.fired)
    problems = []
    if not is_subsequence(told, expected):
        counts, wanted = Counter(told), Counter(expected)
        extra = {k: (v, wanted[k]) for k, v in counts.items() if v > wanted[k]}
        problems.append(f"told bids are not an in-order subsequence of the log's; "
                        f"told more often than logged: {extra}")
    if not group_send_failed and told != expected:
        missing = list((Counter(expected) - Counter(told)).elements())
        problems.append(f"no group send failed, yet told != logged; missing {missing}")
    shown, wanted_shown = told_showdowns(chaos.api), logged_showdowns(game, log)
    if not is_subsequence(shown, wanted_shown):
        problems.append(f"showdowns shown out of order or twice: {shown} vs {wanted_shown}")
    if not group_send_failed and shown != wanted_shown:
        problems.append(f"no group send failed, yet showdowns shown {shown} != {wanted_shown}")
    problems += [f"leak: {x}" for x in hidden_card_leaks(chaos.api, game)]
    problems += [f"error logged: {x}" for x in errors_logged(caplog)]
    problems += [x for x in chaos.incidents if x.startswith(("STRICT", "a computer", "a stale",
                                                             "double", "'went wrong'"))]
    chaos.note(f"checked: {len(expected)} bids expected, {len(told)} told, {skipped} in "
               f"computer-only rounds; group send failed: {group_send_failed}")
    assert not problems, "\n".join(problems)
