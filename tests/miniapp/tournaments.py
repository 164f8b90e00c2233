"""A tournament played to its end through the running bot's league service, for the tests of
its pages: Ann, Bob and Cat (ids 1–3) and three computer players, three rounds of tables of
three in the group, each human's move the one a normal computer player would choose (as
``tests/league/test_tournaments.py`` plays them), each round scored by the tournaments' tick."""

from __future__ import annotations

import asyncio

from league.service import MatchService
from league.store.snapshots import UserRef
from league.tournaments.records import TournamentSnapshot
from tests.league.test_tournaments import play_table
from tests.miniapp.koira import NAMES, service_of

ROUNDS = 3


async def scored(service: MatchService, cup: TournamentSnapshot) -> TournamentSnapshot:
    """The tournament once its current round is scored (the next seated, or the end): the
    tick is called here, and the bot's own tick may be the one that does it."""
    for _ in range(500):
        await service.advance_tournaments()
        now = await service.tournament(cup.id)
        if now.round > cup.round or now.status == "finished":
            return now
        await asyncio.sleep(0.02)
    raise AssertionError(f"round {cup.round} of tournament {cup.id} was not scored")


async def signed_up(runner, group: int, title: str = "Mini league", *, ai: int = 3,
                    kind: str = "coyote") -> TournamentSnapshot:
    """Ann's tournament in ``group`` (Bob and Cat joined, ``ai`` computer players, three
    rounds of tables of three), in sign-up."""
    service = service_of(runner)
    cup = await service.open_tournament(group, title, 0, UserRef(1, NAMES[1]), kind)
    for user_id in (2, 3):
        cup = await service.join_tournament(cup.id, UserRef(user_id, NAMES[user_id]))
    for _ in range(ai):
        cup = await service.add_tournament_ai(cup.id, 1, is_admin=False, version=cup.version)
    for name, value in (("rounds", ROUNDS), ("table_size", 3)):
        cup = await service.set_tournament_setting(cup.id, 1, name, value, is_admin=False,
                                                   version=cup.version)
    return cup


async def finished_tournament(runner, group: int, title: str = "Mini league"
                              ) -> TournamentSnapshot:
    """:func:`signed_up`, started and played to its end."""
    service = service_of(runner)
    cup = await signed_up(runner, group, title)
    cup = await service.start_tournament(cup.id, 1, is_admin=False, version=cup.version)
    while cup.status == "running":
        for table in cup.tables_of(cup.round):
            game = await play_table(service, table.game_id, seed=cup.round * 10 + table.table)
            assert game.status == "finished", "a computer player's turn was left to the humans"
        cup = await scored(service, cup)
    assert cup.status == "finished" and cup.round == ROUNDS
    return cup
