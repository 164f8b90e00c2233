"""An evening's results as its players check them: ranks and the season's champions read
against the figures every screen shows (points, wins, the Elo as shown), and a game's end
told by the sweeper's catch-up in the group's language.

The games are played through the bot's own match service and /leave (the moves the buttons
would make; the presenter tells the group and the players as it does for a press); what is
read is what the bot sends. A poker-deck game ends when its first player is out, so a
player who leaves after everyone moved is its only loser and the others share the win:
the places are the test's, not the deal's. The clock is the test's; seeds are fixed.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from engine import Action
from league.service import MatchService
from league.store.db import Database
from tests.clock import Clock
from tests.e2e.harness import wait_for
from tests.e2e.league_screens_helpers import (
    GROUP,
    answer_to,
    ask,
    final_of,
    league,
    leave,
    open_game,
    places_of,
    table_rows,
    unmarked,
    until_all_moved,
)
from tests.fakebot import FakeBotAPI, FakeUser

SEASON_END = datetime(2026, 3, 23, 0, 0, 30, tzinfo=UTC)
"""Just past the end of season 28 (Feb 23 – Mar 22, 2026: four-week blocks from 2024-01-01)."""


async def lost_by(api: FakeBotAPI, runner, players: list[FakeUser], loser: FakeUser) -> int:
    """A rated poker-deck game of ``players``: everyone bids once, then ``loser`` leaves
    (placed last), the others sharing first place; returns its id once its end is told."""
    game = await open_game(runner, players, options={"edition": "poker-deck"})
    await until_all_moved(runner, game.id, {p.id for p in players})
    await leave(api, loser)
    await final_of(api, game.id)
    return game.id


async def season_post(api: FakeBotAPI, first_day: str) -> str:
    """The season's final table posted in the group, found by its first day."""
    def found() -> list[str]:
        return [unmarked(m.text) for m in api.find_messages(GROUP, "Final standings of the "
                                                             "season") if first_day in
                unmarked(m.text)]
    await wait_for(lambda: bool(found()), timeout=60)
    await api.settle(quiet=0.1)
    return found()[-1]


def chat_rank(card: str) -> str:
    return re.search(r"Rank in this chat: (\S+)", card).group(1)


# ============================================ findings =========================================
async def test_players_level_on_points_wins_and_shown_elo_share_rank_and_title(
        pg_db, pg_url) -> None:
    """Last season Ann lost a game to Dan and Eve, and Bob another; this season's only
    game is Ann's and Bob's shared win over Cat. Both end the season with 1.5 points, a
    win and Elo 1491? (1490.6 and 1491.1 unrounded), on the final message, /standings
    and their /rating. Before the fix the tables and ranks broke the tie on the unrounded
    Elo nobody sees: /standings put Bob 1st and Ann 2nd ("equal on all three share a
    rank", ``league.tables.standings``), /rating gave them different ranks in the chat,
    and the season's post named Bob its only champion."""
    async with league(pg_url, ("Ann", "Bob", "Cat", "Dan", "Eve"),
                      start=datetime(2026, 2, 18, 12, tzinfo=UTC)) as (
            api, players, clock, runner):
        ann, bob, cat, dan, eve = players
        await lost_by(api, runner, [dan, eve, ann], ann)
        await lost_by(api, runner, [dan, eve, bob], bob)
        clock.now = datetime(2026, 3, 18, 12, tzinfo=UTC)  # the season's last week
        game = await lost_by(api, runner, [ann, bob, cat], cat)
        shown = places_of(await final_of(api, game))
        assert shown["Ann"][0] == shown["Bob"][0] == 1 and shown["Ann"][2:] == \
            shown["Bob"][2:] == (1491, True), shown
        rows = table_rows(await ask(api, ann, "/standings", "Standings this week"))
        assert rows["Ann"][1:5] == rows["Bob"][1:5] == ("1.5", 1, 1, "1491?"), rows
        assert (rows["Ann"][0], rows["Bob"][0]) == (1, 1), rows
        ranks = {user.first_name: chat_rank(await ask(api, user, "/rating", "Rank in this "
                                                                              "chat"))
                 for user in (ann, bob)}
        assert ranks["Ann"] == ranks["Bob"], ranks
        clock.now = SEASON_END
        post = await season_post(api, "Feb 23")
        champion = next(line for line in post.splitlines() if line.startswith("👑"))
        assert "Ann" in champion and "Bob" in champion, post


async def test_a_season_won_by_two_names_them_both_as_champions(pg_db, pg_url) -> None:
    """The season's one game: Ann and Bob share the win over Cat, with the same points,
    win and Elo, so both are its champions. Before the fix the post said "👑 Season
    champion: Ann, Bob!" (a Spanish group's "Gana la temporada: ¡Ann, Bob!"), one
    champion's words for two, where the game's own end says "🏆 Winners: Ann, Bob"."""
    async with league(pg_url, ("Ann", "Bob", "Cat"),
                      start=datetime(2026, 3, 18, 12, tzinfo=UTC)) as (
            api, players, clock, runner):
        ann, bob, cat = players
        game = await lost_by(api, runner, [ann, bob, cat], cat)
        assert "🏆 Winners: Ann, Bob" in await final_of(api, game)
        clock.now = SEASON_END
        post = await season_post(api, "Feb 23")
        assert "👑 Season champions: Ann, Bob!" in post.splitlines(), post


async def test_a_game_end_told_by_the_catch_up_is_in_the_groups_language(
        pg_db, pg_url) -> None:
    """A Korean group's Coyote game ends by a move its committer never told (another
    webhook worker's, or a process killed after the commit): the sweeper's catch-up tells
    it. Before the fix the note was Korean down to the last move, then "🏁 Game #1 is
    over!", "🏆 Winners: …" and the "?" legend in English: ``Reports._tell_logged`` draws
    the game's ``game_over_text`` before entering the group's language (Coyote's, unlike
    Koira's, is not drawn in the chat's language by itself), in a delivery that carries no
    language of its own."""
    now = datetime.now(UTC)  # (the catch-up looks at games finished within a real day)
    async with league(pg_url, ("Ann", "Bob", "Cat"), start=now) as (
            api, players, clock, runner):
        ann, bob, cat = players
        await answer_to(api, ann, "/settings language ko")
        game = await open_game(runner, players, options={"edition": "poker-deck"})
        game = await until_all_moved(runner, game.id, {p.id for p in players})
        await api.settle(quiet=0.2)
        other = Database(pg_url)  # another worker: its commit reaches no presenter here
        try:
            worker = MatchService(other, clock=Clock(now))
            await worker.act(game.id, cat.id, game.version, Action("resign"))
        finally:
            await other.dispose()
        await wait_for(lambda: bool(api.find_messages(GROUP, "🏁")), timeout=60)
        await api.settle(quiet=0.2)
        [end] = api.find_messages(GROUP, "🏁")
        text = unmarked(end.text)
        assert "#1 게임이 끝났어요!" in text and "우승" in text, text
        assert "is over" not in text and "Winner" not in text and "provisional" not in \
            text, text
