"""A kill while a private message is being sent (its id never recorded) must not leave the
player without their message for the rest of the round."""

from __future__ import annotations

from sqlalchemy import text

from tests.e2e.harness import bot_table, mover, start_game, wait_for

GROUP = -100557


async def test_a_send_cut_short_by_a_kill_is_sent_again(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "Claim", ["Ann", "Bob", "Cat"],
                         sweep_interval=0.2) as (api, players, runner):
        await start_game(api, players, GROUP, "/newgame")
        first = await mover(api, players)
        await runner.stop()
        # As a SIGKILL leaves it between the send and its record: its id never recorded
        # (the message may never have reached Telegram).
        async with pg_db.engine.begin() as conn:
            await conn.execute(text("DELETE FROM private_messages WHERE user_id = :u"),
                               {"u": first.id})
            # and the restart comes later than any send could still be under way
            await conn.execute(text("UPDATE game_events "
                                    "SET created_at = created_at - interval '5 minutes'"))
        before = len(api.bot_messages(first.id))
        await runner.start()

        def resent() -> bool:
            return any(m.reply_markup for m in api.bot_messages(first.id)[before:])

        await wait_for(resent, timeout=10)
