"""Can players trust the league's screens? /standings (this week, last, season),
/top, /rating (own and replied-to), /profile (its chart's data), /history and /replay are
read against each other and against each game's final "is over!" message, for Coyote and
Koira: leavers and players removed for timeouts, computer players, a cancelled game, shared
places, a rename, a group that became a supergroup mid-week, one player in two groups, week
boundaries in the group's time zone, specials, languages and names with markup.

The games are played through the bot's own match service (the moves the buttons would make;
the presenter tells the group and the players as it does for a press); what is read is what
the bot sends to the chat in answer to the commands. The clock is the test's; seeds are
fixed. Where a test once failed, its docstring says what the bot did before the fix.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

import pytest

from engine import GAMES, Action
from league.service import MatchService
from league.store.snapshots import GameSnapshot, UserRef
from league.tables.ratings import format_rating, shown_change
from telegram_app.games.coyote.words import special_name
from telegram_app.i18n import use_language
from telegram_app.render.results import signed
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import bot_table, wait_for
from tests.fakebot import FakeBotAPI, FakeUser
from tests.fakebot.html_check import utf16_len

GROUP = -100515
OTHER = -100516
SUPER = -1005150001
TITLE = "Probes"
WEDNESDAY = datetime(2026, 3, 4, 9, 0, tzinfo=UTC)
COYOTE = GAMES["coyote"]
KOIRA = GAMES["koira"]
PLACE = re.compile(r"^(🥇|🥈|🥉|\d+\.) (\S+)(?: 🐕)?(?: · ([+−]\d+|±0) \(Elo (\d+)(\??)\))?$")


# --- the table, the players, the moves --------------------------------------------------------
def service(runner) -> MatchService:
    return runner.app.bot_data[KEY].service


def ref(user: FakeUser) -> UserRef:
    return UserRef(user.id, user.first_name, user.last_name, user.username)


@asynccontextmanager
async def league(pg_url: str, names: tuple[str, ...] = ("Ann", "Bob", "Cat", "Dan"), *,
                 start: datetime = WEDNESDAY, seed: int = 11):
    """The bot on a controlled clock in ``GROUP`` (Ann its admin), sweeping and looking for
    league posts every 50 ms; every game dealt from ``seed``."""
    clock = Clock(start)
    async with bot_table(pg_url, GROUP, TITLE, list(names), clock=clock, sweep_interval=0.05,
                         league_interval=0.05) as (api, players, runner):
        service(runner).new_seed = lambda: seed
        yield api, players, clock, runner


def coyote_choice(state: dict, seat: int) -> Action:
    """Bid the lowest bid up to 6, then call Coyote."""
    legal = COYOTE.legal_actions(state, seat)
    bids = state["bids"]
    if bids and bids[-1][1] >= 6 and Action("call") in legal:
        return Action("call")
    plain_bids = [a for a in legal if a.kind == "bid" and a.special is None]
    return min(plain_bids, key=lambda a: a.amount or 0) if plain_bids else Action("call")


def choice(game: GameSnapshot, seat: int) -> Action:
    if game.kind == "coyote":
        return coyote_choice(game.state or {}, seat)
    return KOIRA.ai_action(KOIRA.view(game.state or {}, seat), random.Random(game.version))


async def open_game(runner, players: list[FakeUser], kind: str = "coyote",
                    options: dict | None = None, chat: int = GROUP, *,
                    computers: int = 0) -> GameSnapshot:
    """Open a lobby in ``chat`` (the first player its host), seat the others (and
    ``computers`` computer players) and start it."""
    svc = service(runner)
    lobby = await svc.open_lobby(chat, TITLE, 0, ref(players[0]), kind, options or {})
    for user in players[1:]:
        await svc.join(lobby.id, ref(user))
    for _ in range(computers):
        await svc.add_ai(lobby.id, players[0].id)
    return (await svc.start(lobby.id, players[0].id)).game


async def step(runner, game_id: int,
               choose: Callable[[GameSnapshot, int], Action] = choice
               ) -> tuple[int, GameSnapshot]:
    """The human to act makes one move; returns their id and the game after it."""
    svc = service(runner)
    game = await svc.get(game_id)
    seat = GAMES[game.kind].current_seat(game.state or {})
    user_id = game.at_seat(seat).user_id
    assert user_id is not None, "a computer player is to act"
    return user_id, (await svc.act(game.id, user_id, game.version, choose(game, seat))).game


async def play_out(runner, game_id: int,
                   choose: Callable[[GameSnapshot, int], Action] = choice) -> GameSnapshot:
    game = await service(runner).get(game_id)
    for _ in range(3000):
        if game.status != "running":
            return game
        _user, game = await step(runner, game_id, choose)
    raise AssertionError("the game did not end")


async def until_all_moved(runner, game_id: int, who: set[int]) -> GameSnapshot:
    moved: set[int] = set()
    game = await service(runner).get(game_id)
    while not who <= moved:
        user_id, game = await step(runner, game_id)
        moved.add(user_id)
        assert game.status == "running", "the game ended before they all moved"
    return game


async def final_of(api: FakeBotAPI, game_id: int, chat: int = GROUP) -> str:
    """The group's "is over!" message of game ``game_id`` (plain text)."""
    def found() -> list:
        return [m for m in api.find_messages(chat, "is over!") if f"#{game_id} " in
                unmarked(m.text)]
    await wait_for(lambda: bool(found()), timeout=60)
    await api.settle(quiet=0.05)
    return unmarked(found()[-1].text)


