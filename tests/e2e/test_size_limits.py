"""Telegram's size limits at the extremes, as full groups hit them: 10 Coyote players and 8
Koira players whose names are as long as Telegram allows (64 characters), with HTML
specials, emoji and right-to-left text, long rounds (masks, many raises), in en/ko/ja/es; a
60-player tournament. Every Bot API call the bot makes is recorded with what the fake
refused, and measured against the documented limits (text ≤ 4096 characters after entity
parsing, callback answers ≤ 200, callback data ≤ 64 bytes, ≤ 100 buttons). Nothing is
refused. A review found texts the bot cut itself (``render.common.fit_lines`` measured the
HTML, not the text Telegram counts, and cut the wrong end), fixed: the tests below."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from tests.clock import Clock
from tests.e2e.harness import (
    bot_table,
    confirm_call,
    confirms,
    move_version,
    private_turn_message,
    wait_for,
)
from tests.e2e.koira_play import koira_turn_by, service_of
from tests.fakebot import FakeBotAPI, FakeUser
from tests.fakebot.audit import Audit
from tests.fakebot.html_check import parse_html
from tests.fakebot.models import ApiError

GROUP = -100_4096
PLACES = re.compile(r"^1\. .+, 2\. .+, 3\. ", re.M)  # "1. Bob, 2. Ann, 3. Cat" (results)


def hostile(i: int) -> str:
    """64 characters (Telegram's longest first name): a number first (names alike in their
    first 48 characters would be told apart by nothing), HTML specials, emoji, RTL text."""
    return (f"{i:02d} <b>&amp; 🐺🦊🃏 שלום עולם مرحبا <i>x</i> & > < Ñandú " + "ẞ" * 64)[:64]


def spanish(i: int) -> str:
    """An ordinary long full name (no markup characters), 64 characters."""
    return (f"{i:02d} María Fernanda de los Ángeles García-Hernández " + "y" * 64)[:64]


def group_tables(api: FakeBotAPI) -> list[str]:
    """Every version of the group's live table the bot sent or edited (it carries 🎴),
    as players read it (after entity parsing)."""
    found = []
    for request in api.requests:
        p = request.params
        if request.method not in ("sendMessage", "editMessageText") or \
                p.get("chat_id") != GROUP or "p:" not in str(p.get("reply_markup")):
            continue
        found.append(parse_html(str(p["text"]), strict_amp=False)[0])
    return found


def newest_offer(api: FakeBotAPI, players: list[FakeUser]):
    offers = [(move_version(api, m) or 0, u, m) for u in players
              if (m := private_turn_message(api, u)) is not None]
    return max(offers, key=lambda o: o[0]) if offers else None


async def masked_bid(api: FakeBotAPI, user: FakeUser, message, buttons) -> bool:
    """The lowest bid with a mask (Draw 1, Double, then Shot, on the first target offered),
    through the mask's keyboards; ``False`` when no such mask is offered."""
    masks = {d.split(":")[3]: d for _t, d in buttons if d and d.startswith("k:")}
    code = next((c for c in ("4", "2", "6") if c in masks), None)
    if code is None:
        return False
    await user.press_and_settle(message, masks[code], quiet=0.02)
    for _step in range(2):
        current = api.get_message(message.chat_id, message.message_id)
        second = api.buttons(current)
        bids = sorted((int(d.split(":")[3]), d) for _t, d in second
                      if d and d.startswith("b:") and d.count(":") == 4)
        if bids:
            await user.press_and_settle(current, bids[0][1], quiet=0.02)
            return True
        target = next(d for _t, d in second if d and d.startswith("m:") and d.count(":") == 4)
        await user.press_and_settle(current, target, quiet=0.02)
    return False


async def play_coyote(api: FakeBotAPI, players: list[FakeUser], *, moves: dict[int, int],
                      masks_after: int | None = None, stop_at: tuple[int, int] | None = None,
                      other: int = 2) -> None:
    """Play by the private buttons: in round ``r`` ``moves[r]`` moves (``other`` in a round
    not listed) of the lowest bid, with a mask where one is offered once ``masks_after``
    moves of the round were made, then 🐺 Coyote!; until the game ends or round
    ``stop_at[0]`` has had ``stop_at[1]`` moves."""
    done: Counter[int] = Counter()
    for _ in range(3000):
        try:
            await wait_for(lambda: newest_offer(api, players) is not None, timeout=10)
        except TimeoutError:
            return  # (the game is over)
        version, user, message = newest_offer(api, players)
        heading = next(line for line in (message.text or "").splitlines() if "#" in line)
        rnd = int(re.findall(r"\d+", heading)[-1])
        if stop_at is not None and (rnd, done[rnd]) == stop_at:
            return
        buttons = api.buttons(message)
        low = min(((int(d.split(":")[3]), d) for _t, d in buttons
                   if d and d.startswith("b:") and d.count(":") == 3), default=None)
        call = next((d for _t, d in buttons if d and d.startswith(("c:", "cc:"))), None)
        more = done[rnd] < moves.get(rnd, other)
        if not (more and masks_after is not None and done[rnd] >= masks_after
                and await masked_bid(api, user, message, buttons)):
            data = low[1] if low and (more or call is None) else call
            answer = await user.press_and_settle(message, data, quiet=0.02)
            if confirms(data) and not answer.get("show_alert"):
                await confirm_call(api, user, message)
        done[rnd] += 1
        await wait_for(lambda v=version: (newest_offer(api, players) or (0,))[0] > v
                       or newest_offer(api, players) is None, timeout=15)


