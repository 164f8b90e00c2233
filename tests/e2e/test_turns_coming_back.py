"""A turn that comes back to the same player after others moved (computer players' replies in
the same commit) pings them again; the Extra feather, Reverse and the like (the same player
acts again) do not; a player without a private chat is named once a turn in the group, and
no ping outlives its turn (README, "Message economy"). Played as players would, at tables
with computer players, in the three Coyote editions and Koira."""

from __future__ import annotations

import random

import pytest

from engine import GAMES
from telegram_app.games.coyote.notes import KEEPS_TURN
from tests.e2e.group_coyote_helpers import open_table, pings, turn_message, version_of
from tests.e2e.group_coyote_play import choose_and_press
from tests.e2e.group_play_common import current
from tests.e2e.koira_play import service_of
from tests.fakebot import FakeBotAPI

COYOTE = GAMES["coyote"]


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


def sends_to(api: FakeBotAPI, chat_id: int, since: int) -> list:
    return [e for e in api.log[since:] if e.kind in ("send", "photo") and e.chat_id == chat_id]


def live_keyboards(api: FakeBotAPI, user_id: int) -> list:
    return [m for m in api.bot_messages(user_id) if version_of(api, m) is not None]


async def play_watching(t, seed: int, prefer_special: float) -> list[str]:
    """Play the whole game (the humans' moves by their buttons); after every human press,
    check what the player to act, if the same human, got: a new private message exactly
    when others moved in between (none when they act again in the same turn: an Extra
    feather, Reverse …), one live keyboard in their private chat, and in the group at most
    one live ping, naming the player to act, and none for one with a private chat."""
    rng = random.Random(seed)
    api = t.api
    faults: list[str] = []
    service = service_of(t.runner)
    for _turn in range(400):
        game = await current(t)
        if game.status != "running":
            break
        seat = COYOTE.current_seat(game.state)
        player = game.at_seat(seat)
        if player.is_ai:
            for _ in range(300):
                now = await current(t)
                if now.version != game.version or now.status != "running":
                    break
            continue
        user = t.user(player.user_id)
        message = await turn_message(t, user, game.version)
        since = len(api.log)
        await choose_and_press(t, rng, game, user, message, prefer_special)
        after = await current(t)
        if after.status != "running" or after.version == game.version:
            continue
        now_seat = COYOTE.current_seat(after.state)
        if now_seat != seat:
            continue
        # Their turn again: the same turn kept (a special of KEEPS_TURN first, Change's
        # answer by the last bidder), or a new one that came back through others' moves.
        logged = await service.untold(after.id, game.version, after.version)
        first = next((e for e in logged[0] if e.get("type") == "special_used"), None)
        boundary = any(e.get("type") in ("showdown", "round_ended", "round_dealt")
                       for events in logged for e in events)
        kept = first is not None and first["special"] in KEEPS_TURN and not boundary
        others = not kept
        t.turns += 1000 if others else 1  # (came back: thousands; kept: units)
        new = sends_to(api, user.id, since) if user.id not in t.group_only else []
        where = f"v{game.version}->v{after.version} {user.first_name}"
        if user.id not in t.group_only:
            keyboards = live_keyboards(api, user.id)
            if len(keyboards) != 1:
                faults.append(f"{where}: {len(keyboards)} live keyboards in the private chat")
            if others and len(new) != 1:
                faults.append(f"{where}: the turn came back through others' moves and "
                              f"{len(new)} new private messages were sent")
            if not others and len(new) > 0:
                faults.append(f"{where}: acting again in the same turn sent "
                              f"{len(new)} new private messages {[e.text[:50] for e in new]}")
            if pings(t, alive=True):
                faults.append(f"{where}: has a private chat and is pinged in the group")
        alive = pings(t, alive=True)
        if len(alive) > 1:
            faults.append(f"{where}: {len(alive)} live pings in the group")
    await api.settle(quiet=0.2)
    if t.turns < 1000:
        faults.append("no turn came back through others' moves: choose another seed")
    if pings(t, alive=True):
        faults.append("a ping left in the group after the end")
    return faults


@pytest.mark.parametrize(("command", "specials", "seed"), [
    ("/newgame classic", True, 3),
    ("/newgame feathers", True, 4),
    ("/newgame poker-deck", False, 5),
])
async def test_a_coyote_turn_coming_back_pings_once_and_keeps_one_keyboard(
        api, sqlite_url, command, specials, seed) -> None:
    t = await open_table(api, sqlite_url, "en", [True], command=command,
                         specials=specials, ai=2, seed=seed)
    try:
        faults = await play_watching(t, seed, prefer_special=0.5)
        assert t.turns >= 1000, "no turn came back through others' moves"
        assert not faults, faults[:10]
    finally:
        await t.runner.stop()


async def test_a_coyote_turn_coming_back_to_a_player_without_a_private_chat_pings_once(
        api, sqlite_url) -> None:
    """Ann has no private chat, two computer players: each turn that comes back to her is
    named by one live group ping (or the new table's mention), never two."""
    t = await open_table(api, sqlite_url, "en", [False], command="/newgame feathers",
                         specials=True, ai=2, seed=6)
    try:
        faults = await play_watching(t, 6, prefer_special=0.5)
        assert t.turns >= 1000, "no turn came back through others' moves"
        assert not faults, faults[:10]
    finally:
        await t.runner.stop()


async def test_a_koira_turn_coming_back_pings_once_and_keeps_one_keyboard(
        api, sqlite_url) -> None:
    """Koira, Ann (private chat) against three computer players: when the others' replies
    hand her the turn again (she won the trick, or leads after them), a new private message
    tells her and her old one goes; a trick she won with her own last card (nobody moved in
    between) leaves one live keyboard and sends nothing new."""
    from tests.e2e import group_koira_helpers as gk
    from tests.e2e.koira_play import carry_out, computer_choice, koira_turn
    koira = GAMES["koira"]
    t = await gk.open_table(api, sqlite_url, ["en"], [True], names=["Ann"], ai=3)
    service = service_of(t.runner)
    ann = t.players[0]
    faults: list[str] = []
    try:
        for _turn in range(300):
            await api.settle(quiet=0.05)
            game = await service.get(t.game_id)
            if game.status != "running":
                break
            seat = koira.current_seat(game.state)
            if game.at_seat(seat).user_id != ann.id:
                continue
            message = koira_turn(api, ann, game.version - 1)
            assert message is not None, f"v{game.version}: Ann has no keyboard"
            since = len(api.log)
            await carry_out(api, ann, message, game, computer_choice(game, seat))
            await api.settle(quiet=0.05)
            after = await service.get(t.game_id)
            if after.status != "running" or koira.current_seat(after.state) != seat:
                continue
            new = sends_to(api, ann.id, since)
            keyboards = [m for m in api.bot_messages(ann.id)
                         if any(d and d.split(":")[0].startswith("k") for _l, d in
                                api.buttons(m))]
            where = f"v{game.version}->v{after.version}"
            if len(keyboards) != 1:
                faults.append(f"{where}: {len(keyboards)} live keyboards")
            others = after.version - game.version > 1
            t.turns += 1000 if others else 1
            if others and len(new) != 1:
                faults.append(f"{where}: came back through others' moves, {len(new)} new "
                              f"private messages")
            if not others and new:
                faults.append(f"{where}: nobody moved in between, {len(new)} new messages")
            if api.find_messages(gk.GROUP, "your turn: 🎴"):  # (one with a private chat)
                faults.append(f"{where}: a group ping")
        assert t.turns >= 1000, "no turn came back through others' moves"
        assert not faults, faults[:10]
    finally:
        await t.runner.stop()