def unmarked(text: str | None) -> str:
    """A message's plain text without the bidi isolation marks around names."""
    return (text or "").replace("\u2068", "").replace("\u2069", "")


def places_of(final: str) -> dict[str, tuple[int, str | None, int | None, bool]]:
    """``{name: (place, change, Elo after, provisional)}`` of a final message."""
    medals = {"🥇": 1, "🥈": 2, "🥉": 3}
    found = {}
    for line in final.splitlines():
        match = PLACE.match(line)
        if match:
            mark, name, change, elo, mark_q = match.groups()
            place = medals.get(mark) or int(mark.rstrip("."))
            found[name] = (place, change, int(elo) if elo else None, mark_q == "?")
    return found


async def ask(api: FakeBotAPI, user: FakeUser, command: str, expect: str,
              chat: int = GROUP) -> str:
    before = len(api.find_messages(chat, expect))
    await user.send(chat, command)
    await wait_for(lambda: len(api.find_messages(chat, expect)) > before)
    await api.settle(quiet=0.05)
    return unmarked(api.find_messages(chat, expect)[-1].text)


async def answer_to(api: FakeBotAPI, user: FakeUser, command: str, chat: int = GROUP) -> str:
    """Whatever the bot says next in ``chat`` after ``user`` sends ``command``."""
    before = len(api.bot_messages(chat))
    await user.send(chat, command)
    await wait_for(lambda: len(api.bot_messages(chat)) > before)
    await api.settle(quiet=0.05)
    return api.bot_messages(chat)[-1].text or ""


async def leave(api: FakeBotAPI, user: FakeUser, chat: int = GROUP) -> None:
    before = len(api.find_messages(chat, "leaves the game"))
    await user.send(chat, "/leave")
    await wait_for(lambda: len(api.find_messages(chat, "leaves the game")) > before)
    await api.settle(quiet=0.05)


async def time_out(api: FakeBotAPI, clock: Clock, chat: int = GROUP) -> None:
    """The turn runs out (standard pace) and its player is removed (policy "remove")."""
    before = len(api.find_messages(chat, "is removed from the game"))
    clock.advance(3601)
    await wait_for(lambda: len(api.find_messages(chat, "is removed from the game")) > before)
    await api.settle(quiet=0.05)


def table_rows(text: str) -> dict[str, tuple[int, str, int, int, str, str]]:
    """``{name: (rank, points, games, wins, Elo, change)}`` of a standings text."""
    rows = {}
    for line in text.splitlines():
        match = re.match(r"^(\d+)\. (.+?) · (\S+) · (\d+) · (\d+) · (\d+\??) \((\S+)\)$", line)
        if match:
            rank, name, points, games, wins, elo, change = match.groups()
            rows[name] = (int(rank), points, int(games), int(wins), elo, change)
    return rows


async def remove_on_timeout(runner, chat: int = GROUP) -> None:
    await service(runner).set_chat_setting(chat, TITLE, "timeout_policy", "remove")


# ============================================ findings =========================================
async def test_koira_replay_names_every_koira_the_final_message_names(
        pg_db, pg_url) -> None:
    """Koira of four: Cat and Dan each make a move, then /leave; Ann and Bob play it out.
    The final message puts both last together and names both the koira ("Cat, Dan share
    last place"); /replay of the same game ends "🐕 koira: Cat" alone (the engine's last
    seat), so the two screens disagree on who the koira is. Before the fix the replay took
    the game_over event's single koira seat; it now names whom the final message names."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann, _bob, cat, dan = players
        game = await open_game(runner, players, "koira")
        await until_all_moved(runner, game.id, {cat.id, dan.id})
        for user in (cat, dan):
            await leave(api, user)
        await play_out(runner, game.id)
        final = await final_of(api, game.id)
        places = places_of(final)
        assert places["Cat"][0] == places["Dan"][0] == 3, final
        assert "Cat, Dan share last place" in final, final  # (held: the final message)
        replay = await ask(api, ann, f"/replay {game.id}", f"Replay of game #{game.id}")
        koira = [line for line in replay.splitlines() if line.startswith("🐕")]
        assert koira and all("Cat" in line and "Dan" in line for line in koira), (
            f"final message: both Cat and Dan are the koira; replay: {koira}")


async def test_coyote_replay_tells_a_removal_for_timeouts(pg_db, pg_url) -> None:
    """On timeout: removed. The second player to act in a Coyote game runs out of time and
    is removed (the group is told "ran out of time and is removed from the game (placed
    last)"). /replay says only "⏰ timed out" for them, as it does for a timeout the
    computer played, and then never names them again: the removal is not told. Before the
    fix the replay ignored the timeout event's ``removed`` flag; it now tells the removal
    in the group's words."""
    async with league(pg_url) as (api, players, clock, runner):
        ann = players[0]
        await remove_on_timeout(runner)
        game = await open_game(runner, players, options={"lives": 2})
        await step(runner, game.id)
        game = await service(runner).get(game.id)
        removed = game.at_seat(COYOTE.current_seat(game.state)).name
        await time_out(api, clock)
        note = unmarked(api.find_messages(GROUP, "is removed from the game")[-1].text)
        assert f"{removed} ran out of time and is removed from the game" in note, note
        await play_out(runner, game.id)
        final = await final_of(api, game.id)
        assert places_of(final)[removed][0] == 4, final
        replay = await ask(api, ann, f"/replay {game.id}", f"Replay of game #{game.id}")
        told = [line for line in replay.splitlines() if removed in line]
        assert any("removed" in line or "🚪" in line for line in told), (
            f"the replay never tells that {removed} was removed: {told}")