async def open_lobby_any(api: FakeBotAPI, players: list[FakeUser], command: str,
                         presses: tuple[str, ...] = ()):
    """The first player opens a lobby (in any language), the others join, the host presses
    the option buttons whose labels start with ``presses`` and starts."""
    def lobby():
        found = [m for m in api.bot_messages(GROUP)
                 if any(d and d.startswith("j:") for _t, d in api.buttons(m))]
        return found[-1] if found else None

    await players[0].send(GROUP, command)
    await wait_for(lambda: lobby() is not None)
    await api.settle(quiet=0.05)
    join = next(d for _t, d in api.buttons(lobby()) if d.startswith("j:"))
    for user in players[1:]:
        await user.press_and_settle(lobby(), join, quiet=0.02)
    for prefix in presses:
        data = next(d for t, d in api.buttons(lobby()) if t.startswith(prefix))
        await players[0].press_and_settle(lobby(), data, quiet=0.02)
    start = next(d for _t, d in api.buttons(lobby()) if d and d.startswith("s:"))
    answer = await players[0].press_and_settle(lobby(), start)
    assert not answer.get("show_alert"), answer


# --- the live table of a full Coyote table --------------------------------------------------
@pytest.mark.parametrize(("language", "edition", "names", "presses", "masks_after"), [
    # Korean, Feathers, names with <, > and &: no mask, only plain raises
    ("ko", "feathers", hostile, (), None),
    # Spanish, classic with masks and 5 lives, ordinary long names (no markup at all)
    ("es", "classic", spanish, ("🎭", "❤️", "❤️"), 14),
], ids=["ko-feathers-markup-names", "es-classic-masks-plain-names"])
async def test_live_table_keeps_its_heading_and_every_seat(
        pg_db, pg_url, language, edition, names, presses, masks_after) -> None:
    """Ten players, round 1 called at once, round 2 raised 26 times (in the Spanish game the
    last twelve of them with masks, each a line naming two players). The quiet group's live
    table (edited at each move) lists the round's last 24 moves under the heading, how round 1
    ended and every seat. Each version of it opens with its heading ("🐺 게임 #1 · 라운드 2")
    and lists all ten seats: the oldest moves give way first. (It lost its top lines once
    its HTML passed 4000 characters, a "&" counting five, at 2,500 as Telegram counts.)"""
    players_names = [names(i) for i in range(1, 11)]
    async with bot_table(pg_url, GROUP, "Coyotes " + "🐺" * 60, players_names) as (
            api, players, _runner):
        for user in players:
            user.language_code = language
        audit = Audit(api)
        command = "/newgame" if edition == "classic" else f"/newgame {edition}"
        await open_lobby_any(api, players, command, presses)
        await play_coyote(api, players, moves={1: 1, 2: 26}, masks_after=masks_after,
                          stop_at=(2, 26))
        await api.settle()
        audit.check()  # (nothing refused, nothing past a limit: that part is right)
        tables = group_tables(api)
        assert tables
        broken = [t for t in tables if "#1 ·" not in t.splitlines()[0]
                  or not all(f"{i:02d} " in t for i in range(1, 11))]
        assert not broken, (f"{len(broken)} of {len(tables)} versions of the live table lost "
                            f"their top ({len(broken[0])} characters after parsing); the "
                            f"first:\n{broken[0]}")


# --- /replay of a long game -----------------------------------------------------------------
async def test_coyote_replay_of_a_long_game_shows_how_it_ended(pg_db, pg_url) -> None:
    """Three players with long names raise 25 times each round to the end of the game, then
    /replay 1. The replay (one message, ``render.league.replay_text``) should end with the
    game's end and its places (``Coyote replay_lines``: "— game over —", "1. …, 2. …,
    3. …"), as a 4-player game's does: the middle rounds give way (they stopped it at
    "…" once)."""
    async with bot_table(pg_url, GROUP, "Coyotes", [hostile(i) for i in (1, 2, 3)]) as (
            api, players, _runner):
        audit = Audit(api)
        await open_lobby_any(api, players, "/newgame")
        await play_coyote(api, players, moves={}, other=25)
        await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")))
        await players[0].send(GROUP, "/replay 1")
        await wait_for(lambda: bool(api.find_messages(GROUP, "Replay of game #1")))
        await api.settle()
        audit.check()
        replay = api.find_messages(GROUP, "Replay of game #1")[-1].text or ""
        assert "— game over —" in replay and PLACES.search(replay), (
            f"/replay 1 ({len(replay)} characters) ends with {replay.splitlines()[-3:]}")


