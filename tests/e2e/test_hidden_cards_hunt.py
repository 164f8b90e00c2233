"""Hunting hidden cards: can anyone see a card they may not see while a game runs?

Koira: every text, button label and callback answer each person sees, checked after every
move against what that person may know then (their own hand and won pile, and what the table
ever showed); the stock and other hands stay hidden. (The real bot against the fake Bot API.)
"""

from __future__ import annotations

import logging
import re

from engine.koira.cards import is_card
from telegram_app.games.koira.words import card_label
from tests.e2e.group_koira_helpers import (
    GROUP,
    Table,
    open_table,
    peek_button,
    play_one,
    table_message,
)
from tests.e2e.group_play_common import (
    current,
    fake_api,  # noqa: F401 (the api fixture)
    seen_by,
)
from tests.e2e.koira_play import KOIRA, service_of
from tests.fakebot import FakeBotAPI

SUITS = "SHDC"
RANKS = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
DECK = [r + s for r in RANKS for s in SUITS]
OUTSIDER = 9
OURS = {"telegram_app", "league", "engine"}
"""Our loggers: read at DEBUG too (the bot logs at INFO, ``app.py``; PTB's own DEBUG lines
carry every call's parameters, the hands included, and are not ours to word)."""


def _labels() -> dict[str, re.Pattern]:
    out = {}
    for card in DECK:
        label = card_label(card)
        bare = label.replace("\ufe0f", "")
        # (no digit or letter before the rank: "10♥" is not "0♥")
        out[card] = re.compile(r"(?<![0-9A-Za-z])" + re.escape(bare))
    return out


LABELS = _labels()


class Knowledge:
    """What each person may know of a Koira game, as it goes on: the cards the table ever
    showed (played, known to be in a hand or pile, discarded, the trump card), and each
    seat's own hand and pile."""

    def __init__(self) -> None:
        self.public: set[str] = set()
        self.own: dict[int, set[str]] = {}

    def update(self, state, log) -> None:
        for row in log:  # (a card played and shuffled away in one move)
            for event in row.events:
                if event["type"] in ("card_played", "picked_up"):
                    self.public.update(event["cards"])
        view = KOIRA.view(state, None)
        for play in view["trick"]:
            self.public.update(play["cards"])
        for cards in view["known"]:
            self.public.update(cards)
        self.public.update(c for c in view["discarded"] if c)
        if view["trump_card"]:
            self.public.add(view["trump_card"])
        if view["face_up"]:
            self.public.add(view["face_up"][1])
        for seat in range(view["seats"]):
            mine = KOIRA.view(state, seat)
            self.own.setdefault(seat, set()).update(
                mine["hand"] + [c for c in mine["pile"] if c])

    def hidden_for(self, seat: int | None) -> set[str]:
        return set(DECK) - self.public - (self.own.get(seat, set()) if seat is not None
                                          else set())


def _plain(text: str | None) -> str:
    return (text or "").replace("\ufe0f", "")


def leaks(api: FakeBotAPI, t: Table, game, knowledge: Knowledge, since: int) -> list[str]:
    """Each card a person was shown, since log entry ``since``, that is hidden from them."""
    users = [u.id for u in t.players] + [OUTSIDER]
    found = []
    for entry in api.log[since:]:
        if entry.kind not in ("send", "edit", "photo", "answer"):
            continue
        words = _plain(entry.text) + "\n" + "\n".join(
            _plain(b) for row in entry.buttons for b in row)
        for user in seen_by(api, entry, users, GROUP):
            player = game.player(user)
            hidden = knowledge.hidden_for(player.seat if player else None)
            shown = [c for c in hidden if LABELS[c].search(words)]
            if shown:
                found.append(f"v{game.version} {entry.kind} to {user}: {shown} in "
                             f"{entry.text!r} {entry.buttons}")
    return found


def data_leaks(api: FakeBotAPI, knowledge: Knowledge) -> list[str]:
    """Cards in the callback data of the group's messages (every member's client holds it)."""
    found = []
    for m in api.bot_messages(GROUP):
        if m.receiver_id is not None:
            continue
        for _label, data in api.buttons(m):
            for part in re.split(r"[:,;|]", data or ""):
                if is_card(part) and part in knowledge.hidden_for(None):
                    found.append(f"{data} on {m.text!r}")
    return found