async def test_koira_replay_tells_a_removal_for_timeouts_as_such(pg_db, pg_url) -> None:
    """On timeout: removed. The first player to act in a Koira game runs out of time and
    is removed (the group: "ran out of time and is removed from the game"). /replay tells
    it as "{name} leaves", a leave of their own, with no word of the timeout. Before the
    fix the replay had no line for a timeout and called every removal a leave; it now tells
    the timeout (and the removal) in the group's words."""
    async with league(pg_url) as (api, players, clock, runner):
        ann = players[0]
        await remove_on_timeout(runner)
        game = await open_game(runner, players, "koira")
        removed = game.at_seat(KOIRA.current_seat(game.state)).name
        await time_out(api, clock)
        await play_out(runner, game.id)
        await final_of(api, game.id)
        replay = await ask(api, ann, f"/replay {game.id}", f"Replay of game #{game.id}")
        parts = [part for line in replay.splitlines() for part in line.split(" · ")
                 if removed in part]
        assert any("⏰" in part or "removed" in part or "time" in part for part in parts), (
            f"the replay tells {removed}'s removal for timeouts as: {parts}")


async def test_rating_by_reply_and_standings_name_a_renamed_player_alike(
        pg_db, pg_url) -> None:
    """Bob plays a rated game, says "gg", then renames himself Robert (the bot has had no
    update from him since). Ann replies to his "gg" with /rating: the card is Robert's
    (the name Telegram sends with the replied-to message); /standings, sent right after,
    still lists Bob. README: "the bot keeps people's names ... current from every update"
    — the reply's update carried the new name, and the two screens read as two people.
    Before the fix the replied-to author was not among the people whose stored name an
    update refreshes (``members._people_of``), so /standings still read "Bob"."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann, bob, *_rest = players
        game = await open_game(runner, players[:3], options={"lives": 2})
        await play_out(runner, game.id)
        await final_of(api, game.id)
        said = await bob.send(GROUP, "gg")
        await api.settle(quiet=0.05)
        bob.rename("Robert")
        message = api.store_message(
            api.chats[GROUP], from_bot=False, sender_id=ann.id, text="/rating",
            entities=[{"type": "bot_command", "offset": 0, "length": utf16_len("/rating")}],
            reply_to=said.message_id)
        api.enqueue_update({"message": api.message_dict(message)})
        await wait_for(lambda: bool(api.find_messages(GROUP, "Rank in this chat")))
        card = unmarked(api.find_messages(GROUP, "Rank in this chat")[-1].text)
        assert card.startswith("⭐ Robert: Elo"), card
        week = await ask(api, ann, "/standings", "Standings this week")
        assert "Robert" in week, (card.splitlines()[0], week)


async def test_replay_of_another_groups_game_says_so(
        pg_db, pg_url) -> None:
    """Game #1 was played (and finished) in another group. /replay 1 here answers "This
    game no longer exists." — it exists; it is not this group's. Before the fix
    ``LeagueQueries.replay`` refused it as ``game_not_found``; it now has its own code and
    text ("Game #1 was not played in this group.")."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        api.add_group(OTHER, "Other", admins=[1])
        game = await open_game(runner, players[:3], options={"lives": 2}, chat=OTHER)
        await play_out(runner, game.id)
        await final_of(api, game.id, OTHER)
        told = unmarked(await answer_to(api, ann, f"/replay {game.id}"))
        assert "no longer exists" not in told, told


