"""A table an admin deleted, a ping that cannot be deleted, a player who blocks the bot."""

from __future__ import annotations

from tests.e2e.ambiguous_api import (
    GROUP,
    KINDS,
    Watch,
    errors,
    headed,
    keyboards,
    live_tables,
    shown_version,
    start,
    table,
    wait,
)


async def test_a_deleted_table_is_posted_again(pg_db, pg_url) -> None:
    """An admin deletes the live table (its edits: "message to edit not found"): the next
    move posts it again, so Dan, who plays from the group, has a table to press 🎴 on (none
    came back until the next round)."""
    async with table(pg_url, strangers=1) as (api, players, runner):
        watch = Watch(api, players, runner, await start(api, players, runner))
        game = await watch.game()
        api.get_message(GROUP, game.table_message_id).deleted = True
        dan = players[3]
        for _ in range(3):
            if await watch.to_act() is dan:
                break
            await watch.step()
        assert await watch.to_act() is dan and not headed(api, KINDS["coyote"][2])
        assert [m for m in api.bot_messages(GROUP) if "your turn" in (m.text or "")]
        assert live_tables(api), [m.text for m in api.bot_messages(GROUP)]


async def test_a_ping_that_cannot_be_deleted_does_not_outlive_its_turn(pg_db, pg_url) -> None:
    """Dan (no private chat) is pinged in the group; Telegram refuses to delete the ping
    ("message can't be deleted": older than 48 hours, a paused relaxed game): it is edited
    to say the turn is over (it named Dan to act long after his turn)."""
    async with table(pg_url, strangers=1) as (api, players, runner):
        watch = Watch(api, players, runner, await start(api, players, runner))
        dan = players[3]
        for _ in range(8):
            if await watch.to_act() is dan:
                break
            await watch.step()
        assert await watch.to_act() is dan
        api.fail_next("deleteMessage", 400, "Bad Request: message can't be deleted",
                      chat_id=GROUP, count=3)
        await watch.step()
        assert await watch.to_act() is not dan
        named = [m.text for m in api.bot_messages(GROUP)
                 if "Dan" in (m.text or "") and "your turn" in (m.text or "")]
        assert named == []


async def test_a_player_who_blocks_then_starts_the_bot_again(pg_db, pg_url, caplog) -> None:
    async with table(pg_url) as (api, players, runner):
        watch = Watch(api, players, runner, await start(api, players, runner))
        cat = players[2]
        cat.block_bot()
        for _ in range(4):
            if await watch.to_act() is cat:
                break
            await watch.step()
        assert await watch.to_act() is cat
        assert [m for m in api.bot_messages(GROUP) if "Cat" in (m.text or "")
                and "your turn" in (m.text or "")]
        await cat.start_bot()
        game = await watch.game()
        assert await wait(lambda: [shown_version(api, m) for m in keyboards(api, cat)]
                          == [game.version])
        await watch.play()
        assert watch.faults == [] and errors(caplog) == []