async def test_koira_shows_nobody_a_hidden_card(api, sqlite_url, caplog) -> None:
    """A four-player Koira game (two players with a private chat, two playing by 🎴) and a
    member of the group who is not playing and presses 🎴 and types /replay now and then:
    after every move, no text, button or answer anybody was shown names a card hidden from
    them (another's hand, the stock), no callback data in the group does, and no log line
    at INFO and up (ours at DEBUG too) names a card hidden from the table. A player who
    left (by /leave) gets the alert at 🎴, and their hand leaves the game unseen. (No leak
    found: this stands as the proof for these surfaces.)"""
    caplog.set_level(logging.DEBUG)
    t = await open_table(api, sqlite_url, ["en"] * 4, [True, False, True, False])
    outsider = api.add_user(OUTSIDER, "Olli", language_code="en")
    try:
        knowledge = Knowledge()
        faults: list[str] = []
        since = 0
        moves = 0
        left = False
        logged = 0
        while True:
            game = await current(t)
            knowledge.update(game.state, await service_of(t.runner).log(t.game_id))
            faults += leaks(api, t, game, knowledge, since)
            faults += data_leaks(api, knowledge)
            faults += [f"log: {r.getMessage()[:200]}" for r in caplog.records[logged:]
                       if (r.levelno >= logging.INFO or r.name.split(".")[0] in OURS)
                       and any(LABELS[c].search(_plain(r.getMessage()))
                              for c in knowledge.hidden_for(None))]
            logged = len(caplog.records)
            since = len(api.log)
            if game.status != "running":
                break
            if moves % 5 == 0:
                table = table_message(api)
                if table is not None:
                    await outsider.press_and_settle(table, peek_button(api, table),
                                                    quiet=0.02)
                await outsider.send(GROUP, f"/replay {t.game_id}")
                await api.settle(quiet=0.05)
                game = await current(t)
                faults += leaks(api, t, game, knowledge, since)
                since = len(api.log)
            if moves == 12:  # P4 (by 🎴 only) leaves: their hand leaves the game unseen
                leaver = t.players[3]
                await leaver.send(GROUP, "/leave")
                await api.settle(quiet=0.05)
                game = await current(t)
                assert not game.player(leaver.id).playing
                table = table_message(api)
                answer = await leaver.press_and_settle(table, peek_button(api, table),
                                                       quiet=0.02)
                assert answer.get("show_alert"), answer
                knowledge.update(game.state, await service_of(t.runner).log(t.game_id))
                faults += leaks(api, t, game, knowledge, since)
                since = len(api.log)
                left = True
            if not await play_one(t):
                break
            moves += 1
        assert left and not faults, faults[:10]
    finally:
        await t.runner.stop()


# --- 🎴 on a Bot API server that does not know ephemeral messages ---------------------------
EPH_GROUP = -100617


async def test_a_server_ignoring_receiver_user_id_never_shows_a_view_to_the_group(
        api, sqlite_url) -> None:
    """A self-hosted Bot API server (``TELEGRAM_BASE_URL``) older than Bot API 10.2 ignores
    ``receiver_user_id`` and ``callback_query_id`` as it ignores any parameter it does not
    know, and posts the "ephemeral" message for the whole group. Dan's 🎴 in a Coyote game
    must then show the group nothing of his view (it holds Ann's and Bob's cards; Ann and
    Bob are in the group and would see their own card, and every member gets the
    notification): the press falls back to the 👀 alert, and no message everyone sees ever
    held a card. Before the fix the whole view ("Ann … · 5", "Dan ❓ (yours)") was posted
    to the group, with a notification, and deleted only afterwards."""
    from tests.e2e.harness import BotRunner, wait_for

    api.add_group(EPH_GROUP, "Old server night", admins=[1])
    ann, bob, dan = [api.add_user(i, name) for i, name in enumerate(["Ann", "Bob", "Dan"], 1)]
    for user in (ann, bob):
        await user.start_bot()
    runner = BotRunner(api, sqlite_url)
    await runner.start()
    try:
        await ann.send(EPH_GROUP, "/newgame")
        await wait_for(lambda: bool(api.find_messages(EPH_GROUP, "new game #")))
        await api.settle(quiet=0.05)
        lobby = api.find_messages(EPH_GROUP, "new game #")[-1]
        await bob.press_and_settle(lobby, "✋ Join", quiet=0.02)
        await dan.press_and_settle(lobby, "✋ Join", quiet=0.02)
        await ann.press_and_settle(api.get_message(EPH_GROUP, lobby.message_id), "▶️ Start")

        def table():
            found = [m for m in api.bot_messages(EPH_GROUP)
                     if any(t == "🎴 My cards" for t, _ in api.buttons(m))]
            return found[-1] if found else None

        await wait_for(lambda: table() is not None)
        await api.settle(quiet=0.05)
        game = await service_of(runner).get(
            int(next(d for t, d in api.buttons(table()) if t == "🎴 My cards").split(":")[1]))
        original = api._handlers["sendmessage"]

        def old_server(params: dict):  # (unknown parameters are ignored)
            return original({k: v for k, v in params.items()
                             if k not in ("receiver_user_id", "callback_query_id")})

        api._handlers["sendmessage"] = old_server
        since = len(api.log)
        answer = await dan.press_and_settle(table(), "🎴 My cards", quiet=0.1)
        public = [e.text for e in api.log[since:]
                  if e.chat_id == EPH_GROUP and e.kind == "send" and e.receiver is None]
        cards = {game.at_seat(s).name: c for s, c in enumerate(game.state["hands"])}
        assert not [t for t in public if "(yours)" in (t or "")], (public, cards)
        assert answer.get("show_alert"), answer  # (the 👀 alert instead)
    finally:
        await runner.stop()