async def test_standings_take_the_game_and_period_in_either_order(
        pg_db, pg_url) -> None:
    """Only Koira was played this week. "/standings season koira" (and "/standings last
    koira") answer with Coyote's table ("· Coyote", no rated game), the word "koira"
    dropped without a word, while "/standings chess" gets the usage hint. Before the fix
    the handler read the game from the first word only, then the period from the next."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        game = await open_game(runner, players[:3], "koira")
        await play_out(runner, game.id)
        await final_of(api, game.id)
        koira = await ask(api, ann, "/standings koira season", "Season standings")
        assert "· Koira" in koira.splitlines()[0] and "Ann" in koira, koira  # (held)
        told = unmarked(await answer_to(api, ann, "/standings season koira"))
        assert "Koira" in told.splitlines()[0] or "Use /standings" in told, told


async def test_replay_of_a_cancelled_game_says_it_was_cancelled(
        pg_db, pg_url) -> None:
    """An admin cancels a running game after a few bids. /replay of it lists the bids and
    stops: nothing says the game was cancelled (nor that it is not rated), so it reads as
    a game still being played. Before the fix /replay ignored the game's status; it now ends
    a cancelled game's replay with "— game cancelled: not rated —"."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        game = await open_game(runner, players[:3])
        for _ in range(3):
            await step(runner, game.id)
        await ann.send(GROUP, "/cancel")
        await wait_for(lambda: bool(api.find_messages(GROUP, "was cancelled")))
        await api.settle(quiet=0.05)
        replay = await ask(api, ann, f"/replay {game.id}", f"Replay of game #{game.id}")
        assert "cancel" in replay.lower(), replay


async def test_a_game_over_at_midnight_is_dated_and_counted_in_one_week(
        pg_db, pg_url, monkeypatch) -> None:
    """A game's end is read from the clock twice: once for the game (its date in /history,
    ``store_state``) and once for its rating (the week it counts in, ``rate_if_finished``).
    Here the clock moves by a millisecond between the two, across Sunday midnight: /history
    dates the game Sunday, Mar 8, but it is in the table of the week of Mar 9 and missing
    from the posted table of the week it was played in. Before the fix ``Moves.record``
    and ``Moves.act`` each read the clock (``store_state``'s time, then the rating's), so
    this test's millisecond between them put the two on either side of midnight."""
    from league.match import moves

    clock_ref: list[Clock] = []
    real = moves.store_state

    def store_state(row, state, game, now):
        real(row, state, game, now)
        if row.status == "finished":  # the time the few statements up to the rating take
            clock_ref[0].advance(0.001)

    monkeypatch.setattr(moves, "store_state", store_state)
    start = datetime(2026, 3, 8, 23, 59, 59, 999500, tzinfo=UTC)  # Sunday, UTC
    async with league(pg_url, start=start) as (api, players, clock, runner):
        clock_ref.append(clock)
        ann = players[0]
        game = await open_game(runner, players[:3], options={"lives": 2})
        await play_out(runner, game.id)
        await final_of(api, game.id)
        history = await ask(api, ann, "/history", "Last games in this chat")
        assert f"#{game.id} · Mar 8 · " in history, history
        clock.now = datetime(2026, 3, 9, 0, 1, tzinfo=UTC)
        week = await ask(api, ann, "/standings", "Standings this week")
        last = await ask(api, ann, "/standings last", "Standings last week")
        assert "Sun, Mar 8" in last and "Ann" in last and "Ann" not in week, (
            f"/history: game #{game.id} on Mar 8; the week of Mar 2 – Mar 8:\n{last}\n"
            f"this week:\n{week}")


# ============================================ what held ========================================
async def test_a_player_removed_after_timeouts_reads_the_same_everywhere(pg_db, pg_url) -> None:
    """On timeout: removed. All four move once; then the next to act runs out of time and
    is removed (a move of their own before: rated, placed last). The final message,
    /history, /replay's places and this week's table agree on places, changes and points."""
    async with league(pg_url) as (api, players, clock, runner):
        ann = players[0]
        await remove_on_timeout(runner)
        game = await open_game(runner, players, options={"lives": 2})
        game = await until_all_moved(runner, game.id, {p.id for p in players})
        removed = game.at_seat(COYOTE.current_seat(game.state)).name
        await time_out(api, clock)
        await play_out(runner, game.id)
        shown = places_of(await final_of(api, game.id))
        assert shown[removed][0] == 4 and shown[removed][1] is not None, shown
        history = await ask(api, ann, "/history", "Last games in this chat")
        told = ", ".join(f"{place}. {name} ({change})" for name, (place, change, *_x) in
                         sorted(shown.items(), key=lambda kv: kv[1][0]))
        assert told in history, (told, history)
        replay = await ask(api, ann, f"/replay {game.id}", f"Replay of game #{game.id}")
        assert replay.splitlines()[-1] == ", ".join(
            f"{place}. {name}" for name, (place, *_x) in
            sorted(shown.items(), key=lambda kv: kv[1][0])), replay
        rows = table_rows(await ask(api, ann, "/standings", "Standings this week"))
        points = {1: "3", 2: "2", 3: "1", 4: "0"}
        for name, (place, change, elo, _q) in shown.items():
            assert rows[name] == (place, points[place], 1, int(place == 1), f"{elo}?", change), \
                (name, rows)


