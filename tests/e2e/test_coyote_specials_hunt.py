"""Hunting Coyote's special actions through the real bot (fake Bot API, real services, SQLite):
who may see which card after a Swap, a Draw 1, an Extra feather or a Guess, and whether every
view shows the table as the special left it.

Each player sees everyone's cards but their own (``shared/rules/coyote.md``); a special that
changes a card on the table (Swap: a new feather; Draw 1: an extra card "visible to everyone
but its holder"; Extra feather: face up, "visible para todos") changes what every other
player sees, so every view that shows the cards must show it so.
"""

from __future__ import annotations

import random

from telegram_app.games.coyote.words import card_label
from tests.e2e.group_coyote_helpers import (
    COYOTE,
    GROUP,
    SPECIAL_CODES,
    Table,
    live,
    move_buttons,
    open_table,
    peek_data,
    refetch,
    table_message,
    turn_message,
)
from tests.e2e.group_coyote_play import play_one
from tests.e2e.group_play_common import (
    current,
    fake_api,  # noqa: F401 (the api fixture)
    seen_by,
)
from tests.e2e.messy_telegram_helpers import plain
from tests.fakebot import FakeBotAPI, FakeUser


def seat_cards(text: str | None, name: str) -> list[str] | None:
    """The cards a view's line of player ``name`` shows (``❓`` for a hidden one, ``"face up"``
    kept on its card), ``None`` without such a line."""
    for line in plain(text).splitlines():
        if line.replace("👉 ", "").startswith(name + " ") and " · " in line:
            return [c.strip() for c in line.split(" · ", 1)[1].replace("(safe)", "").split(" + ")]
    return None


def label(card: str) -> str:
    return plain(card_label(card))


async def open_views(t: Table, users: list[FakeUser]) -> None:
    """Each of ``users`` (group players) presses 🎴 once: their view as an ephemeral message."""
    for user in users:
        table = table_message(t.api)
        assert table is not None
        await user.press_and_settle(table, peek_data(t.api, table), quiet=0.02)


def views(t: Table) -> dict[str, str]:
    """Each player's current view of the cards: their ephemeral 🎴 message in the group, or
    their newest private message."""
    out = {}
    for user in t.players:
        if user.id in t.group_only:
            message = live(t.api, user)
        else:
            found = t.api.bot_messages(user.id)
            message = found[-1] if found else None
        if message is not None:
            out[user.first_name] = plain(message.text)
    return out


async def test_a_swap_is_shown_in_every_view_of_the_swapped_feather(api, sqlite_url) -> None:
    """Feathers with coins, four players (two play by 🎴 in the group, two in private chats).
    The first player turns the Swap coin: their feather goes, the top of the draw pile is
    theirs now and counts. Every other player's view (🎴 message or private message) must then
    show the new feather on the swapper's line, not the one swapped away. Before the fix only
    the swapper's own message was redrawn (``CoyoteUI.redraw_seats`` named only a seat a
    special was aimed at): the other three kept seeing the old feather as the swapper's card
    (seed 1: Ann's −5, which no longer counts, where an 8 lies), until their own turn."""
    t = await open_table(api, sqlite_url, "en", [True, False, True, False],
                         command="/newgame feathers", specials=True, seed=1)
    try:
        await open_views(t, [u for u in t.players if u.id in t.group_only])
        game = await current(t)
        seat = game.state["turn"]
        swapper = next(u for u in t.players if game.player(u.id).seat == seat)
        old = game.state["hands"][seat]
        message = await turn_message(t, swapper, game.version)
        swap = next(d for _l, d in move_buttons(api, message)
                    if d.startswith("x:") and int(d.split(":")[3]) == SPECIAL_CODES["swap"])
        answer = await swapper.press_and_settle(message, swap, quiet=0.05)
        assert not answer.get("show_alert"), answer
        game = await current(t)
        new = game.state["hands"][seat]
        assert game.state["void"][seat] == [old] and label(new) != label(old)
        stale = {name: seat_cards(text, swapper.first_name) for name, text in views(t).items()
                 if name != swapper.first_name
                 and seat_cards(text, swapper.first_name) != [label(new)]}
        assert not stale, (f"{swapper.first_name} swapped {old} for {new}; the others' views "
                           f"show {stale}")
    finally:
        await t.runner.stop()


