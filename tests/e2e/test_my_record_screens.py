"""A player's own record, read by the player: Ann plays Coyote and Koira in two groups (a
third game of the second group is played without her, one of the first is cancelled, one is
still running) and then asks the bot in her private chat, in English and in Spanish, what
she played.

The games are played through the bot's own match service (the moves the buttons would make;
the presenter tells the groups and the players as it does for a press); what is read is what
the bot sends to the chat in answer to the commands. The clock is the test's; seeds are
fixed. Where a test once failed, its docstring says what the bot did before the fix.
"""

from __future__ import annotations

import re

from tests.e2e.harness import wait_for
from tests.e2e.league_screens_helpers import (
    GROUP,
    OTHER,
    SUPER,
    TITLE,
    answer_to,
    final_of,
    league,
    open_game,
    play_out,
    service,
    step,
    unmarked,
)

OTHER_TITLE = "Other <b>&</b> Co"  # (escaped: shown as typed, not bold)


def _line(text: str, game_id: int) -> str | None:
    return next((line for line in text.splitlines() if line.startswith(f"#{game_id} · ")),
                None)


async def test_private_history_lists_my_games_of_every_group(pg_db, pg_url) -> None:
    """Ann plays Coyote #1 and Koira #2 in "Probes" and Coyote #4 in another group; Coyote
    #3 there is played without her, Coyote #5 of "Probes" is cancelled and #6 still runs.
    /history in her private chat (the help's "/history … the last games here") should list
    her finished games, newest first, each named with its group and read as the groups'
    /history reads it (places, Elo changes), none she was not in, none cancelled or
    running, and say where /replay works; in Spanish too.

    Before the fix it answered only "Send /history in a group." (README: "in private, your
    tournaments"): a player of two groups saw none of her four games, nor which groups to
    ask, although her private /rating counts them."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann, bob, cat, dan = players
        api.add_group(OTHER, OTHER_TITLE, admins=[1])
        first = await open_game(runner, [ann, bob, cat], options={"lives": 2})
        await play_out(runner, first.id)
        await final_of(api, first.id)
        koira = await open_game(runner, players, "koira")
        await play_out(runner, koira.id)
        await final_of(api, koira.id)
        without = await open_game(runner, [bob, cat, dan], options={"lives": 2}, chat=OTHER)
        await play_out(runner, without.id)
        await final_of(api, without.id, OTHER)
        there = await open_game(runner, [dan, ann, cat], options={"lives": 2}, chat=OTHER)
        await play_out(runner, there.id)
        await final_of(api, there.id, OTHER)
        cancelled = await open_game(runner, [ann, bob, cat])
        await step(runner, cancelled.id)
        await ann.send(GROUP, "/cancel")
        await wait_for(lambda: bool(api.find_messages(GROUP, "was cancelled")))
        running = await open_game(runner, [ann, bob, cat])
        await step(runner, running.id)
        await api.settle(quiet=0.1)

        groups = {GROUP: unmarked(await answer_to(api, ann, "/history", GROUP)),
                  OTHER: unmarked(await answer_to(api, ann, "/history", OTHER))}
        mine = unmarked(await answer_to(api, ann, "/history", ann.id))
        lines = [_line(mine, g.id) for g in (there, koira, first)]
        assert all(lines), f"her games #{there.id}, #{koira.id}, #{first.id}:\n{mine}"
        assert mine.index(lines[0]) < mine.index(lines[1]) < mine.index(lines[2]), mine
        for game, chat, title in ((first, GROUP, TITLE), (koira, GROUP, TITLE),
                                  (there, OTHER, OTHER_TITLE)):
            in_group = _line(groups[chat], game.id)
            assert in_group is not None, groups[chat]
            head, places = in_group.split(": ", 1)
            assert _line(mine, game.id) == f"{head} · {title}: {places}", (in_group, mine)
        for game in (without, cancelled, running):
            assert _line(mine, game.id) is None, (game.id, mine)
        assert "/replay" in mine and "group" in mine, mine

        ann.language_code = "es"
        spanish = unmarked(await answer_to(api, ann, "/history", ann.id))
        assert all(_line(spanish, g.id) for g in (there, koira, first)), spanish
        assert "grupo" in spanish and "Last games" not in spanish, spanish
        assert re.search(rf"^#{first.id} · 4 mar · clásica · {TITLE}: ", spanish, re.M), \
            spanish


async def test_my_games_stay_listed_after_the_group_became_a_supergroup_and_i_renamed(
        pg_db, pg_url) -> None:
    """What held (with the fix above): a rated game in "Probes", which then becomes a
    supergroup; Ann renames herself "Annie B" and plays again there. The supergroup's
    /history and her private /history list both games under her new name (the private
    one under the group's title), and /replay of the first works in the supergroup."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann, bob, cat, _dan = players
        first = await open_game(runner, [ann, bob, cat], options={"lives": 2})
        await play_out(runner, first.id)
        await final_of(api, first.id)
        api.migrate_group(GROUP, SUPER)
        svc = service(runner)
        for _ in range(500):  # the bot moves the group's league on the service messages
            if await svc.history(SUPER, kind=None):
                break
            await api.settle(quiet=0.02)
        ann.rename("Annie", "B")
        second = await open_game(runner, [ann, bob, cat], options={"lives": 2}, chat=SUPER)
        await play_out(runner, second.id)
        await final_of(api, second.id, SUPER)
        group = unmarked(await answer_to(api, ann, "/history", SUPER))
        mine = unmarked(await answer_to(api, ann, "/history", ann.id))
        for game in (first, second):
            line = _line(group, game.id)
            assert line is not None and "Annie B" in line and "Ann " not in line, group
            head, places = line.split(": ", 1)
            assert _line(mine, game.id) == f"{head} · {TITLE}: {places}", mine
        replay = unmarked(await answer_to(api, ann, f"/replay {first.id}", SUPER))
        assert f"Replay of game #{first.id}" in replay and "Annie B" in replay, replay