async def test_shared_first_places_of_poker_deck_read_the_same_everywhere(pg_db, pg_url) -> None:
    """Poker-deck: the one player out loses, the three others share the win. The final
    message gives three 🥇, /history three "1.", the table three rank-1 rows of 2 points
    and a win each, and each one's /rating counts the win."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        game = await open_game(runner, players, options={"edition": "poker-deck"})
        await play_out(runner, game.id)
        shown = places_of(await final_of(api, game.id))
        assert sorted(place for place, *_x in shown.values()) == [1, 1, 1, 4], shown
        history = await ask(api, ann, "/history", "Last games in this chat")
        line = next(line for line in history.splitlines() if line.startswith(f"#{game.id} "))
        assert "poker-deck" in line, line
        assert sorted(re.findall(r"(\d+)\. [^,]+", line.split(": ", 1)[1])) == \
            ["1", "1", "1", "4"], line
        rows = table_rows(await ask(api, ann, "/standings", "Standings this week"))
        for name, (place, change, elo, _q) in shown.items():
            assert rows[name] == ((1, "2", 1, 1, f"{elo}?", change) if place == 1
                                  else (4, "0", 1, 0, f"{elo}?", change)), (name, rows)
        for user in players:
            card = await ask(api, user, "/rating", "Rank in this chat")
            wins = int(shown[user.first_name][0] == 1)
            assert f"Rated games: 1 · wins: {wins}" in card, card


async def test_computer_players_are_never_in_the_league(pg_db, pg_url) -> None:
    """README: games with computer seats are not rated. A game of three humans and a
    computer player: no Elo in its final message, in /history only places, no row in the
    table, nobody's /rating changes; /replay shows the seat as a computer player."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        game = await open_game(runner, players[:3], options={"lives": 2}, computers=1)
        await play_out(runner, game.id)
        final = await final_of(api, game.id)
        assert "Elo" not in final and {"Ann", "Bob", "Cat"} <= set(places_of(final)), final
        history = await ask(api, ann, "/history", "Last games in this chat")
        line = next(line for line in history.splitlines() if line.startswith(f"#{game.id} "))
        assert not re.search(r"\((?:[+−]\d+|±0)\)", line), line
        week = await ask(api, ann, "/standings", "Standings this week")
        assert "No rated game yet in this period" in week, week
        card = await ask(api, ann, "/rating", "Rank in this chat")
        assert "Elo 1500?" in card and "Rated games: 0" in card, card
        replay = await ask(api, ann, f"/replay {game.id}", f"Replay of game #{game.id}")
        assert "🤖" in replay.splitlines()[0], replay


async def test_one_player_in_two_groups_elo_global_tables_per_group(pg_db, pg_url,
                                                                    monkeypatch) -> None:
    """Ann and Bob play in two groups (with Cat here, with Dan there). Elo is one per game:
    the second group's final message starts from the first's; each group's table and
    history hold its own game only; /rating gives the same Elo in both with each group's
    rank ("–" for Dan here); /profile's chart plots both games, in the group's time zone,
    ending at /rating's Elo; Koira's table and chart stay empty."""
    from telegram_app.handlers import league as handlers

    plotted: list[tuple[list, str | None]] = []
    real = handlers.rating_chart_png

    def spy(points, *args, **kwargs):
        plotted.append((list(points), kwargs.get("tz")))
        return real(points, *args, **kwargs)

    monkeypatch.setattr(handlers, "rating_chart_png", spy)
    async with league(pg_url) as (api, players, clock, runner):
        ann, bob, cat, dan = players
        api.add_group(OTHER, "Other", admins=[1])
        await service(runner).set_chat_setting(GROUP, TITLE, "timezone", "Asia/Seoul")
        here = await open_game(runner, [ann, bob, cat], options={"lives": 2})
        await play_out(runner, here.id)
        first = places_of(await final_of(api, here.id))
        clock.advance(3600)
        there = await open_game(runner, [ann, bob, dan], options={"lives": 2}, chat=OTHER)
        await play_out(runner, there.id)
        second = places_of(await final_of(api, there.id, OTHER))
        for name in ("Ann", "Bob"):  # the second game's change starts from the first's Elo
            place, change, elo, _q = second[name]
            assert elo is not None and change is not None
            assert elo - int(change.replace("−", "-").replace("±", "")) == first[name][2]

        for chat, mine, theirs in ((GROUP, first, "Dan"), (OTHER, second, "Cat")):
            rows = table_rows(await ask(api, ann, "/standings", "Standings this week", chat))
            assert set(rows) == set(mine), rows
            assert theirs not in rows
            for name, (_r, _p, games, _w, elo, change) in rows.items():
                now = second.get(name, first.get(name))
                assert games == 1 and elo == f"{now[2]}?" and change == mine[name][1], \
                    (chat, name, rows)
            history = await ask(api, ann, "/history", "Last games in this chat", chat)
            assert f"#{here.id} " in history if chat == GROUP else f"#{there.id} " in history
            assert f"#{there.id} " not in history if chat == GROUP else \
                f"#{here.id} " not in history
        # /rating: one Elo, the rank of each group (the players who played there)
        elo = second["Ann"][2]
        ranks = {}
        for chat, mine in ((GROUP, first), (OTHER, second)):
            card = await ask(api, ann, "/rating", "Rank in this chat", chat)
            assert f"Ann: Elo {elo}?" in card and "Rated games: 2" in card, card
            ranks[chat] = int(re.search(r"Rank in this chat: (\d+)", card).group(1))
            now = {n: second.get(n, first.get(n))[2] for n in mine}
            assert ranks[chat] == 1 + sum(e > elo for n, e in now.items() if n != "Ann"), \
                (chat, now, card)
        dan_here = await ask(api, dan, "/rating", "Rank in this chat")
        assert "Rank in this chat: –" in dan_here and "Rated games: 1" in dan_here, dan_here
        koira = await ask(api, ann, "/standings koira", "Standings this week")
        assert "No rated game yet in this period" in koira, koira
        # /profile: the chart's points are Ann's two games, in the group's zone
        await ann.send(GROUP, "/profile")
        await wait_for(lambda: any(m.kind == "photo" for m in api.messages(GROUP)))
        await ann.send(GROUP, "/profile koira")
        await wait_for(lambda: sum(m.kind == "photo" for m in api.messages(GROUP)) == 2)
        history = await service(runner).rating_history(ann.id, kind="coyote")
        (points, tz), (koira_points, _tz) = plotted
        assert tz == "Asia/Seoul"
        assert points == history and len(points) == 2, points
        assert format_rating(points[-1][1], 2) == f"{elo}?"
        assert koira_points == []
        caption = unmarked([m for m in api.messages(GROUP) if m.kind == "photo"][0].text)
        assert f"Ann: Elo {elo}?" in caption, caption