async def test_a_draw_1_card_is_shown_to_everyone_but_its_holder(api, sqlite_url) -> None:
    """Classic with masks, four players (two by 🎴, two in private chats). The first player
    bids 1 with 🎭 Draw 1 on the player two seats on: that player takes an extra card,
    "visible to everyone but its holder" (rules, Draw 1). The holder's view shows it as ❓;
    every other player's view (the bidder's and the fourth player's too) must show the card.
    Before the fix only the holder's message was redrawn (and the player to act's): the
    fourth player's view kept showing the holder with one card, the extra one missing, until
    their own turn."""
    t = await open_table(api, sqlite_url, "en", [True, False, True, False],
                         command="/newgame", specials=True, seed=3)
    try:
        await open_views(t, [u for u in t.players if u.id in t.group_only])
        game = await current(t)
        seat = game.state["turn"]
        target = (seat + 2) % 4
        bidder = next(u for u in t.players if game.player(u.id).seat == seat)
        holder = next(u for u in t.players if game.player(u.id).seat == target)
        message = await turn_message(t, bidder, game.version)
        pick = next(d for _l, d in move_buttons(api, message)
                    if d.startswith("k:") and int(d.split(":")[3]) == SPECIAL_CODES["draw1"])
        await bidder.press_and_settle(message, pick, quiet=0.02)
        message = refetch(api, message)
        aim = next(d for _l, d in move_buttons(api, message)
                   if d.startswith("m:") and d.count(":") == 4
                   and int(d.split(":")[4]) % 100 == target)
        await bidder.press_and_settle(message, aim, quiet=0.02)
        message = refetch(api, message)
        bid = next(d for _l, d in move_buttons(api, message)
                   if d.startswith("b:") and int(d.split(":")[3]) == 1)
        answer = await bidder.press_and_settle(message, bid, quiet=0.05)
        assert not answer.get("show_alert"), answer
        game = await current(t)
        [extra] = game.state["extra"][target]
        own = label(game.state["hands"][target])
        wrong = {}
        for name, text in views(t).items():
            shown = seat_cards(text, holder.first_name)
            want = ["❓ (yours)", "❓"] if name == holder.first_name else [own, label(extra)]
            if shown != want:
                wrong[name] = shown
        assert not wrong, (f"{holder.first_name} holds {own} + {extra} (Draw 1); the views "
                           f"show {wrong}")
    finally:
        await t.runner.stop()


# --- a sweep: whole games with the special actions, every text checked after every move -----
OUTSIDER = 9




def hidden_shown(t: Table, text: str, viewer: str | None) -> list[str]:
    """The seat lines of ``text`` showing a card ``viewer`` (a player's name; ``None``: anyone
    at all) may not see: their own (face down, Draw 1's) unless face up or turned up by a
    right Guess (safe); for ``None``, anyone's. The 👀 alert's ``name: cards`` lines too."""
    found = []
    names = [u.first_name for u in t.players]
    alert = "Cards you can see:" in text or "Cartas que puedes ver" in text
    for line in plain(text).splitlines():
        bare = line.replace("👉 ", "")
        name = next((n for n in names if bare.startswith(n + " ") or (
            alert and bare.startswith(n + ":"))), None)
        if name is None or (viewer is not None and name != viewer):
            continue
        if alert and bare.startswith(name + ":"):
            found.append(line)
            continue
        if " · " not in bare or "(safe)" in bare or "(a salvo)" in bare:
            continue
        for part in bare.split(" · ", 1)[1].split(" + "):
            part = part.strip()
            if not part.startswith("❓") and "face up" not in part and "boca arriba" not in part:
                found.append(line)
                break
    return found


