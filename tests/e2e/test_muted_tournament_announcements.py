"""A tournament's announcement in a group that muted the bot (an admin restricted it:
Telegram refuses its messages with 400 "not enough rights to send text messages to the
chat"), through the real Application and the fake Bot API on a controlled clock: it is
tried once, not every two minutes for as long as the tournament runs."""

from __future__ import annotations

from tests.clock import Clock
from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.test_tournament_tables import GROUP, NAMES, TITLE, start_cup
from tests.fakebot import FakeBotAPI


def announcement_sends(api: FakeBotAPI, cup_id: int) -> int:
    """sendMessage calls (answered or refused) of the tournament's round-1 announcement."""
    marker = f"tournament #{cup_id}: round 1 of"
    return sum(1 for r in api.calls("sendMessage") if r.params.get("chat_id") == GROUP
               and marker in str(r.params.get("text")))


async def test_a_muted_groups_announcement_is_tried_once(pg_db, pg_url) -> None:
    """Before the fix a refused announcement stayed owed and was claimed and sent again
    every two minutes (``RETRY_AFTER``), each refusal logged as a warning, for as long as
    the tournament ran (days). Now a refusal for good (a Bad Request) gives it up: the
    tournament goes on, its tables and the later rounds' announcements are tried as usual."""
    clock = Clock()
    async with FakeBotAPI() as api:
        api.add_group(GROUP, TITLE, admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(NAMES, start=1)]
        for user in players:
            await user.start_bot()
        runner = BotRunner(api, pg_url, clock=clock, sweep_interval=0.05)
        await runner.start()
        try:
            api.bot_membership(GROUP, "restricted", by=players[0], old="member")  # (muted)
            await api.settle()
            cup = await start_cup(runner, players, 0, kind="coyote", forum=False)
            await wait_for(lambda: announcement_sends(api, cup.id) > 0)
            await api.settle()
            for _ in range(3):  # three times past the retry's two minutes
                clock.advance(150)
                await api.settle()
            assert announcement_sends(api, cup.id) == 1
        finally:
            await runner.stop()