async def test_a_group_that_became_a_supergroup_mid_week_keeps_one_league(pg_db, pg_url) -> None:
    """A rated game in the group on Wednesday; on Thursday it becomes a supergroup and
    plays again there. In the supergroup: the week's table has both games, /history both,
    /replay of the first works; next Monday the week's table is
    posted once, in the supergroup, with two games a player."""
    async with league(pg_url) as (api, players, clock, runner):
        ann = players[0]
        first = await open_game(runner, players[:3], options={"lives": 2})
        await play_out(runner, first.id)
        await final_of(api, first.id)
        clock.now = datetime(2026, 3, 5, 9, 0, tzinfo=UTC)
        api.migrate_group(GROUP, SUPER)
        svc = service(runner)
        for _ in range(500):  # the bot moves the group's league on the service messages
            if await svc.history(SUPER, kind=None):
                break
            await api.settle(quiet=0.02)
        assert await svc.history(SUPER, kind=None), "the league did not move"
        second = await open_game(runner, players[:3], options={"lives": 2}, chat=SUPER)
        await play_out(runner, second.id)
        shown = places_of(await final_of(api, second.id, SUPER))
        rows = table_rows(await ask(api, ann, "/standings", "Standings this week", SUPER))
        assert set(rows) == {"Ann", "Bob", "Cat"} and all(r[2] == 2 for r in rows.values()), \
            rows
        for name, row in rows.items():
            assert row[4] == f"{shown[name][2]}?", (name, rows)
        history = await ask(api, ann, "/history", "Last games in this chat", SUPER)
        assert f"#{first.id} " in history and f"#{second.id} " in history, history
        replay = await ask(api, ann, f"/replay {first.id}", f"Replay of game #{first.id}",
                           SUPER)
        assert "game over" in replay, replay
        clock.now = datetime(2026, 3, 9, 0, 0, 30, tzinfo=UTC)
        await wait_for(lambda: bool(api.find_messages(SUPER, "Final standings of the week")))
        for _ in range(2):
            clock.now += timedelta(minutes=11)
            await api.settle(quiet=0.3)
        posts = api.find_messages(SUPER, "Final standings of the week")
        assert len(posts) == 1, [p.text for p in posts]
        assert not api.find_messages(GROUP, "Final standings of the week")
        posted = table_rows(unmarked(posts[0].text))
        assert {n: r[2] for n, r in posted.items()} == {"Ann": 2, "Bob": 2, "Cat": 2}, posted
        assert posted == rows, (posted, rows)  # nobody played since: the same table


async def test_sunday_night_in_seoul_is_that_weeks_game_everywhere(pg_db, pg_url) -> None:
    """The league runs in Asia/Seoul. A game ends on Sunday 23:00 there (14:00 UTC):
    /history dates it Sunday, this week's table has it; at Monday 00:30 in Seoul the week's
    final table is posted with it, /standings is empty and /standings last has it."""
    start = datetime(2026, 3, 8, 14, 0, tzinfo=UTC)
    async with league(pg_url, start=start) as (api, players, clock, runner):
        ann = players[0]
        await service(runner).set_chat_setting(GROUP, TITLE, "timezone", "Asia/Seoul")
        game = await open_game(runner, players[:3], options={"lives": 2})
        await play_out(runner, game.id)
        shown = places_of(await final_of(api, game.id))
        history = await ask(api, ann, "/history", "Last games in this chat")
        assert f"#{game.id} · Mar 8 · " in history, history
        week = await ask(api, ann, "/standings", "Standings this week")
        assert "Mon, Mar 2 – Sun, Mar 8" in week and set(table_rows(week)) == set(shown), week
        clock.now = datetime(2026, 3, 8, 15, 30, tzinfo=UTC)  # Monday 00:30 in Seoul
        await wait_for(lambda: bool(api.find_messages(GROUP, "Final standings of the week")))
        posted = unmarked(api.find_messages(GROUP, "Final standings of the week")[-1].text)
        assert "Mon, Mar 2 – Sun, Mar 8" in posted and set(table_rows(posted)) == set(shown)
        week = await ask(api, ann, "/standings", "Standings this week")
        assert "Mon, Mar 9 – Sun, Mar 15" in week and "No rated game yet" in week, week
        last = await ask(api, ann, "/standings last", "Standings last week")
        assert table_rows(last) == table_rows(posted), (last, posted)