def expected_cards(game, viewer: int | None, seat: int) -> list[str]:
    """What a view of ``viewer`` shows on ``seat``'s line (English or Spanish words aside)."""
    view = COYOTE.view(game.state, viewer)
    parts = []
    card = view["cards"][seat]
    if card is not None:
        parts.append(label(card))
    elif seat == viewer:
        parts.append("❓ (yours)")
    parts += [label(c) if c else "❓" for c in view["extra"][seat]]
    parts += [f"{label(c)} face up" for c in view["face_up"][seat]]
    return parts


def stale_views(t: Table, game) -> list[str]:
    """Each player's view of the cards (🎴 message or newest private message) against what
    they may see now."""
    faults = []
    if game.status != "running":
        return faults
    for name, text in views(t).items():
        user = next(u for u in t.players if u.first_name == name)
        viewer = game.player(user.id)
        if viewer is None or viewer.seat is None or not COYOTE.view(
                game.state, None)["in_play"][viewer.seat] or "· round " not in text:
            continue
        if f"round {game.state['round']}" not in text.splitlines()[0] + text:
            continue
        for other in game.seated:
            if not COYOTE.view(game.state, None)["in_play"][other.seat]:
                continue
            shown = seat_cards(text, other.name)
            want = expected_cards(game, viewer.seat, other.seat)
            if shown is not None:
                shown = [s.replace("(tuya)", "(yours)").replace("boca arriba", "face up")
                         for s in shown]
            if shown != want:
                faults.append(f"v{game.version}: {name} sees {other.name} as {shown}, "
                              f"not {want}")
    return faults


async def hunt(api: FakeBotAPI, url: str, command: str, seed: int) -> list[str]:
    t = await open_table(api, url, "en", [True, False, True, False], command=command,
                         specials=True, seed=seed)
    outsider = api.add_user(OUTSIDER, "Olli", language_code="en")
    rng = random.Random(seed)
    faults: list[str] = []
    since = 0
    try:
        await open_views(t, [u for u in t.players if u.id in t.group_only])
        while True:
            game = await current(t)
            users = [u.id for u in t.players] + [OUTSIDER]
            for entry in api.log[since:]:
                if entry.kind not in ("send", "edit", "photo", "answer"):
                    continue
                public = entry.chat_id == GROUP and entry.receiver is None \
                    and entry.kind != "answer"
                for uid in seen_by(api, entry, users, GROUP):
                    player = game.player(uid) if uid != OUTSIDER else None
                    viewer = None if public or player is None else api.users[uid].first_name
                    shown = hidden_shown(t, entry.text or "", viewer)
                    if shown:
                        faults.append(f"v{game.version} {entry.kind} to {uid}: {shown}")
            since = len(api.log)
            faults += stale_views(t, game)
            if game.status != "running":
                break
            if t.turns % 4 == 0:
                table = table_message(api)
                if table is not None:
                    await outsider.press_and_settle(table, peek_data(api, table), quiet=0.02)
            if not await play_one(t, rng, prefer_special=0.6):
                break
        used = dict(t.used)
    finally:
        await t.runner.stop()
    assert used, "no special action was used"
    return faults + t.faults


async def test_classic_masks_show_nobody_a_hidden_card(api, sqlite_url) -> None:
    """A classic game with masks played to its end (specials chosen often): after every
    move, no text, alert or view anybody was shown names a card hidden from them, and every
    view shows the cards as they lie now (Draw 1's extra card included). Before the fix
    (``CoyoteUI.redraw_seats``) no card was leaked, but the players not to act kept a view
    without the extra card (seed 11: Cat's 🎴 showed Bob as "4", not "4 + 5")."""
    faults = await hunt(api, sqlite_url, "/newgame", 11)
    assert not faults, faults[:8]


async def test_feathers_coins_show_nobody_a_hidden_card(api, sqlite_url) -> None:
    """A feathers game with coins played to its end (specials chosen often): as above, with
    Swap, Extra feather and Guess changing what each player sees. Before the fix no card was
    leaked, but the players not to act kept stale views: Cat's face-up Extra feather missing,
    Bob's swapped-away blue 0 shown where a 15 now lay (seed 12)."""
    faults = await hunt(api, sqlite_url, "/newgame feathers", 12)
    assert not faults, faults[:8]