async def test_koira_replay_of_an_eight_player_game_names_the_koira(pg_db, pg_url) -> None:
    """Eight players (Spanish, long ordinary names) play Koira to the end, then /replay 1.
    The places and "🐕 koira: …" end it (they were dropped behind "…")."""
    async with bot_table(pg_url, GROUP, "Perros", [spanish(i) for i in range(1, 9)]) as (
            api, players, runner):
        for user in players:
            user.language_code = "es"
        service_of(runner).new_seed = lambda: 5
        audit = Audit(api)
        await open_lobby_any(api, players, "/newgame koira")
        for _ in range(900):
            if api.find_messages(GROUP, "🏁"):
                break
            await koira_turn_by(api, runner, players, GROUP, over="🏁")
        await players[0].send(GROUP, "/replay 1")
        await wait_for(lambda: bool(api.find_messages(GROUP, "🎬")))
        await api.settle()
        audit.check()
        replay = api.find_messages(GROUP, "🎬")[-1].text or ""
        assert "🐕" in replay.splitlines()[-1] and PLACES.search(replay), (
            f"/replay 1 ({len(replay)} characters) ends with {replay.splitlines()[-2:]}")


# --- a tournament of 60 ---------------------------------------------------------------------
async def test_tournament_round_announcement_lists_every_table(pg_db, pg_url) -> None:
    """60 players with ordinary long names join a Coyote tournament (500 may) and it starts.
    The round's announcement is the one message that says who plays at which table,
    mentions (notifies) each player and gives the round's deadline. (At 4000 characters of
    HTML, each mention's link counting, the last table and the deadline were cut, at 2,200
    characters as Telegram counts them.)"""
    from tests.e2e.test_tournaments import GROUP as CUP_GROUP
    from tests.e2e.test_tournaments import current, group_with_bot

    names = [spanish(i) for i in range(1, 61)]
    async with group_with_bot(pg_url, Clock(), names) as (api, humans, _bot):
        audit = Audit(api)
        await humans[0].send(CUP_GROUP, "/tournament coyote")
        await wait_for(lambda: bool(api.find_messages(CUP_GROUP, "sign-up is open")))
        await api.settle(quiet=0.05)
        signup = api.find_messages(CUP_GROUP, "sign-up is open")[-1]
        for user in humans[1:]:
            await user.press_and_settle(current(api, signup), "✋ Join", quiet=0.01)
        answer = await humans[0].press_and_settle(current(api, signup), "▶️ Start")
        assert not answer.get("show_alert"), answer
        await wait_for(lambda: bool(api.find_messages(CUP_GROUP, "round 1 of")))
        await api.settle()
        audit.check()
        announcement = api.find_messages(CUP_GROUP, "tournament #1: round 1 of")[-1]
        text = announcement.text or ""
        mentioned = {e["user"]["id"] for e in announcement.entities
                     if e["type"] == "text_mention"}
        assert "Table 15:" in text and "⏱" in text and len(mentioned) == 60, (
            f"the announcement ({len(text)} characters) mentions {len(mentioned)} of 60 and "
            f"ends with {text.splitlines()[-2:]}")


# --- the fake Bot API: the limits it enforces (passes) --------------------------------------
async def test_the_fake_enforces_the_documented_limits() -> None:
    """What the Bot API documents, the fake refuses: text 1-4096 characters after entity
    parsing (markup does not count), a caption ≤ 1024, an ephemeral message's text ≤ 4096, a
    callback answer ≤ 200, callback data 1-64 bytes, at most 100 buttons."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Limits", admins=[1])
        user = api.add_user(1, "Ann")
        long_html = "<b>" + "&amp;" * 4096 + "</b>"  # 4096 characters once parsed
        assert api._m_sendmessage({"chat_id": GROUP, "text": long_html, "parse_mode": "HTML"})
        refusals = [
            ("sendmessage", {"chat_id": GROUP, "text": "x" * 4097}),
            ("sendmessage", {"chat_id": GROUP, "text": "x" * 4097, "receiver_user_id": 1}),
            ("sendphoto", {"chat_id": GROUP, "photo": b"png", "caption": "x" * 1025}),
            ("sendmessage", {"chat_id": GROUP, "text": "x", "reply_markup": {
                "inline_keyboard": [[{"text": "a", "callback_data": "x" * 65}]]}}),
            ("sendmessage", {"chat_id": GROUP, "text": "x", "reply_markup": {
                "inline_keyboard": [[{"text": "a", "callback_data": "1"}]] * 101}}),
        ]
        for method, params in refusals:
            with pytest.raises(ApiError):
                api._handlers[method](params)
        message = api._m_sendmessage({"chat_id": GROUP, "text": "x", "reply_markup": {
            "inline_keyboard": [[{"text": "a", "callback_data": "1"}]]}})
        stored = api.get_message(GROUP, message["message_id"])
        query = api.user_press(user, stored, "1", label="a")
        with pytest.raises(ApiError, match="MESSAGE_TOO_LONG"):
            api._m_answercallbackquery({"callback_query_id": query, "text": "x" * 201})
