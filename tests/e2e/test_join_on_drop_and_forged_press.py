"""A join answered when the database drops after its commit; a forged press shows no other game."""

from __future__ import annotations

from telegram_app.services import KEY
from tests.e2e.harness import bot_table, wait_for

GROUP = -100991


async def test_a_join_is_answered_when_the_database_drops_right_after_its_commit(
        pg_db, pg_url) -> None:
    """✋ Join commits, then asks ``reachable`` before it answers. If the database drops
    right then (an outage), on_error sees the inbox item done (the join committed) and does
    not answer "nothing was changed" — rightly — but nobody else answers either: the
    player's spinner turns until Telegram gives up. (_rematch and _notify: the same.)"""
    from sqlalchemy.exc import OperationalError

    async with bot_table(pg_url, GROUP, "Drop", ["Ann", "Bob", "Cat"], notes="every_move") as (
            api, players, runner):
        await players[0].send(GROUP, "/newgame")
        await wait_for(lambda: bool(api.find_messages(GROUP, "new game #")))
        await api.settle()
        lobby = api.find_messages(GROUP, "new game #")[-1]
        service = runner.app.bot_data[KEY].service
        plain = service.reachable
        dropped = {"n": 0}

        async def reachable(user_ids):
            if dropped["n"] == 0:
                dropped["n"] += 1
                raise OperationalError("SELECT 1", {}, ConnectionError("server closed"))
            return await plain(user_ids)

        service.reachable = reachable
        query = await players[1].press(lobby, "✋ Join")
        await api.settle()
        assert dropped["n"] == 1
        game = await service.open_game(GROUP, 0)
        assert game.player(players[1].id) is not None      # the join was committed
        assert api.callback_answer(query) is not None, "the press was never answered"


async def test_a_forged_press_does_not_show_another_groups_game(pg_db, pg_url) -> None:
    """A stranger (never in the group) forges Coyote's "m" button (show bids from a number:
    a game verb, so pressable in a private chat) naming the group's cancelled game, on a
    message in their own private chat with the bot. _game_press finds no seat and raises
    "stale"; on_button then redraws the pressed message (Screens.redraw's branch for a
    private chat and a game not running) with the game's closed text under with_place:
    the group's title and game id are shown to someone outside the group. (Also before 1d751f6.)"""
    async with bot_table(pg_url, GROUP, "Secret club", ["Ann", "Bob", "Cat"],
                         notes="every_move") as (
            api, players, runner):
        await players[0].send(GROUP, "/newgame")
        await wait_for(lambda: bool(api.find_messages(GROUP, "new game #")))
        await api.settle()
        await players[0].send(GROUP, "/cancel")
        await api.settle()
        stranger = api.add_user(99, "Eve")
        await stranger.start_bot()
        await api.settle()
        own = api.bot_messages(stranger.id)[-1]
        query = await stranger.press_raw(stranger.id, own.message_id, "m:1:1:5")
        await api.wait_answer(query)             # "This game is not running any more."
        await api.settle()
        shown = api.get_message(stranger.id, own.message_id).text or ""
        assert "Secret club" not in shown, shown