def specials_first(used: set[str]) -> Callable[[GameSnapshot, int], Action]:
    """Use each special (mask or coin) once in the game when it is legal (not Guess),
    otherwise bid up to 6 and call."""
    def choose(game: GameSnapshot, seat: int) -> Action:
        for action in COYOTE.legal_actions(game.state or {}, seat):
            if action.special and action.special not in used | {"guess"}:
                used.add(action.special)
                return action
        return coyote_choice(game.state or {}, seat)
    return choose


@pytest.mark.parametrize("edition", ["classic", "feathers"])
async def test_replays_of_games_with_specials_tell_them(pg_db, pg_url, edition: str) -> None:
    """Classic with masks, feathers with coins: every special used is in /replay under the
    name the buttons give it, and the replay ends with the final message's places."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        game = await open_game(runner, players, options={"edition": edition, "specials": True})
        used: set[str] = set()
        await play_out(runner, game.id, specials_first(used))
        shown = places_of(await final_of(api, game.id))
        assert len(used) >= 3, used
        replay = await ask(api, ann, f"/replay {game.id}", f"Replay of game #{game.id}")
        with use_language("en"):
            for name in used:
                assert special_name(name) in replay, (name, replay)
        assert replay.splitlines()[-1] == ", ".join(
            f"{place}. {name}" for name, (place, *_x) in
            sorted(shown.items(), key=lambda kv: kv[1][0])), replay


async def test_koira_replay_mid_game_shows_no_card_still_hidden_in_a_hand(pg_db, pg_url) -> None:
    """Koira, well into the game: /replay shows the cards played, picked up and turned up,
    and none that is still hidden in someone's hand (never shown to the table)."""
    from telegram_app.games.koira.words import card_label

    async with league(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        game = await open_game(runner, players, "koira")
        for _ in range(45):
            _user, game = await step(runner, game.id)
        assert game.status == "running", "the game ended: play fewer moves"
        await api.settle(quiet=0.1)
        replay = await ask(api, ann, f"/replay {game.id}", f"Replay of game #{game.id}")
        _snapshot, log = await service(runner).replay(game.id, GROUP)
        public: set[str] = set()
        for events in log:
            for e in events:
                if e["type"] in ("card_played", "picked_up"):
                    public.update(e["cards"])
                elif e["type"] == "trump_revealed":
                    public.add(e["card"])
                elif e["type"] == "trick_shared" and e.get("how") == "sorted":
                    public.update(c for cards in (e.get("shares") or {}).values()
                                  for c in cards)
        hidden = {c for hand in game.state["hands"] for c in hand} - public
        assert hidden, "every card in the hands was shown: nothing to check"
        labels = {card_label(c).replace("\ufe0f", ""): c for c in hidden}
        shown = set(re.findall(r"(?:10|[2-9JQKA])[♠♥♦♣]", replay.replace("\ufe0f", "")))
        assert shown, replay
        assert not shown & set(labels), sorted(labels[x] for x in shown & set(labels))


@pytest.mark.parametrize("language", ["ko", "ja", "es"])
async def test_league_screens_and_posts_in_the_groups_language(pg_db, pg_url,
                                                               language: str) -> None:
    """A group in Korean, Japanese or Spanish plays a rated Coyote and a rated Koira game:
    Koira's table (week and season), /rating koira (with the other game's line), /top koira,
    /history (both games), Koira's /replay, /profile's caption, and next Monday's two
    weekly posts hold no English, and give their dates in the language."""
    from tests.english_check import english_runs

    async with league(pg_url) as (api, players, clock, runner):
        ann = players[0]
        await service(runner).set_chat_setting(GROUP, TITLE, "language", language)
        coyote = await open_game(runner, players[:3], options={"lives": 2})
        await play_out(runner, coyote.id)
        koira = await open_game(runner, players[:3], "koira")
        await play_out(runner, koira.id)
        await api.settle(quiet=0.2)
        texts = {}
        for command in ("/standings koira", "/standings koira season", "/rating koira",
                        "/top koira", "/history", f"/replay {koira.id}"):
            texts[command] = await answer_to(api, ann, command)
        before = len(api.messages(GROUP))
        await ann.send(GROUP, "/profile koira")
        await wait_for(lambda: any(m.kind == "photo" for m in api.messages(GROUP)[before:]))
        texts["/profile koira"] = next(m for m in api.messages(GROUP)[before:]
                                       if m.kind == "photo").text or ""
        before = len(api.bot_messages(GROUP))
        clock.now = datetime(2026, 3, 9, 0, 0, 30, tzinfo=UTC)
        await wait_for(lambda: len(api.bot_messages(GROUP)) >= before + 2)
        await api.settle(quiet=0.3)
        for i, message in enumerate(api.bot_messages(GROUP)[before:]):
            texts[f"post {i}"] = message.text or ""
        names = tuple(p.first_name for p in players)
        found = {key: runs for key, text in texts.items()
                 if (runs := english_runs(text, language, names))}
        assert not found, found
        months = {key: re.findall(r"\b(?:Jan|Feb|Mar|Apr|Mon|Sun|Wed)\b", unmarked(text))
                  for key, text in texts.items()}
        assert not any(months.values()), months


async def test_names_with_markup_on_top_and_profile_and_top_agrees_with_rating(
        pg_db, pg_url) -> None:
    """Players named "<b>Ann</b>", "שרה & Co" and "Cat" + RIGHT-TO-LEFT OVERRIDE play ten
    rated games: /top lists all three, escaped and isolated, in the order and with the Elo
    and wins of their /rating cards, whose overall rank matches /top's."""
    names = ("<b>Ann</b>", "שרה & Co", "Cat\u202e")
    async with league(pg_url, names) as (api, players, clock, runner):
        finals = []
        for _ in range(10):
            game = await open_game(runner, players, options={"lives": 2})
            await play_out(runner, game.id)
            finals.append(await final_of(api, game.id))
            clock.advance(600)
        # "?" while fewer than 10 rated games: the 9th game's end has it, the 10th's not
        assert finals[8].count("?)") == 3 and "provisional" in finals[8], finals[8]
        assert "?)" not in finals[9] and "provisional" not in finals[9], finals[9]
        week = await ask(api, players[0], "/standings", "Standings this week")
        rows = [line for line in week.splitlines() if re.match(r"^\d+\. ", line)]
        assert len(rows) == 3 and all(" · 10 · " in r and "?" not in r for r in rows), week
        before = len(api.find_messages(GROUP, "Leaderboard"))
        await players[1].send(GROUP, "/top")
        await wait_for(lambda: len(api.find_messages(GROUP, "Leaderboard")) > before)
        top_html = api.find_messages(GROUP, "Leaderboard")[-1].html or ""
        assert "<b>Ann" not in top_html and "&lt;b&gt;Ann&lt;/b&gt;" in top_html, top_html
        assert "& Co" not in top_html and "\u202e" not in top_html, top_html
        top = unmarked(api.find_messages(GROUP, "Leaderboard")[-1].text)
        lines = [line for line in top.splitlines() if re.match(r"^\d+\. ", line)]
        assert len(lines) == 3, top
        for user in players:
            card = await ask(api, user, "/rating", "Rank in this chat")
            elo = re.search(r"Elo (\d+)", card).group(1)
            rank = re.search(r"Overall rank: (\d+)", card).group(1)
            wins = re.search(r"wins: (\d+)", card).group(1)
            shown = user.first_name.replace("\u202e", "")
            line = next(line for line in lines if shown in line)
            assert line.startswith(f"{rank}. ") and f"Elo {elo} " in line \
                and "10 games" in line and f"· {wins} win" in line, (line, card)
            assert "?" not in card and "Rated games: 10" in card, card
            last = next(line for line in finals[9].splitlines()
                        if shown in line and "(Elo" in line)
            assert last.endswith(f"(Elo {elo})"), (last, card)
        await players[0].send(GROUP, "/profile")
        await wait_for(lambda: any(m.kind == "photo" for m in api.messages(GROUP)))
        caption = next(m for m in api.messages(GROUP) if m.kind == "photo").html or ""
        assert "<b>Ann" not in caption and "&lt;b&gt;Ann&lt;/b&gt;" in caption, caption


async def test_history_and_final_message_elo_changes_are_the_shown_differences(
        pg_db, pg_url) -> None:
    """Three games in a row for four players with leavers: every Elo change /history and
    the final messages give is the difference of the Elo shown before and after (+20 from
    1500 reads 1520), and the week's change is their sum."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann, _bob, _cat, dan = players
        totals: dict[str, int] = {}
        for round_ in range(3):
            game = await open_game(runner, players, options={"lives": 2})
            if round_ == 1:
                await until_all_moved(runner, game.id, {dan.id})
                await leave(api, dan)
            await play_out(runner, game.id)
            shown = places_of(await final_of(api, game.id))
            for name, (_place, change, _elo, _q) in shown.items():
                assert change is not None, shown
                totals[name] = totals.get(name, 0) + int(
                    change.replace("−", "-").replace("±", ""))
        events = await service(runner).rating_history(ann.id, kind="coyote")
        assert len(events) == 3
        rows = table_rows(await ask(api, ann, "/standings", "Standings this week"))
        for name, total in totals.items():
            assert rows[name][5] == signed(total), (name, total, rows)
        before = 1500.0
        history = await ask(api, ann, "/history", "Last games in this chat")
        for (_at, after), line in zip(events, reversed([
                line for line in history.splitlines() if line.startswith("#")]), strict=True):
            assert f"Ann ({signed(shown_change(before, after))})" in line, (line, before, after)
            before = after
